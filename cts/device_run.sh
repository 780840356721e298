#!/bin/bash
# cts/run.mjs on the device machine (GPU; it has no Node and no Vulkan loader): unpacks what was
# put in .cts-src/pack (node.xz, dawn.node.xz, out-node.tar.xz: the CTS's Node build with its
# case cache, libvulkan.so.1, CTS_COMMIT, and wgslvk.xz: the wgslvk binary built here) and the GL
# libraries of .gl/ (the NVIDIA ICD needs libGLX), then runs run.mjs into $OUT/<name>.
# Run through the device tool with carry [".cts-src/pack", ".gl"].
# usage: bash cts/device_run.sh NAME [run.mjs options...]   e.g. NAME=h200 --providers wgslvk,dawn
set -euo pipefail
R=$(pwd)
P=${CTS_PACK:-.cts-src/pack}
NAME=${1:?usage: device_run.sh NAME [run.mjs options]}; shift
mkdir -p /tmp/bin /tmp/nm/webgpu/dist/linux-x64 /tmp/cts
[ -x /tmp/bin/node ] || { xz -dc $P/node.xz > /tmp/bin/node && chmod +x /tmp/bin/node; }
[ -f /tmp/nm/webgpu/dist/linux-x64/dawn.node ] || [ ! -f $P/dawn.node.xz ] || xz -dc $P/dawn.node.xz > /tmp/nm/webgpu/dist/linux-x64/dawn.node
if [ -f $P/wgslvk.xz ]; then xz -dc $P/wgslvk.xz > /tmp/bin/wgslvk && chmod +x /tmp/bin/wgslvk; fi
[ -d /tmp/cts/out-node ] || tar -xJf $P/out-node.tar.xz -C /tmp/cts
cp $P/CTS_COMMIT /tmp/cts/ 2>/dev/null || true
mkdir -p /tmp/cts/src/common/runtime && touch /tmp/cts/src/common/runtime/cmdline.ts  # the runner's "run from the root" check
if ! ldconfig -p | grep -q libvulkan.so.1; then
  for f in .gl/*.deb; do dpkg -x "$f" /; done
  # the loader: from the pack if it has one, else the libvulkan1 deb of .gl/ just unpacked
  if [ -f $P/libvulkan.so.1 ]; then cp $P/libvulkan.so.1 /usr/lib/x86_64-linux-gnu/; fi
  ldconfig
fi
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader || true
export PATH=/tmp/bin:$PATH WGSLVK_NODE_MODULES=/tmp/nm WGSLVK_BIN=/tmp/bin/wgslvk
node "$R/cts/run.mjs" --cts /tmp/cts --out "${OUT:-/tmp}/$NAME" "$@"
