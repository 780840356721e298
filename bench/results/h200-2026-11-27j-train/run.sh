#!/usr/bin/env bash
# One device call (H5, issue 23): the fp32 step's attention with the score matrix materialized
# (matmul_batched products) against the FA2 kernels, gpt110m and the other presets.
#   run(command="bash bench/results/h200-2026-11-27j-train/run.sh",
#       carry=[".gl", "build-h5gpu/cli/wgslvk.xz", "build-h5gpu/corpus"])
# (build-h5gpu/corpus: a copy of /usr/share/games/fortunes.)
#  1. the golden cases of matmul_batched, attn_softmax_mat and attn_dscores_mat on the GPU;
#  2. gpt110m 120 steps: ours --fp32-attention fa2, ours auto, PyTorch fp32 (TF32 off), 3 times
#     alternating, the first with profiled steps; 200 steps of both with every loss logged;
#  3. small (1000 steps), medium (500), large (500), xl (120): fa2 vs auto once each (no PyTorch:
#     27d/27c have it), to set the rule per preset.
set -uo pipefail
ROOT=$(pwd)
mkdir -p "$OUT"
if ! ldconfig -p | grep -q 'libvulkan.so.1'; then
  for f in .gl/*.deb; do dpkg -x "$f" /; done
  ldconfig
fi
B=/tmp/h5-wgslvk
xz -dkc build-h5gpu/cli/wgslvk.xz > $B && chmod +x $B
{
  echo "== golden cases on the GPU"
  for k in matmul/matmul_batched attention/attn_softmax_mat attention/attn_dscores_mat; do
    WGSLVK_SOURCE_DIR=$ROOT timeout 60 $B validate --kernel "$k" 2>&1 | tail -4
  done
} 2>&1 | tee "$OUT/golden.txt"
FP32_AB="gpt110m:120:10" FP32_AB_REPEAT=3 FP32_AB_LOSS=200 PRESETS=" " LONG="" AB_MATMUL="" \
  TORCH_MODES="fp32" WGSLVK_BIN=$B CORPUS=$ROOT/build-h5gpu/corpus OUT=$OUT/gpt110m \
  bash bench/gpu_train.sh
FP32_AB="small:1000:50 medium:500:50 large:500:50 xl:120:10" FP32_AB_REPEAT=1 PRESETS=" " LONG="" \
  AB_MATMUL="" TORCH=0 WGSLVK_BIN=$B CORPUS=$ROOT/build-h5gpu/corpus OUT=$OUT/presets \
  bash bench/gpu_train.sh
