#!/usr/bin/env bash
# The FA2 backward kernels, old against new, in one call on an NVIDIA machine (issues 23, 24):
# kernel rows (device timestamps, medians of 25) and the GPT trainer, each engine run in turn
# (old, new, old, new), then bench/gpu_train.sh's gpt110m row (ours fp32 against PyTorch fp32,
# TF32 and bf16 autocast on the same weights and batches) with the new engine.
#   run(command="bash bench/gpu_attn.sh", carry=[".gl", "<dir>/wgslvk.xz", "<dir>/wgslvk-base.xz",
#       ".corpus"])
# Env: NEW_BIN, BASE_BIN (engines, xz'd or not; default build-h3/attn/wgslvk{,-base}), KERNELS (the
# bench rows, default attn_bwd_fa2_tiled,attn_bwd_fa2_tiled4), TRAIN ("preset:steps:precision ...",
# default gpt110m fp32 and mixed, xl fp32: 120 steps each), TORCH (0: skip gpu_train.sh's PyTorch
# runs), CORPUS. Results under $OUT: log.txt, bench_<engine>_<n>.json, train/<run>.txt and .jsonl
# (the losses: compare old and new with cmp), gpu_train/ (gpu_train.sh's files).
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
OUT=${OUT:-$ROOT/out/attn}
W=/tmp/wgslvk-gpu-attn
rm -rf "$W"
mkdir -p "$OUT/train" "$W"
exec > >(tee "$OUT/log.txt") 2>&1
t0=$(date +%s)
step() { echo; echo "== [$(($(date +%s) - t0)) s] $*"; }
unxz_bin() {
  local b=$1 name=$2
  if [ ! -x "$b" ] && [ -f "$b.xz" ]; then xz -dkc "$b.xz" > "$W/$name" && chmod +x "$W/$name" && b=$W/$name; fi
  [ -x "$b" ] || { echo "gpu_attn: no engine at $b" >&2; return 1; }
  echo "$b"
}
NEW=$(unxz_bin "${NEW_BIN:-$ROOT/build-h3/attn/wgslvk}" wgslvk) || exit 1
BASE=$(unxz_bin "${BASE_BIN:-$ROOT/build-h3/attn/wgslvk-base}" wgslvk-base) || exit 1
KERNELS=${KERNELS:-attn_bwd_fa2_tiled,attn_bwd_fa2_tiled4}
TRAIN=${TRAIN:-"gpt110m:120:fp32 gpt110m:120:mixed xl:120:fp32"}
CORPUS=${CORPUS:-}
[ -z "$CORPUS" ] && { [ -d "$ROOT/.corpus" ] && CORPUS=$ROOT/.corpus || CORPUS=/usr/share/games/fortunes; }

step "environment"
if ! ldconfig -p | grep -q 'libvulkan.so.1'; then
  for f in .gl/*.deb; do dpkg -x "$f" /; done
  ldconfig
fi
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv
git log -1 --format='checkout %H %s' 2>/dev/null || true
"$NEW" devices | head -4

step "validate (new engine): the FA2 backward kernels"
timeout 120 "$NEW" validate --kernel attention/attn_bwd_fa2_tiled4 | tail -4
timeout 120 "$NEW" validate --kernel attention/attn_bwd_fa2_tiled | tail -2
step "what the driver made of them (registers, shared memory)"
timeout 60 "$NEW" inspect --stats attention/attn_bwd_fa2_tiled attention/attn_bwd_fa2_tiled4 2>&1 | head -30

step "kernel rows: $KERNELS (new engine, twice)"
for n in 1 2; do
  timeout 150 "$NEW" bench --only "$KERNELS" --json "$OUT/bench_new_$n.json" \
    | grep -E "attn_bwd|tiled / tiled4" | grep -E "gpt110m|Mega|XL d256 B4 T256|tiled / tiled4"
done

# train TAG ENGINE PRESET STEPS PRECISION: one run, losses every 10 steps, profile at the last.
train() {
  local tag=$1 bin=$2 preset=$3 steps=$4 prec=$5
  local name="${preset}_${prec}_$tag"
  timeout 150 "$bin" train --preset "$preset" --steps "$steps" --log-every 10 --profile "$steps" \
    --eval-every 0 --precision "$prec" --corpus "$CORPUS" --json "$OUT/train/$name.jsonl" \
    > "$OUT/train/$name.txt" 2>&1 || echo "gpu_attn: $name FAILED ($?)"
  awk -v n="$name" '/^step .*ms\/step/ {v[++k]=$(NF-1)} END {s=0; c=0; for (i=2;i<k;i++) {s+=v[i]; c++} if (c) printf "%s steady %.2f ms/step (intervals 2..%d)\n", n, s/c, k-1}' "$OUT/train/$name.txt"
  grep -E 'attn_bwd|attn_fwd|\*\*step' "$OUT/train/$name.txt" | head -6
}
for spec in $TRAIN; do
  IFS=: read -r preset steps prec <<< "$spec"
  step "trainer: $preset $prec, $steps steps, old / new / old / new"
  for r in 1 2; do
    train "base$r" "$BASE" "$preset" "$steps" "$prec"
    train "new$r" "$NEW" "$preset" "$steps" "$prec"
  done
  a="$OUT/train/${preset}_${prec}_base1.jsonl" b="$OUT/train/${preset}_${prec}_new1.jsonl"
  python3 - "$a" "$b" <<'PY'
import json, sys
def L(p): return {j["step"]: j["loss"] for j in map(json.loads, open(p)) if j.get("event") == "train"}
a, b = L(sys.argv[1]), L(sys.argv[2])
same = sum(1 for k in a if k in b and a[k] == b[k])
worst = max((abs(a[k] - b[k]) / abs(a[k]) for k in a if k in b), default=float("nan"))
print(f"losses old vs new: {same} of {len(a)} logged steps identical, worst relative difference {worst:.3g}")
PY
done

if [ "${TORCH:-1}" = 1 ]; then
  step "bench/gpu_train.sh: gpt110m, the new engine against PyTorch fp32, TF32, bf16"
  PRESETS="gpt110m:120:10" LONG="" AB_MATMUL="" MIXED="" WGSLVK_BIN="$NEW" CORPUS="$CORPUS" \
    OUT="$OUT/gpu_train" bash bench/gpu_train.sh > /dev/null 2>&1
  grep -E "steady|torch|worst|gpt110m" "$OUT/gpu_train/log.txt" | head -20
  tail -12 "$OUT/gpu_train/summary.md" 2>/dev/null
fi
step "done"
