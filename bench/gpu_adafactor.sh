#!/usr/bin/env bash
# Adafactor (wgsl_ports/adafactor, issue 13) on an NVIDIA machine, one run:
#   1. wgslvk validate --kernel adafactor on the real driver (every golden case + randomized);
#   2. wgslvk bench --only adafactor: the seed's shapes (one tensor's whole step and the fused
#      row+column reduction), the 1-D sizes, and the whole 110M-parameter multi-tensor step;
#   3. the PyTorch peer (bench/peers/torch_adafactor.py): torch.optim.Adafactor foreach and
#      for-loop at the same shapes, the byte floor, and the training-curve check (torch vs the
#      double reference, within 1%).
# Then a short table: ours vs torch (foreach / for-loop) per shape, the ratio to the byte floor.
#   run(command="bash bench/gpu_adafactor.sh",
#       carry=[".gl", ".dawn", "build-gpu/cli/wgslvk"], timeout_s=600)
# Logs under $OUT (at most 5 files): log.txt, validate.txt, ours.json, torch_adafactor.json,
# table.txt. Env: WGSLVK_BIN (default build-gpu/cli/wgslvk), QUICK=1 (small shapes).
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
OUT=${OUT:-$ROOT/out/adafactor}
mkdir -p "$OUT"
exec > >(tee "$OUT/log.txt") 2>&1
if ! ldconfig -p | grep -q 'libvulkan.so.1'; then
  for f in .gl/*.deb; do dpkg -x "$f" /; done
  ldconfig
fi
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv || true
BIN=${WGSLVK_BIN:-$ROOT/build-gpu/cli/wgslvk}
QFLAG=""; PQFLAG=""
if [ "${QUICK:-0}" = 1 ]; then QFLAG="--quick"; PQFLAG="--quick"; fi
"$BIN" devices | head -12

echo "== wgslvk validate --kernel adafactor"
WGSLVK_SOURCE_DIR=$ROOT "$BIN" validate --kernel adafactor > "$OUT/validate.txt" 2>&1
VRC=$?
tail -30 "$OUT/validate.txt"
[ $VRC = 0 ] || echo "gpu_adafactor: wgslvk validate FAILED (rc $VRC)"

echo "== wgslvk bench --only adafactor $QFLAG"
"$BIN" bench --only adafactor --json "$OUT/ours.json" $QFLAG || echo "gpu_adafactor: wgslvk bench FAILED"

echo "== PyTorch peer"
if python3 -c "import torch; assert torch.cuda.is_available(); torch.optim.Adafactor" 2>/dev/null; then
  python3 bench/peers/torch_adafactor.py --out "$OUT/torch_adafactor.json" $PQFLAG || echo "gpu_adafactor: torch peer FAILED"
else
  echo "gpu_adafactor: no torch with CUDA and torch.optim.Adafactor (>= 2.5): peer skipped"
  python3 bench/peers/torch_adafactor.py --selftest || true
fi

echo "== table"
python3 - "$OUT/ours.json" "$OUT/torch_adafactor.json" <<'PY' | tee "$OUT/table.txt"
import json, sys
def load(p):
    try:
        return json.load(open(p))
    except Exception as e:
        print(f"(no {p}: {e})")
        return None
ours, torch = load(sys.argv[1]), load(sys.argv[2])
rows = {}
def walk(x):
    if isinstance(x, dict):
        if x.get("group") == "adafactor" and "kernel" in x:
            rows[(x["kernel"], x.get("label", ""))] = x
        for v in x.values(): walk(v)
    elif isinstance(x, list):
        for v in x: walk(v)
if ours: walk(ours)
def med(r):
    return r.get("median_ms")
def label_of(t):
    return {"2d": ("step_2d", t["label"]), "1d": ("step_1d", t["label"]), "model": ("multi_tensor_step", None)}[t["kind"]]
print(f"{'shape':26s} {'ours ms':>9s} {'torch foreach':>14s} {'torch loop':>11s} {'speedup':>10s} {'ours/floor':>10s}")
for t in (torch or {}).get("rows", []):
    k, lab = label_of(t)
    r = rows.get((k, lab)) if lab else next((v for (kk, _), v in rows.items() if kk == k), None)
    o = med(r) if r else None
    fe, fl, floor = t["foreach"]["median_ms"], t["forloop"]["median_ms"], t["floor_ms"]
    sp = f"{min(fe, fl) / o:9.2f}x" if o else "        -"
    cf = r.get("copy_median_ms") if r else None  # our byte floor: the copy roofline over the same bytes
    fr = f"{o / cf:9.2f}x" if o and cf else "        -"
    print(f"{t['label']:26s} {o if o else float('nan'):9.4f} {fe:14.4f} {fl:11.4f} {sp:>10s} {fr:>10s}")
if torch and torch.get("curve"):
    c = torch["curve"]
    print(f"training curve ({c['steps']} steps, lr {c['lr']}): final rel diff torch vs reference "
          f"{c['final_rel_diff']:.2e} -> {'PASS' if c['pass'] else 'FAIL'} (<= 1%)")
if not torch:
    for (k, lab), r in rows.items():
        print(f"{k + ' ' + lab:40s} {med(r) or float('nan'):9.4f} ms")
PY
