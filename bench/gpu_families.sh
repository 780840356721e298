#!/usr/bin/env bash
# The GPT-block families on an NVIDIA machine: wgslvk validate on the real driver, wgslvk bench
# over the matmul / norm / elementwise / loss / attention sections, and PyTorch at the same shapes
# (bench/peers/torch_gpt_kernels.py). Dawn for these families is not wired yet (bench/README.md).
#   run(command="bash bench/gpu_families.sh", carry=[".gl", "build-gpu/cli/wgslvk"], timeout_s=600)
# Results under $OUT: ours.json, ours.png, torch_gpt.json, log.txt.
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
echo "== wgslvk validate (every golden case + randomized, real driver)"
WGSLVK_SOURCE_DIR=$ROOT "$BIN" validate || echo "gpu_families: wgslvk validate FAILED"
echo "== wgslvk bench --only $ONLY"
"$BIN" bench --only "$ONLY" --json "$OUT/ours.json" --png "$OUT/ours.png" "$@"
echo "== PyTorch peers"
python3 bench/peers/torch_gpt_kernels.py --out "$OUT/torch_gpt.json" || echo "gpu_families: torch peers FAILED"
