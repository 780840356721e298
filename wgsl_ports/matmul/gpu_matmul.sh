#!/usr/bin/env bash
# matmul_native's variants at the GPT shapes against cuBLAS SGEMM (TF32 off) in one call on an
# NVIDIA machine (issue 23):
#   run(command="bash wgsl_ports/matmul/gpu_matmul.sh", carry=[".gl", "build-gpu/cli/wgslvk.xz",
#       "build-gpu/matmul_cases"])
# build-gpu/matmul_cases: `python3 wgsl_ports/matmul/splitk_cases.py build-gpu/matmul_cases` (case
# folders: the hand port of matmul_native and its n64 variant, the WGSL of matmul_native.wgsl as
# wgslvk's front end translates it (native and split-K at several slice counts), each checked on
# C[0, :64] before it is timed). Ours: `wgslvk bench --cases` (device timestamps; best and median
# of the repeats). cuBLAS: torch.matmul fp32 with TF32 off on the same shapes and transposes
# (A^T B as a.t() @ b, A B^T as a @ b.t()), CUDA events, best and median. Results under $OUT:
# log.txt, ours.json, torch.json, summary.md, smi.csv (stats.txt with PORTS).
# PORTS=DIR (the tile sweep, sweep/README.md): every DIR/X.comp is also timed as a run-time hand
# port ABI-checked against DIR/X.wgsl (`--port`, includes from sweep/), the driver's statistics
# of those ports and of the built-in matmul kernels are written first (`inspect --stats`), and the
# summary has one column per variant of the index.
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$ROOT"
OUT=${OUT:-$ROOT/out/matmul}
W=/tmp/wgslvk-gpu-matmul
rm -rf "$W"
mkdir -p "$OUT" "$W"
exec > >(tee "$OUT/log.txt") 2>&1
CASES=${CASES:-$ROOT/build-gpu/matmul_cases}
REPS=${REPS:-10}
t0=$(date +%s)
step() { echo; echo "== [$(($(date +%s) - t0)) s] $*"; }

step "environment"
if ! ldconfig -p | grep -q 'libvulkan.so.1'; then
  for f in .gl/*.deb; do dpkg -x "$f" /; done
  ldconfig
fi
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv
BIN=${WGSLVK_BIN:-$ROOT/build-gpu/cli/wgslvk}
if [ ! -x "$BIN" ] && [ -f "$BIN.xz" ]; then xz -dkc "$BIN.xz" > "$W/wgslvk" && chmod +x "$W/wgslvk" && BIN=$W/wgslvk; fi
"$BIN" devices | head -3
nvidia-smi --query-gpu=timestamp,clocks.sm,utilization.gpu,power.draw --format=csv -lms 200 > "$OUT/smi.csv" 2>&1 &
SMI=$!

PORT_ARGS=()
if [ -n "${PORTS:-}" ]; then
  for f in "$PORTS"/*.comp; do PORT_ARGS+=(--port "$f:${f%.comp}.wgsl"); done
  PORT_ARGS+=(--include-dir "$ROOT/wgsl_ports/matmul/sweep")
  step "driver statistics (inspect --stats)"
  "$BIN" inspect --stats matmul/matmul_native matmul/matmul_native_n64 matmul/matmul_native_splitk \
    $(for f in "$PORTS"/*.comp; do b=$(basename "$f" .comp); echo "$b/$b"; done) "${PORT_ARGS[@]}" \
    2>&1 | tee "$OUT/stats.txt"
fi

step "ours: wgslvk bench --cases ($(ls "$CASES" | grep -vc index.json) cases)"
"$BIN" bench --cases "$CASES" --wgsl wgsl_ports/matmul/matmul_native.wgsl "${PORT_ARGS[@]}" \
  --reps "$REPS" --warm-ms "${WARM_MS:-100}" --json "$OUT/ours.json" | tail -n +1 | cut -c1-160
kill $SMI 2>/dev/null

step "cuBLAS (torch.matmul fp32, TF32 off)"
python3 - "$CASES/index.json" "$OUT/torch.json" "$REPS" <<'EOF'
import json, sys, torch
idx, out, reps = json.load(open(sys.argv[1])), sys.argv[2], int(sys.argv[3])
torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False
res, seen = {}, set()
for e in idx:
    key = (e["M"], e["N"], e["K"], e["flags"])
    if key in seen:
        continue
    seen.add(key)
    M, N, K, fl = key
    a = torch.rand((K, M) if fl & 1 else (M, K), device="cuda") * 2 - 1
    b = torch.rand((N, K) if fl & 2 else (K, N), device="cuda") * 2 - 1
    A = a.t() if fl & 1 else a
    B = b.t() if fl & 2 else b
    c = torch.empty(M, N, device="cuda")
    f = lambda: torch.matmul(A, B, out=c)
    for _ in range(3):
        f()
    torch.cuda.synchronize()
    # ~200 ms busy before timing (clocks up), then `reps` x 5 timed calls, one event pair each
    ev0 = torch.cuda.Event(enable_timing=True); ev1 = torch.cuda.Event(enable_timing=True)
    ev0.record(); f(); ev1.record(); torch.cuda.synchronize()
    one = max(ev0.elapsed_time(ev1), 1e-3)
    for _ in range(int(200 / one) + 1):
        f()
    ts = []
    for _ in range(reps * 5):
        s = torch.cuda.Event(enable_timing=True); t = torch.cuda.Event(enable_timing=True)
        s.record(); f(); t.record(); torch.cuda.synchronize()
        ts.append(s.elapsed_time(t))
    ts.sort()
    res["%dx%dx%d/%d" % key] = {"min_ms": ts[0], "median_ms": ts[len(ts) // 2]}
    print("%-24s cuBLAS %.4f ms (best) %.1f TFLOP/s" % ("%dx%dx%d/%d" % key, ts[0], 2 * M * N * K / ts[0] / 1e9))
json.dump(res, open(out, "w"), indent=1)
EOF

step "summary"
python3 - "$CASES/index.json" "$OUT/ours.json" "$OUT/torch.json" > "$OUT/summary.md" <<'EOF'
import json, sys
idx = json.load(open(sys.argv[1]))
ours = json.load(open(sys.argv[2]))
rows = ours["kernels"]
torch = json.load(open(sys.argv[3]))
by_case = {}
for r in rows:
    cid = r.get("case", "")
    by_case[cid.split("/")[-1]] = r
shapes = {}
for e in idx:
    shapes.setdefault((e["label"], e["M"], e["N"], e["K"], e["flags"], e["tiles"]), []).append(e)
print("TFLOP/s = 2MNK / best repeat (median in parentheses); cuBLAS = torch.matmul fp32, TF32 off.\n")
variants = []
for e in idx:
    if not e["variant"].startswith("wgsl_splitk") and e["variant"] not in variants:
        variants.append(e["variant"])
if any(e["variant"].startswith("wgsl_splitk") for e in idx):
    variants.append("best split-K (S)")
print("| shape | M x N x K | 128x128 tiles | cuBLAS | " + " | ".join(variants) + " | best ours / cuBLAS |")
print("|---|---|---:|---:|" + "---:|" * len(variants) + "---|")
for (label, M, N, K, fl, t), es in shapes.items():
    fl_ = 2 * M * N * K / 1e9
    tb = torch.get("%dx%dx%d/%d" % (M, N, K, fl))
    cub = fl_ / tb["min_ms"] if tb else float("nan")
    cell, best, bestv = {}, 0.0, "-"
    for e in es:
        r = by_case.get(e["folder"])
        if not r or not r.get("min_ms") or "ok" not in r.get("check", ""):
            cell[e["variant"]] = ("ERR", 0, 0)
            continue
        tf, tm = fl_ / r["min_ms"], fl_ / r["median_ms"]
        cell[e["variant"]] = ("%.1f (%.1f)" % (tf, tm), tf, tm)
        if tf > best:
            best, bestv = tf, e["variant"]
    sk = [(v[1], k) for k, v in cell.items() if k.startswith("wgsl_splitk")]
    if sk:
        v, k = max(sk)
        cell["best split-K (S)"] = ("%s (S=%s)" % (cell[k][0], k.split("_s")[-1]), v, 0)
    g = lambda k: cell.get(k, ("-",))[0]
    print(f"| {label} | {M}x{N}x{K} | {t} | {cub:.1f} | " + " | ".join(g(v) for v in variants)
          + f" | {best / cub * 100:.0f}% ({bestv}) |")
print("\nEvery split-K count (best TFLOP/s):\n")
for (label, M, N, K, fl, t), es in shapes.items():
    fl_ = 2 * M * N * K / 1e9
    parts = []
    for e in es:
        if e["variant"].startswith("wgsl_splitk"):
            r = by_case.get(e["folder"])
            if r and r.get("min_ms"):
                parts.append("S=%s %.1f" % (e["variant"].split("_s")[-1], fl_ / r["min_ms"]))
    if parts:
        print(f"- {label} {M}x{N}x{K}: " + ", ".join(parts))
EOF
cat "$OUT/summary.md"
step "done"
