#!/usr/bin/env bash
# One device call (H3, issue 23, session 13): --matmul native_auto_fwd (the forward's products
# with a bias of <= 288 tiles on matmul_batched: bias rows, then C += the product) against the
# default native_auto, gpt110m, beside PyTorch fp32 (TF32 off).
#   run(command="bash bench/results/h200-2026-11-27l-fwd/run.sh",
#       carry=[".gl", "build-h3gpu/cli/wgslvk.xz", "build-h5gpu/corpus"])
# gpt110m 120 steps: native_auto, native_auto_fwd, PyTorch fp32, 3 times alternating, the first
# with profiled last steps; 200 steps of both with every loss logged.
set -uo pipefail
ROOT=$(pwd)
mkdir -p "$OUT"
if ! ldconfig -p | grep -q 'libvulkan.so.1'; then
  for f in .gl/*.deb; do dpkg -x "$f" /; done
  ldconfig
fi
B=/tmp/h3-wgslvk
xz -dkc build-h3gpu/cli/wgslvk.xz > $B && chmod +x $B
MM_AB="gpt110m:120:10" MM_AB_REPEAT=3 MM_AB_LOSS=200 MM_AB_KERNELS="native_auto native_auto_fwd" \
  PRESETS=" " LONG="" AB_MATMUL="" TORCH_MODES="fp32" WGSLVK_BIN=$B \
  CORPUS=$ROOT/build-h5gpu/corpus OUT=$OUT/gpt110m bash bench/gpu_train.sh
