#!/bin/bash
# Builds the probe into OUT (default build-f16-probe/, ignored by git): the GLSL variants (gen.py)
# and the port-*.comp (wgslvk port of the cts_*.wgsl) through glslang (Vulkan 1.1 / SPIR-V 1.3, as translator/src/compile.cpp),
# tint.spvasm through spirv-as, each checked by spirv-val, and the f16_probe binary.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-$here/../../build-f16-probe}
mkdir -p "$out"
python3 "$here/gen.py" "$out"
cp "$here"/port-*.comp "$out/"
for f in "$out"/*.comp; do
  glslangValidator -V --target-env vulkan1.1 -o "${f%.comp}.spv" "$f" >/dev/null ||
    { glslangValidator -V --target-env vulkan1.1 "$f"; exit 1; }
  spirv-val --target-env vulkan1.1 "${f%.comp}.spv"
done
spirv-as --target-env vulkan1.2 "$here/tint.spvasm" -o "$out/tint.spv"
spirv-val --target-env vulkan1.2 "$out/tint.spv"
g++ -O1 -std=c++17 -o "$out/f16_probe" "$here/probe.cpp" -lvulkan
strip "$out/f16_probe"
echo "built $(ls "$out"/*.spv | wc -l) variants and f16_probe in $out"
