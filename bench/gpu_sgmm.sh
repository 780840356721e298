#!/usr/bin/env bash
# sgmm_f16, sgmm_f16_tiled8 and sgmm_f16_tiled8_d2 (wgsl_ports/subgroup_matrix) on an NVIDIA machine,
# one call (README there, "H200"):
#   1. the Vulkan loader (.gl/*.deb), as bench/gpu_peers.sh
#   2. test_subgroup_matrix (carried: $SGMM_CARRY/test_subgroup_matrix.xz): every shape and flag
#      against the double reference, then 2048^3, 4096^3 and gpt110m's products timed, the 4096^3
#      inputs and each kernel's output dumped, and one gpt110m product per flag set (0, TRANS_B,
#      TRANS_A | ACCUMULATE: gpt_fF.*) with each kernel's output of one dispatch; sha256 of each
#      output in the log
#   3. Dawn (node.xz and dawn.node.xz from $DAWN_PACK, default .dawn, else $SGMM_CARRY; made by
#      bench/pack_dawn.sh) on the same WGSL and inputs, each of SGMM_DAWN_ENTRIES in three
#      processes (dawn.node crashed after a 4096^3 comparison on 2026-11-27; each exit status is
#      logged): 4096^3 timed and compared bit for bit, the gpt_fF products compared bit for bit,
#      the gpt110m products timed
#   4. cuBLAS HGEMM (torch.matmul f16) at the same sizes and products (SGMM_SKIP_TORCH=1: not)
# Logs under $OUT. SGMM_CARRY: the carried folder (default build-h3gpu), made on the build machine:
# test_subgroup_matrix.xz (xz of a Release build's tests/subgroup_matrix/test_subgroup_matrix).
# What travels must stay under 64 MiB: `bash bench/pack_dawn.sh --size .gl .dawn SGMM_CARRY`
# (bench/README.md, "What travels to the GPU machine").
# SGMM_DAWN_ENTRIES: the entry points Dawn runs (default "sgmm_f16_tiled8_d2 sgmm_f16_tiled8").
# SGMM_GTEST_FILTER: test_subgroup_matrix's tests (default: all; with SGMM_SWEEP=1 all but
#   Bench4096).
# SGMM_SWEEP=1: test_subgroup_matrix built with -DWGSLVK_SGMM_SWEEP=ON runs its Sweep test timing
#   gen_tiled.py --sweep's variants beside the shipped tiled kernels, interleaved
#   (wgsl_ports/subgroup_matrix/README.md "Sweep"); Dawn runs SGMM_DAWN_ENTRIES (a sgmm_sw_* entry
#   from SGMM_SWEEP_WGSL_DIR, relative to the repository, with its block SGMM_BLOCK_<entry>=BMxBN,
#   default 128x128), the 4096^3 comparison and the gpt110m products in separate processes.
# SGMM_GPT=1 (with SGMM_SWEEP=1): Dawn times gpt110m's products as test_subgroup_matrix's GptShapes
#   times ours (tests/subgroup_matrix/dawn_gpt_shapes.mjs: sgmm_f16_tiled8_d2 alone, then
#   interleaved with sgmm_f16_tiled8_d4, sgmm_f16_tiled4_d4, sgmm_f16_tiled8_n256 and gen_tiled.py --sweep's variants,
#   generated here into $W/sweep)
#   instead of the SGMM_DAWN_ENTRIES runs.
# SGMM_SASS=1: the driver's shader disk cache goes to $W/glcache, and after the test
#   bench/sgmm_sass.py finds the compiled kernels' CUDA ELF objects in it, disassembles them
#   (cuobjdump) and counts their instructions: $OUT/sass.txt, $OUT/sass.tar.xz.
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
if [ "${SGMM_SASS:-0}" = 1 ]; then
  rm -rf "$W/glcache"; mkdir -p "$W/glcache"
  export __GL_SHADER_DISK_CACHE=1 __GL_SHADER_DISK_CACHE_PATH=$W/glcache __GL_SHADER_DISK_CACHE_SKIP_CLEANUP=1
fi
echo "== test_subgroup_matrix (no validation layer on this machine)"
if [ "${SGMM_SWEEP:-0}" = 1 ]; then
  WGSLVK_SGMM_SWEEP=1 WGSLVK_SGMM_DUMP=$W/dump timeout 400 "$W/test_subgroup_matrix" \
    --gtest_filter="${SGMM_GTEST_FILTER:--SubgroupMatrix.Bench4096}"
else
  WGSLVK_SGMM_BENCH=1 WGSLVK_SGMM_DUMP=$W/dump timeout 300 "$W/test_subgroup_matrix" \
    ${SGMM_GTEST_FILTER:+--gtest_filter=$SGMM_GTEST_FILTER}
fi
(cd "$W/dump" && ls *.c.f32 >/dev/null 2>&1 && sha256sum *.c.f32)
if [ "${SGMM_SASS:-0}" = 1 ]; then
  echo "== SASS from the shader disk cache"
  timeout 60 python3 bench/sgmm_sass.py "$W/glcache" "$W/sass" | tee "$OUT/sass.txt"
  (cd "$W" && tar cJf "$OUT/sass.tar.xz" sass glcache 2>/dev/null)
fi
echo "== Dawn"
P=${DAWN_PACK:-.dawn}
[ -f "$P/node.xz" ] || P=$G
if [ "${SGMM_GPT:-0}" = 1 ] && [ -f "$P/node.xz" ] && [ -f "$P/dawn.node.xz" ]; then
  xz -dkc "$P/node.xz" > "$W/node" && chmod +x "$W/node"
  xz -dkc "$P/dawn.node.xz" > "$W/dawn.node"
  python3 wgsl_ports/subgroup_matrix/gen_tiled.py --sweep "$W/sweep"
  CE=wgsl_ports/subgroup_matrix/chromium_experimental
  args=("sgmm_f16_tiled8_d2=$CE/subgroup_matrix_tiled8_d2.wgsl@128x128x1"
        "sgmm_f16_tiled8_d4=$CE/subgroup_matrix_tiled8_d4.wgsl@128x128x1"
        "sgmm_f16_tiled4_d4=$CE/subgroup_matrix_tiled4_d4.wgsl@64x64x1"
        "sgmm_f16_tiled8_n256=$CE/subgroup_matrix_tiled8_n256.wgsl@128x256x1")
  # variants.inc: {"subgroup_matrix/NAME", BM, BN, checked, workgroup bytes, K splits},
  while IFS= read -r v; do args+=("$v"); done < <(sed -n 's|^{"subgroup_matrix/\([a-z0-9_]*\)", \([0-9]*\), \([0-9]*\), [01], [0-9]*, \([0-9]*\)},$|\1='"$W"'/sweep/\1.wgsl@\2x\3x\4|p' "$W/sweep/variants.inc")
  DAWN_NODE=$W/dawn.node timeout 150 "$W/node" tests/subgroup_matrix/dawn_gpt_shapes.mjs "${args[@]}"
  echo "dawn_gpt_shapes exit $?"
elif [ -f "$P/node.xz" ] && [ -f "$P/dawn.node.xz" ] && [ -f "$W/dump/a.f16" ]; then
  xz -dkc "$P/node.xz" > "$W/node" && chmod +x "$W/node"
  xz -dkc "$P/dawn.node.xz" > "$W/dawn.node"
  for entry in ${SGMM_DAWN_ENTRIES:-sgmm_f16_tiled8_d2 sgmm_f16_tiled8}; do
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
    else  # 4096^3, the gpt_fF comparisons, the gpt110m timings: a process each
      for n in 4096 -1 0; do
        DAWN_NODE=$W/dawn.node timeout 100 "$W/node" bench/peers/dawn_sgmm.mjs "$W/dump" $n $entry
        echo "dawn $entry $n: exit $?"
      done
    fi
  done
else
  echo "Dawn skipped (no carried node/dawn.node, or no dump)"
fi
if [ "${SGMM_SKIP_TORCH:-0}" != 1 ]; then
  echo "== cuBLAS HGEMM"
  timeout 90 python3 bench/peers/torch_hgemm.py 2048 4096
fi
kill $SMI 2>/dev/null
