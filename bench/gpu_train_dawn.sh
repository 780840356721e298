#!/usr/bin/env bash
# Issue 12's Dawn parity and speed on an NVIDIA machine: `wgslvk train --trace` records the
# training run's exact WebGPU call list (every write, pipeline with its WGSL, bind group,
# dispatch, submit and loss read-back), then Dawn (npm webgpu's dawn.node) replays it with the same
# WGSL, initial weights and batches (bench/peers/dawn_trace.mjs) and compares every loss read-back.
# Both step times are wall clock over the logging intervals (each interval ends with the one
# loss read-back that waits for the GPU), the first interval (pipeline creation) left out.
#   run(command="bash bench/gpu_train_dawn.sh", carry=[".gl", ".dawn", "build-gpu/cli/wgslvk", ".corpus"], timeout_s=600)
# with .corpus a copy of /usr/share/games/fortunes (cp -r /usr/share/games/fortunes .corpus) when
# the machine has no fortunes package. Run of record: bench/results/h200-2026-11-23-session4/train/.
# Env: PRESET (default gpt110m: ~107M parameters, the largest preset; it fits an H100 easily),
# STEPS (200), BATCH (8), LOG_EVERY (10), WGSLVK_BIN, CORPUS.
# Results under $OUT: ours.jsonl (the trainer's log), train.txt, dawn_replay.json, log.txt, and a
# table last.
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
OUT=${OUT:-$ROOT/out/train_dawn}
mkdir -p "$OUT"
exec > >(tee "$OUT/log.txt") 2>&1
PRESET=${PRESET:-gpt110m} STEPS=${STEPS:-200} BATCH=${BATCH:-8} LOG_EVERY=${LOG_EVERY:-10}
BIN=${WGSLVK_BIN:-$ROOT/build-gpu/cli/wgslvk}
CORPUS=${CORPUS:-}
[ -z "$CORPUS" ] && { [ -d "$ROOT/.corpus" ] && CORPUS=$ROOT/.corpus || CORPUS=/usr/share/games/fortunes; }
if ! ldconfig -p | grep -q 'libvulkan.so.1'; then
  for f in .gl/*.deb; do dpkg -x "$f" /; done
  ldconfig
fi
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv || true
W=/tmp/wgslvk-train-dawn; rm -rf "$W"; mkdir -p "$W"
echo "== wgslvk train --preset $PRESET --steps $STEPS --batch $BATCH --log-every $LOG_EVERY --trace"
"$BIN" train --preset "$PRESET" --steps "$STEPS" --batch "$BATCH" --log-every "$LOG_EVERY" \
  --eval-every 0 --corpus "$CORPUS" --trace "$W/trace" --json "$OUT/ours.jsonl" | tee "$OUT/train.txt" \
  || { echo "gpu_train_dawn: wgslvk train FAILED"; exit 1; }
du -sh "$W/trace"
[ -f .dawn/node.xz ] && [ -f .dawn/dawn.node.xz ] || { echo "gpu_train_dawn: .dawn/{node,dawn.node}.xz missing"; exit 1; }
xz -dkc .dawn/node.xz > "$W/node" && chmod +x "$W/node"
xz -dkc .dawn/dawn.node.xz > "$W/dawn.node"
echo "== Dawn replaying the trace"
timeout 420 "$W/node" bench/peers/dawn_trace.mjs --trace "$W/trace" --dawn-node "$W/dawn.node" \
  --out "$OUT/dawn_replay.json" --gate gpt.loss_log --rel-tol 0.01 --quiet 2>&1 | grep -v '^Warning'
echo "dawn_trace exit: ${PIPESTATUS[0]}"
python3 - "$OUT" <<'EOF'
import json, sys
out = sys.argv[1]
rep = json.load(open(f"{out}/dawn_replay.json"))
reads = [r for r in rep["read_list"] if r["label"] == "gpt.loss_log"]
ours = [json.loads(l) for l in open(f"{out}/ours.jsonl")]
ours = [j for j in ours if j.get("event") == "train"]
# Per logged step: every step of every interval (the loss log holds them all).
rel = [abs(d - w) / abs(w) for r in reads for w, d in zip(r.get("wgslvk", []), r.get("dawn", []))]
first = reads[0]["wgslvk"][0] if reads else float("nan")
last = reads[-1]["wgslvk"][-1] if reads else float("nan")
# Steady state: the intervals after the first (pipeline creation, the weight upload).
o = [j["step_ms"] for j in ours[1:]]
o_ms = sum(o) / len(o) if o else float("nan")
d_sub = sum(r["submits_since_last_read"] for r in reads[1:])
d_ms = sum(r["ms_since_last_read"] for r in reads[1:]) / d_sub if d_sub else float("nan")
print(f"loss {first:.4f} -> {last:.4f} over {len(rel)} steps; Dawn vs wgslvk per step: worst rel {max(rel, default=float('nan')):.3g}, "
      f"mean {sum(rel) / max(1, len(rel)):.3g}, bit-identical steps {sum(1 for x in rel if x == 0)}/{len(rel)}")
print(f"Dawn errors: {len(rep['errors'])}; crash: {rep['crash']}; failing read-backs (> 1%): {rep['failing_reads']}")
print("| engine | ms/step (wall, steady intervals, incl. the interval's read-back) |")
print("|---|---:|")
print(f"| wgslvk | {o_ms:.2f} |")
print(f"| Dawn, same trace | {d_ms:.2f} (per submit: one step = one submit + its queue writes) |")
EOF
rm -rf "$W"
