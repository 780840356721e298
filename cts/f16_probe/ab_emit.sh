#!/bin/bash
# Same-machine A/B of the front end's device tests (test_wgsl_emit's WgslEmitDevice.*) on the GPU:
# build-h2-dev/test_wgsl_emit_{old,new}.xz (stripped, xz'd; old = the same test source linked with
# the emitter file before the fix: emit_glsl.cpp for the 3 x f16 stores, emit_helpers.cpp for
# quantizeToF16), carried with .gl. Writes $OUT/emit-{old,new}.txt; prints a summary.
set -uo pipefail
for f in .gl/*.deb; do dpkg -x "$f" /; done
ldconfig
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null
for v in old new; do
  xz -dk "build-h2-dev/test_wgsl_emit_$v.xz"
  chmod +x "build-h2-dev/test_wgsl_emit_$v"
  WGSLVK_SOURCE_DIR=$PWD "build-h2-dev/test_wgsl_emit_$v" --gtest_filter='WgslEmitDevice.*' \
    >"${OUT:-/tmp}/emit-$v.txt" 2>&1
  echo "== $v: rc $?"
  grep -E "device '|^\[  (PASSED|FAILED) |tests? ran" "${OUT:-/tmp}/emit-$v.txt"
done
