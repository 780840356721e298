#!/usr/bin/env bash
# The GPT-block families on an NVIDIA machine: wgslvk validate on the real driver, wgslvk bench
# over the matmul / norm / elementwise / loss / attention sections, and PyTorch at the same shapes
# (bench/peers/torch_gpt_kernels.py), and Dawn replaying the very cases the bench timed
# (bench/peers/dawn_cases.mjs: same inputs, same WGSL, checked with the same bounds, compared bit
# for bit with our outputs, timed with pass timestamps).
#   run(command="bash bench/gpu_families.sh", carry=[".gl", ".dawn", "build-gpu/cli/wgslvk"], timeout_s=600)
# Results under $OUT: ours.json, ours.png, dawn_cases.json, torch_gpt.json, ratios.md, log.txt.
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
OUT=${OUT:-$ROOT/out/families}
mkdir -p "$OUT"
exec > >(tee "$OUT/log.txt") 2>&1
ONLY=${ONLY:-matmul,norm,elementwise,loss,attention}
if ! ldconfig -p | grep -q 'libvulkan.so.1'; then
  for f in .gl/*.deb; do dpkg -x "$f" /; done
  ldconfig
fi
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv || true
BIN=${WGSLVK_BIN:-$ROOT/build-gpu/cli/wgslvk}
"$BIN" devices | head -20
if [ "${SKIP_VALIDATE:-0}" != 1 ]; then
  echo "== wgslvk validate (every golden case + randomized, real driver)"
  WGSLVK_SOURCE_DIR=$ROOT "$BIN" validate || echo "gpu_families: wgslvk validate FAILED"
fi
echo "== wgslvk bench --only $ONLY"
W=/tmp/wgslvk-families; rm -rf "$W"; mkdir -p "$W"
"$BIN" bench --only "$ONLY" --json "$OUT/ours.json" --png "$OUT/ours.png" --dump "$W/dump" "$@"
echo "== PyTorch peers"
python3 bench/peers/torch_gpt_kernels.py --out "$OUT/torch_gpt.json" || echo "gpu_families: torch peers FAILED"
if [ -f .dawn/node.xz ] && [ -f .dawn/dawn.node.xz ]; then
  echo "== Dawn replaying the timed cases"
  xz -dkc .dawn/node.xz > "$W/node" && chmod +x "$W/node"
  xz -dkc .dawn/dawn.node.xz > "$W/dawn.node"
  DAWN_NODE=$W/dawn.node timeout 300 "$W/node" bench/peers/dawn_cases.mjs --root "$ROOT" --cases "$W/dump" \
    --out "$OUT/dawn_cases.json" --reps 25 2>&1 | grep -v '^Warning' || echo "gpu_families: Dawn replay FAILED"
fi
rm -rf "$W/dump"
if [ -f "$OUT/dawn_cases.json" ]; then
  echo "== ratios (ours vs Dawn, streaming and back to back)"
  python3 bench/peers/ratios.py "$OUT/ours.json" "$OUT/dawn_cases.json" --md "$OUT/ratios.md" | tail -4
fi
