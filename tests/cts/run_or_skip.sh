#!/bin/bash
# cts.ci_subset: runs cts/ci_subset.txt on wgslvk against cts/ci_expectations.json, or exits 77
# (ctest: skipped) saying what is missing. usage: run_or_skip.sh NODE WGSLVK_BIN OUT_BASE
node=$1 bin=$2 out=$3
root=${WGSLVK_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
cts=${WGSLVK_CTS_DIR:-$root/.cts-src}
if [ -z "$node" ] || [ ! -x "$node" ]; then
  echo "SKIP: node not found (scripts/install-deps.sh installs it)"; exit 77
fi
if [ ! -f "$cts/out-node/common/runtime/cmdline.js" ]; then
  echo "SKIP: no WebGPU CTS with its Node build at $cts (set WGSLVK_CTS_DIR; cts/README.md: the CTS is not vendored)"
  exit 77
fi
WGSLVK_BIN=$bin exec "$node" "$root/cts/run.mjs" --providers wgslvk --cts "$cts" --jobs 2 \
  --timeout-s 600 --list-file "$root/cts/ci_subset.txt" --expectations "$root/cts/ci_expectations.json" \
  --out "$out"
