#!/usr/bin/env bash
# One device call (H2, issue 23):
#  1. A/B of the tiled FA2 kernels' load-ahead (2f1a28e): bench rows and gpt110m 120 steps with the
#     engine before it (wgslvk-mid.xz) and after (wgslvk.xz), same call;
#  2. bench/gpu_train.sh with gpt110m and xl against PyTorch fp32 (TF32 off) in the same call, and
#     5000-step runs of large and xl (its LONG mode);
#  3. a 5000-step gpt110m run (longer than gpu_train.sh's 150 s per run), with what time is left.
#   run(command="bash bench/results/h200-2026-11-27d-train-final/run.sh",
#       carry=[".gl", "build-h2gpu/cli/wgslvk.xz", "build-h2gpu/cli/wgslvk-mid.xz"]) with .corpus/
#       (a copy of /usr/share/games/fortunes)
set -uo pipefail
ROOT=$(pwd)
T0=$(date +%s)
mkdir -p "$OUT/ab"
if ! ldconfig -p | grep -q 'libvulkan.so.1'; then
  for f in .gl/*.deb; do dpkg -x "$f" /; done
  ldconfig
fi
N=/tmp/h2-new M=/tmp/h2-mid
xz -dkc build-h2gpu/cli/wgslvk.xz > $N && chmod +x $N
xz -dkc build-h2gpu/cli/wgslvk-mid.xz > $M && chmod +x $M
{
  echo "== A/B: mid (before the load-ahead) vs new"
  for e in mid:$M new:$N; do
    tag=${e%%:*} b=${e#*:}
    timeout 100 "$b" bench --only attn_fwd_fa2_tiled,attn_bwd_fa2_tiled --json "$OUT/ab/bench_$tag.json" | grep -E "gpt110m|Mega|XL d256 B4 T256"
  done
  for e in mid:$M new:$N; do
    tag=${e%%:*} b=${e#*:}
    timeout 100 "$b" train --preset gpt110m --steps 120 --log-every 10 --profile 120 --eval-every 0 \
      --corpus "$ROOT/.corpus" --json "$OUT/ab/gpt110m_$tag.jsonl" > "$OUT/ab/gpt110m_$tag.txt" 2>&1
    awk -v n="gpt110m_$tag" '/^step .*ms\/step/ {v[++k]=$(NF-1)} END {s=0; c=0; for (i=2;i<k;i++) {s+=v[i]; c++} if (c) printf "%s steady %.2f ms/step\n", n, s/c}' "$OUT/ab/gpt110m_$tag.txt"
    grep -E 'attention|\*\*step' "$OUT/ab/gpt110m_$tag.txt"
  done
} 2>&1 | tee "$OUT/ab/log.txt"
PRESETS="xl:120:10 gpt110m:120:10" LONG="large:5000:100 xl:5000:100" TORCH_MODES="fp32" AB_MATMUL="" \
  WGSLVK_BIN=build-h2gpu/cli/wgslvk OUT=$OUT/train bash bench/gpu_train.sh
left=$((570 - ($(date +%s) - T0)))
echo "== long run: gpt110m, 5000 steps (log every 100, profile at 5000), $left s left"
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,utilization.gpu,power.draw --format=csv,noheader -lms 500 \
  > "$OUT/long_gpt110m.smi.csv" 2>&1 &
smi=$!
timeout $left $N train --preset gpt110m --steps 5000 --log-every 100 --profile 5000 --eval-every 0 \
  --corpus "$ROOT/.corpus" > "$OUT/long_gpt110m.txt" 2>&1
echo "exit $?"
kill $smi 2>/dev/null; wait $smi 2>/dev/null
grep -E '^step +(100|500|1000|2000|3000|4000|4900|5000)/|^done|^\| \*\*step' "$OUT/long_gpt110m.txt"
tail -2 "$OUT/long_gpt110m.txt"
gzip -9 "$OUT/long_gpt110m.smi.csv"
tar czf "$OUT/ab.tar.gz" -C "$OUT" ab && rm -rf "$OUT/ab"
ls -R "$OUT"
