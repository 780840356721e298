#!/usr/bin/env bash
# Does the driver's buffer robustness cost the subgroup-matrix kernels time? (issue 24;
# wgsl_ports/subgroup_matrix/README.md, "Robustness"). One call on an NVIDIA machine:
#   1. the Vulkan loader (.gl/*.deb), as bench/gpu_sgmm.sh
#   2. test_subgroup_matrix's Sweep (built with -DWGSLVK_SGMM_SWEEP=ON) with WGSLVK_SGMM_SWEEP_QUICK=1
#      (sgmm_f16_tiled8, _tiled8_d2, _tiled8_d4 and the sweep's variants interleaved at 4096^3
#      flags 0, 2, 1 and 2048^3; first 64 rows against the reference, every output bit for bit
#      against sgmm_f16_tiled8's; the driver's statistics per kernel) once per robustness mode of
#      bench/sgmm_robustness.c (an LD_PRELOAD shim: default, off, pipeline_off, rba2, then default
#      again for drift), a process each
#   3. SGMM_GPT_MODES (default "default off"): test_subgroup_matrix's GptShapes (gpt110m's 15
#      products) per mode
#   4. test_gpt_mixed (tests/gpt) on the GPU, WGSLVK_SOURCE_DIR=$PWD (its subgroup-matrix products
#      and materialized attention run only on a device with the feature)
#   5. cuBLAS HGEMM (torch.matmul f16) at 2048^3 and 4096^3 and gpt110m's products
# Carried: $SGMM_CARRY (default build-h4gpu/carry) with test_subgroup_matrix.xz, test_gpt_mixed.xz
# and sgmm_robustness.so (cc -O2 -shared -fPIC -o sgmm_robustness.so bench/sgmm_robustness.c -ldl).
# Logs under $OUT: sweep_<n>_<mode>.txt, gpt_<mode>.txt, gpt_mixed.txt, torch.txt, smi.csv.
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
OUT=${OUT:-$ROOT/out/sgmm-robustness}
G=${SGMM_CARRY:-$ROOT/build-h4gpu/carry}
W=/tmp/wgslvk-sgmm-rb
mkdir -p "$OUT" "$W"
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
for b in test_subgroup_matrix test_gpt_mixed; do
  xz -dkc "$G/$b.xz" > "$W/$b" && chmod +x "$W/$b"
done
cp "$G/sgmm_robustness.so" "$W/"
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu,utilization.gpu,pstate,clocks_event_reasons.active \
  --format=csv -lms 100 > "$OUT/smi.csv" 2>/dev/null &
SMI=$!
i=0
for mode in ${SGMM_MODES:-default off pipeline_off rba2 default}; do
  i=$((i + 1))
  echo "== Sweep, robustness $mode ($(date -u +%T))"
  SGMM_ROBUSTNESS=$mode LD_PRELOAD=$W/sgmm_robustness.so WGSLVK_SGMM_SWEEP=1 WGSLVK_SGMM_SWEEP_QUICK=1 \
    timeout 120 "$W/test_subgroup_matrix" --gtest_filter=SubgroupMatrix.Sweep > "$OUT/sweep_${i}_$mode.txt" 2>&1
  echo "exit $?"
  grep -E "sgmm_robustness|Sweep \(|sweep .*TFLOP|bit-identical|Register|registers|FAIL" "$OUT/sweep_${i}_$mode.txt"
done
for mode in ${SGMM_GPT_MODES-default off}; do
  echo "== GptShapes, robustness $mode ($(date -u +%T))"
  SGMM_ROBUSTNESS=$mode LD_PRELOAD=$W/sgmm_robustness.so WGSLVK_SGMM_SWEEP=1 \
    timeout 90 "$W/test_subgroup_matrix" --gtest_filter=SubgroupMatrix.GptShapes > "$OUT/gpt_$mode.txt" 2>&1
  echo "exit $?"
  grep -E "sgmm_robustness|interleaved|GptShapes \(" "$OUT/gpt_$mode.txt" | grep -v "sgmm_sw_"
done
echo "== test_gpt_mixed ($(date -u +%T))"
WGSLVK_SOURCE_DIR=$ROOT timeout 180 "$W/test_gpt_mixed" > "$OUT/gpt_mixed.txt" 2>&1
echo "exit $?"
grep -E "^\[|mixed|materialized" "$OUT/gpt_mixed.txt" | tail -40
if [ "${SGMM_SKIP_TORCH:-0}" != 1 ]; then
  echo "== cuBLAS HGEMM ($(date -u +%T))"
  timeout 90 python3 bench/peers/torch_hgemm.py 2048 4096 > "$OUT/torch.txt" 2>&1
  echo "exit $?"
  cat "$OUT/torch.txt"
fi
kill $SMI 2>/dev/null
echo "== done ($(date -u +%T))"
