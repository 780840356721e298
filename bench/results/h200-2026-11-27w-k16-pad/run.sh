#!/usr/bin/env bash
# One device call (H8, issue 23, session 14): matmul_native_k16 before (19c1d57's tree: workgroup
# tiles [k][row] unpadded, the transposing scalar stores 4-way bank-conflicted) and after (ed220cd:
# each group of 4 k rows padded by 2 vec4: the stores on 32 banks), same bits, in one call:
#  0. a warm-up (the new engine over the cases, discarded): the H200's first seconds run at a low
#     clock (../h200-2026-11-27u-batched-hoist);
#  1. k16 alone at 4 shapes (cases.py here: 4096^3, gpt110m mlp_up fwd / dX / dW, i.e. A's
#     transposing stores, A's and B's, none), `wgslvk bench --cases`, best and median of 8
#     device-timestamp repeats, old / new / old / new;
#  2. the gpt110m trainer (its default kernels: k16 at its K >= 512 products), 120 steps, log
#     every 10, profiled last step, old / new / old / new, losses of every logged step compared.
#   old: build-gpu-h7/wgslvk.new.xz (0893270: the engine of 19c1d57); new: this tree's wgslvk,
#   stripped + xz, into build-gpu-h8/wgslvk.{old,new}.xz; cases.py build-gpu-h8/cases; the corpus
#   as tar cJf build-gpu-h8/corpus.tar.xz -C /usr/share/games fortunes;
#   run(command="bash bench/results/h200-2026-11-27w-k16-pad/run.sh", kind="nvidia-h200",
#       carry=[".gl", "build-gpu-h8/wgslvk.old.xz", "build-gpu-h8/wgslvk.new.xz",
#              "build-gpu-h8/cases", "build-gpu-h8/corpus.tar.xz"])
set -uo pipefail
ROOT=$(pwd)
mkdir -p "$OUT/raw"
exec > >(tee "$OUT/log.txt") 2>&1
if ! ldconfig -p | grep -q 'libvulkan.so.1'; then
  for f in .gl/*.deb; do dpkg -x "$f" /; done
  ldconfig
fi
W=/tmp/h8
mkdir -p $W
CASES=${CASES:-build-gpu-h8/cases}
PRESET=${PRESET:-gpt110m}  # PRESET, STEPS, CASES: smaller for a dry run on lavapipe
STEPS=${STEPS:-120}
for e in old new; do xz -dkc build-gpu-h8/wgslvk.$e.xz > $W/$e && chmod +x $W/$e; done
tar xJf build-gpu-h8/corpus.tar.xz -C $W
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv
$W/new devices | head -3
echo '== warm-up (new, discarded)'
timeout 60 $W/new bench --cases "$CASES" --reps 8 --warm-ms 300 | grep -E 'cases/' | cut -c1-150
for r in 1 2; do
  for e in old new; do
    echo "== bench k16 $e r$r"
    timeout 60 $W/$e bench --cases "$CASES" --reps 8 --warm-ms 150 \
      --json "$OUT/raw/bench_$e.r$r.json" | grep -E 'cases/' | cut -c1-150
  done
done
for r in 1 2; do
  for e in old new; do
    echo "== train $PRESET $e r$r"
    timeout 60 $W/$e train --preset $PRESET --steps $STEPS --log-every 10 --profile $STEPS \
      --eval-every 0 --corpus $W/fortunes --json "$OUT/raw/train_$e.r$r.ours.jsonl" \
      > "$OUT/raw/train_$e.r$r.txt" 2>&1 || echo "FAILED $e r$r"
    grep -E '^step|^done' "$OUT/raw/train_$e.r$r.txt" | sed -n '1,2p;$p'
  done
done
PYTHONPATH="$ROOT/bench" python3 - "$OUT/raw" > "$OUT/summary.md" <<'PYEOF'
import json, sys, train_logs
raw = sys.argv[1]
shapes = {"40963_4096x4096x4096": (4096, 4096, 4096), "gpt110m_mlp_up_fwd_2048x3072x768":
          (2048, 3072, 768), "gpt110m_mlp_up_dX_2048x768x3072": (2048, 768, 3072),
          "gpt110m_mlp_up_dW_768x3072x2048": (768, 3072, 2048)}
print("k16 alone, TFLOP/s = 2MNK / best of 8 (median in parentheses), per run\n")
print("| shape | old r1 | new r1 | old r2 | new r2 | new / old (best, both runs) |")
print("|---|---:|---:|---:|---:|---:|")
for s, (M, N, K) in shapes.items():
    cells, best = [], {"old": 0, "new": 0}
    for r in (1, 2):
        for e in ("old", "new"):
            try:
                rows = json.load(open(f"{raw}/bench_{e}.r{r}.json"))["kernels"]
                x = next(x for x in rows if x.get("case", "").split("/")[-1].startswith(s))
                tf, tm = 2e-9 * M * N * K / x["min_ms"], 2e-9 * M * N * K / x["median_ms"]
                ok = "ok" in x.get("check", "")
                cells.append(f"{tf:.1f} ({tm:.1f})" + ("" if ok else " NOT OK"))
                best[e] = max(best[e], tf)
            except Exception as ex:
                cells.append(f"ERR {ex}")
    print(f"| {s} | " + " | ".join(cells) + f" | {best['new'] / best['old']:.3f} |" if best["old"] else "")
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
