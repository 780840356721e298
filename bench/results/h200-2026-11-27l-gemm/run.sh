#!/usr/bin/env bash
# One device call (H3, issue 23, session 13): matmul_batched as one GEMM at the gpt110m products
# against matmul_native_k16 / split-K and cuBLAS SGEMM, then the trainer's rules A/B.
#   python3 wgsl_ports/matmul/sweep/sweep.py build-h3gpu/gemm --gemm
#   run(command="bash bench/results/h200-2026-11-27l-gemm/run.sh",
#       carry=[".gl", "build-h3gpu/cli/wgslvk.xz", "build-h3gpu/gemm", "build-h5gpu/corpus"])
# (build-h5gpu/corpus: a copy of /usr/share/games/fortunes.)
#  1. the golden cases of matmul_batched on the GPU (wgslvk validate);
#  3. (last, cut at 150 s) wgsl_ports/matmul/gpu_matmul.sh on the --gemm cases: hand k16, hand matmul_batched (one
#     product, 64 x 64 tiles), the hand split-K pair where native_plan() splits, cuBLAS SGEMM
#     (TF32 off) in the same call;
#  2. gpt110m 120 steps: --matmul native_auto (the default), native_auto_bmm, native_auto_bmm_all,
#     PyTorch fp32 (TF32 off), 3 times alternating, the first with profiled steps; 200 steps of
#     each with every loss logged.
set -uo pipefail
ROOT=$(pwd)
mkdir -p "$OUT"
if ! ldconfig -p | grep -q 'libvulkan.so.1'; then
  for f in .gl/*.deb; do dpkg -x "$f" /; done
  ldconfig
fi
B=/tmp/h3-wgslvk
xz -dkc build-h3gpu/cli/wgslvk.xz > $B && chmod +x $B
{
  echo "== golden cases on the GPU"
  WGSLVK_SOURCE_DIR=$ROOT timeout 60 $B validate --kernel matmul/matmul_batched 2>&1 | tail -6
} 2>&1 | tee "$OUT/golden.txt"
MM_AB="gpt110m:120:10" MM_AB_REPEAT=3 MM_AB_LOSS=200 \
  MM_AB_KERNELS="native_auto native_auto_bmm native_auto_bmm_all" PRESETS=" " LONG="" AB_MATMUL="" \
  TORCH_MODES="fp32" WGSLVK_BIN=$B CORPUS=$ROOT/build-h5gpu/corpus OUT=$OUT/gpt110m \
  bash bench/gpu_train.sh
WGSLVK_BIN=$B CASES=$ROOT/build-h3gpu/gemm/cases REPS=${REPS:-8} WARM_MS=150 OUT=$OUT/matmul \
  timeout 150 bash wgsl_ports/matmul/gpu_matmul.sh
