#!/usr/bin/env bash
# Issue 14's GPU half: the browser suite's capture under Dawn (npm `webgpu` 0.6.2's dawn.node, as
# bench/gpu_peers.sh uses it) on the real driver with shader-f16, so the f16
# entry points (embed_lookup_w16, adamw_update_f16, ...) are captured too; then `wgslvk validate
# --cases` replays every captured case on the same GPU through wgslvk's Vulkan runtime.
#   run(command="bash bench/gpu_capture.sh", carry=[".gl", ".dawn", "build-gpu/cli/wgslvk"], timeout_s=600)
# Results under $OUT: log.txt (the table last), summary.json. SEED=N replays the fresh inputs.
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
OUT=${OUT:-$ROOT/out/capture}
mkdir -p "$OUT"
exec > >(tee "$OUT/log.txt") 2>&1
if ! ldconfig -p | grep -q 'libvulkan.so.1'; then
  for f in .gl/*.deb; do dpkg -x "$f" /; done
  ldconfig
fi
nvidia-smi --query-gpu=name,driver_version --format=csv || true
BIN=${WGSLVK_BIN:-$ROOT/build-gpu/cli/wgslvk}
W=/tmp/wgslvk-capture; rm -rf "$W"; mkdir -p "$W"
xz -dkc .dawn/node.xz > "$W/node" && chmod +x "$W/node"
xz -dkc .dawn/dawn.node.xz > "$W/dawn.node"
SEED_ARG=(); [ -n "${SEED:-}" ] && SEED_ARG=(--seed "$SEED")
WGSLVK_SOURCE_DIR=$ROOT timeout 540 "$W/node" capture/suite/run_node.mjs --wgslvk "$BIN" --dawn "$W/dawn.node" \
  --out "$W/run" "${SEED_ARG[@]}" "$@" 2>&1 | grep -v '^Warning'
rc=${PIPESTATUS[0]}
cp "$W/run/summary.json" "$OUT/summary.json" 2>/dev/null || true
rm -rf "$W"
echo "gpu_capture: exit $rc"
exit "$rc"
