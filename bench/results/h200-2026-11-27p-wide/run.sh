#!/usr/bin/env bash
# One device call (H3, issue 23, session 14): matmul_native_w (8 x 16 outputs per invocation, k16's
# 128 x 64 tiles on 64 invocations) against k16 / native and cuBLAS SGEMM, the trainer with it,
# and other blockings of its statements (sweep.py --wide). Ran at 7865932, which had the kernel
# and --matmul native_auto_w (removed after this call: README.md here).
#   python3 wgsl_ports/matmul/sweep/sweep.py build-gpu-h3/wide --wide     # 5 ports, 139 cases
#   cp -r /usr/share/games/fortunes build-gpu-h3/corpus
#   run(command="bash bench/results/h200-2026-11-27p-wide/run.sh",
#       carry=[".gl", "build-gpu-h3/cli/wgslvk.xz", "build-gpu-h3/wide", "build-gpu-h3/corpus"])
#  1. the golden cases of matmul_native_w on the GPU (wgslvk validate);
#  2. gpt110m 120 steps: --matmul native_auto_fwd (the default) and native_auto_w, PyTorch fp32
#     (TF32 off) on the same weights and batches, 3 times alternating, the first with profiled
#     steps; 200 steps of each with every loss logged (gpu_train.sh's MM_AB mode);
#  3. (last, cut at MM_S seconds) wgsl_ports/matmul/gpu_matmul.sh on the --wide cases: hand
#     native, k16 and w, the wide ports, the hand split-K pair where native_plan() splits,
#     cuBLAS SGEMM (TF32 off) in the same call; driver statistics of every kernel first.
set -uo pipefail
ROOT=$(pwd)
mkdir -p "$OUT"
if ! ldconfig -p | grep -q 'libvulkan.so.1'; then
  for f in .gl/*.deb; do dpkg -x "$f" /; done
  ldconfig
fi
B=/tmp/h3-wgslvk
xz -dkc build-gpu-h3/cli/wgslvk.xz > $B && chmod +x $B
{
  echo "== golden cases on the GPU"
  WGSLVK_SOURCE_DIR=$ROOT timeout 60 $B validate --kernel matmul/matmul_native_w 2>&1 | tail -6
  echo "== driver statistics"
  timeout 30 $B inspect --stats matmul/matmul_native matmul/matmul_native_k16 matmul/matmul_native_w 2>&1
} 2>&1 | tee "$OUT/golden.txt"
MM_AB="gpt110m:120:10" MM_AB_REPEAT=3 MM_AB_LOSS=200 \
  MM_AB_KERNELS="native_auto_fwd native_auto_w" PRESETS=" " LONG="" AB_MATMUL="" \
  TORCH_MODES="fp32" WGSLVK_BIN=$B CORPUS=$ROOT/build-gpu-h3/corpus OUT=$OUT/gpt110m \
  bash bench/gpu_train.sh
PORTS=$ROOT/build-gpu-h3/wide/ports WGSLVK_BIN=$B CASES=$ROOT/build-gpu-h3/wide/cases \
  REPS=${REPS:-8} WARM_MS=150 OUT=$OUT/matmul timeout "${MM_S:-170}" bash wgsl_ports/matmul/gpu_matmul.sh
