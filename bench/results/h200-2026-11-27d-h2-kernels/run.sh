#!/usr/bin/env bash
# One device call (H2, issue 23): the bias-gradient lanes and attn_fwd_fa2_tiled on the GPU.
#   run(command="bash bench/results/h200-2026-11-27d-h2-kernels/run.sh",
#       carry=[".gl", "build-h2gpu/cli/wgslvk.xz", "build-h2gpu/cli/wgslvk-base.xz"]) with .corpus/
# wgslvk.xz: the static build of the tree with the changes; wgslvk-base.xz: the binary of the
# committed-rule run (bench/results/h200-2026-11-27c-train-committed-rule). Logs under $OUT.
set -uo pipefail
ROOT=$(pwd)
W=/tmp/h2m
rm -rf "$W"; mkdir -p "$W" "$OUT"
exec > >(tee "$OUT/log.txt") 2>&1
t0=$(date +%s)
step() { echo; echo "== [$(($(date +%s) - t0)) s] $*"; }
if ! ldconfig -p | grep -q 'libvulkan.so.1'; then
  for f in .gl/*.deb; do dpkg -x "$f" /; done
  ldconfig
fi
xz -dkc build-h2gpu/cli/wgslvk.xz > "$W/new" && chmod +x "$W/new"
xz -dkc build-h2gpu/cli/wgslvk-base.xz > "$W/base" && chmod +x "$W/base"
N=$W/new B=$W/base
CORPUS=$ROOT/.corpus
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv
"$N" devices | head -3

step "validate (new engine): the changed kernels"
timeout 120 "$N" validate --kernel matmul_bias_grad --kernel attn_fwd_fa2_tiled --kernel attn_bwd_fa2_tiled \
  --kernel attn_fwd_fa2_wide

step "driver statistics"
timeout 60 "$N" inspect --stats attention/attn_fwd_fa2_tiled attention/attn_fwd_fa2_wide \
  attention/attn_bwd_fa2_tiled matmul/matmul_bias_grad

step "bench: matmul_bias_grad (every L at 2048 rows)"
timeout 150 "$N" bench --only matmul_bias_grad --json "$OUT/bench_bias_grad.json" | tail -40

step "bench: FA2 forward wide vs tiled, tiled backward"
timeout 200 "$N" bench --only attn_fwd_fa2_wide,attn_fwd_fa2_tiled,attn_bwd_fa2_tiled \
  --json "$OUT/bench_attention.json" | tail -45

# train NAME BIN ARGS: one run, log kept
train() {
  local name=$1 bin=$2; shift 2
  echo "\$ $name: wgslvk train $*"
  timeout 120 "$bin" train "$@" --eval-every 0 --corpus "$CORPUS" > "$OUT/$name.txt" 2>&1 || echo "$name FAILED ($?)"
  grep -E '^done|^\| \*\*step' "$OUT/$name.txt"
}
step "gpt110m and xl, base vs new, alternating (120 steps, log every 10, profile at 120)"
for rep in 1 2; do
  for e in base:$B new:$N; do
    tag=${e%%:*} b=${e#*:}
    train "gpt110m_${tag}_$rep" "$b" --preset gpt110m --steps 120 --log-every 10 --profile 120 \
      --json "$OUT/gpt110m_${tag}_$rep.jsonl"
  done
done
for e in base:$B new:$N; do
  tag=${e%%:*} b=${e#*:}
  train "xl_${tag}" "$b" --preset xl --steps 120 --log-every 10 --profile 120
done
step "steady ms/step (mean of the intervals after the first and before the last)"
for f in "$OUT"/*.txt; do
  case $f in */log.txt) continue;; esac
  awk -v n="$(basename "$f" .txt)" '/^step .*ms\/step/ {v[++k]=$(NF-1)} END {s=0; c=0; for (i=2;i<k;i++) {s+=v[i]; c++} if (c) printf "%s %.2f ms/step (%d intervals)\n", n, s/c, c}' "$f"
done
step "done"
