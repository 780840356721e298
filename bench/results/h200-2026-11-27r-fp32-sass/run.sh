#!/usr/bin/env bash
# One device call (H5, issue 23, session 14): the machine code NVIDIA's driver makes of the fp32
# GEMM kernels (matmul_native, matmul_native_k16, matmul_batched) and of four measurement ports of
# k16 (cases.py: k16_copy, k16_nc no bounds tests, k16_ng no global loads / stores in the K loop,
# k16_nb that without barriers), then those timed beside cuBLAS SGEMM (TF32 off).
#   python3 bench/results/h200-2026-11-27r-fp32-sass/cases.py build-gpu-h5/sass  # [--hoist]: the
#                                               # next call's k16_hoist port too (README.md here)
#   xz -c build-gpu-h3/cli/wgslvk > build-gpu-h5/wgslvk.xz   # built at f99b444 (these kernels
#                                                            # unchanged since 36a8b59 / aadc34b)
#   run(command="bash bench/results/h200-2026-11-27r-fp32-sass/run.sh",
#       carry=[".gl", "build-gpu-h5/wgslvk.xz", "build-gpu-h5/sass"])
#  1. per kernel, `wgslvk inspect --stats` with the driver's shader disk cache in a folder of its
#     own ($OUT/glcache.tar.xz: glcache/<kernel>/...; bench/sass_stats.py reads it);
#  2. wgsl_ports/matmul/gpu_matmul.sh on the cases (best of 8, cuBLAS in the same call).
set -uo pipefail
ROOT=$(pwd)
mkdir -p "$OUT"
if ! ldconfig -p | grep -q 'libvulkan.so.1'; then
  for f in .gl/*.deb; do dpkg -x "$f" /; done
  ldconfig
fi
B=/tmp/h5-wgslvk
xz -dkc build-gpu-h5/wgslvk.xz > $B && chmod +x $B
S=$ROOT/build-gpu-h5/sass
PA=()
for f in "$S"/ports/*.comp; do PA+=(--port "$f:${f%.comp}.wgsl"); done
G=/tmp/h5-glcache
rm -rf $G
{
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv
  for k in matmul/matmul_native matmul/matmul_native_k16 matmul/matmul_batched \
           $(for f in "$S"/ports/*.comp; do b=$(basename "$f" .comp); echo "$b/$b"; done); do
    d=$G/${k#*/}
    mkdir -p "$d"
    echo "== $k (cache: glcache/${k#*/})"
    __GL_SHADER_DISK_CACHE=1 __GL_SHADER_DISK_CACHE_PATH=$d __GL_SHADER_DISK_CACHE_SKIP_CLEANUP=1 \
      timeout 30 $B inspect --stats "$k" "${PA[@]}" 2>&1 | grep -v '^  [A-Z]'
  done
  find $G -type f | xargs ls -la
} 2>&1 | tee "$OUT/stats.txt"
(cd /tmp && tar cJf "$OUT/glcache.tar.xz" h5-glcache)
__GL_SHADER_DISK_CACHE=0 PORTS=$S/ports WGSLVK_BIN=$B CASES=$S/cases REPS=8 WARM_MS=150 \
  OUT=$OUT/matmul timeout 150 bash wgsl_ports/matmul/gpu_matmul.sh
rm -f "$OUT/matmul/smi.csv"
