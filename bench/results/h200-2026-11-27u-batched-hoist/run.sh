#!/usr/bin/env bash
# One device call (H7, issue 23, session 14): matmul_batched before (b4c3100's tree: the loads'
# index and bounds work inside the K loop) and after (hoisted out of it, the rotated loop), same
# bits, in one call, as ../h200-2026-11-27t-k16-hoist/run.sh did for k16:
#  1. matmul_batched alone at the gpt110m trainer's 9 products on it (cases.py here: the 3 biased
#     forward products, the 6 attention products of a layer), `wgslvk bench --cases`, best and
#     median of 8 device-timestamp repeats, old / new / old / new;
#  2. the gpt110m trainer (default kernels: native_auto_fwd, attention on matmul_batched), 120
#     steps, log every 10, profiled last step, old / new / old / new, logged losses compared.
#   strip + xz both engines into build-gpu-h7/wgslvk.{old,new}.xz, `python3 cases.py
#   build-gpu-h7/cases`, tar cJf build-gpu-h7/corpus.tar.xz -C /usr/share/games fortunes;
#   run(command="bash bench/results/h200-2026-11-27u-batched-hoist/run.sh", kind="nvidia-h200",
#       carry=[".gl", "build-gpu-h7/wgslvk.old.xz", "build-gpu-h7/wgslvk.new.xz",
#              "build-gpu-h7/cases", "build-gpu-h7/corpus.tar.xz"])
set -uo pipefail
ROOT=$(pwd)
mkdir -p "$OUT/raw"
exec > >(tee "$OUT/log.txt") 2>&1
if ! ldconfig -p | grep -q 'libvulkan.so.1'; then
  for f in .gl/*.deb; do dpkg -x "$f" /; done
  ldconfig
fi
W=/tmp/h7
mkdir -p $W/raw
CASES=${CASES:-build-gpu-h7/cases}
PRESET=${PRESET:-gpt110m}  # PRESET, STEPS, CASES: smaller for a dry run on lavapipe
STEPS=${STEPS:-120}
for e in old new; do xz -dkc build-gpu-h7/wgslvk.$e.xz > $W/$e && chmod +x $W/$e; done
tar xJf build-gpu-h7/corpus.tar.xz -C $W
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv
$W/new devices | head -3
for r in 1 2; do
  for e in old new; do
    echo "== bench batched $e r$r"
    timeout 60 $W/$e bench --cases "$CASES" --reps 8 --warm-ms 150 \
      --json "$OUT/raw/bench_$e.r$r.json" | grep -E 'cases/' | cut -c1-150
  done
done
for r in 1 2; do
  for e in old new; do
    echo "== train $PRESET $e r$r"
    timeout 100 $W/$e train --preset $PRESET --steps $STEPS --log-every 10 --profile $STEPS \
      --eval-every 0 --corpus $W/fortunes --json "$W/raw/train_$e.r$r.ours.jsonl" \
      > "$W/raw/train_$e.r$r.txt" 2>&1 || echo "FAILED $e r$r"
    grep -E '^step|^done' "$W/raw/train_$e.r$r.txt" | sed -n '1,2p;$p'
  done
done
cp "$OUT"/raw/bench_*.json $W/raw/
# the trainer runs' files as one archive (the device tool returns at most 8 files)
tar cJf "$OUT/train_raw.tar.xz" --exclude "raw/bench_*" -C $W raw
PYTHONPATH="$ROOT/bench" python3 - "$W/raw" > "$OUT/summary.md" <<'PYEOF'
import json, sys, train_logs
raw = sys.argv[1]
print("matmul_batched alone, ms best of 8 (median in parentheses), per run\n")
print("| product | old r1 | new r1 | old r2 | new r2 | new / old (best of both runs) |")
print("|---|---:|---:|---:|---:|---:|")
names = sorted({x["case"].split("/")[-1] for x in json.load(open(f"{raw}/bench_old.r1.json"))["kernels"] if "case" in x})
for s in names:
    cells, best = [], {"old": 1e9, "new": 1e9}
    for r in (1, 2):
        for e in ("old", "new"):
            try:
                rows = json.load(open(f"{raw}/bench_{e}.r{r}.json"))["kernels"]
                x = next(x for x in rows if x.get("case", "").split("/")[-1] == s)
                ok = "ok" in x.get("check", "")
                cells.append(f"{x['min_ms']:.4f} ({x['median_ms']:.4f})" + ("" if ok else " NOT OK"))
                best[e] = min(best[e], x["min_ms"])
            except Exception as ex:
                cells.append(f"ERR {ex}")
    print(f"| {s} | " + " | ".join(cells) + f" | {best['new'] / best['old']:.3f} |")
print("\nthe trainer (PRESET, STEPS steps as run.sh says): wall ms/step (steady: intervals after the first, before the last),"
      " GPU ms of the profiled step\n")
print("| run | old ms/step | new ms/step | old GPU ms | new GPU ms | losses new vs old |")
print("|---|---:|---:|---:|---:|---|")
for r in (1, 2):
    o, n = train_logs.steady(raw, f"train_old.r{r}"), train_logs.steady(raw, f"train_new.r{r}")
    lo, ln = train_logs.losses(raw, f"train_old.r{r}"), train_logs.losses(raw, f"train_new.r{r}")
    same = sum(1 for s in lo if s in ln and lo[s] == ln[s])
    print(f"| {r} | {o[0]:.2f} | {n[0]:.2f} | {o[1]} | {n[1]} | {same} of {len(lo)} identical |")
PYEOF
cat "$OUT/summary.md"
