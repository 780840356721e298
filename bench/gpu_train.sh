#!/usr/bin/env bash
# Issue 23's training table in one call on an NVIDIA machine: every preset, `wgslvk train` against
# PyTorch eager (apps/gpt/peer_torch_train.py: fp32 with TF32 off, TF32 on, bf16 autocast) on the
# same initial weights (--save-init) and the same batches (--dump-batches), steady state.
#   run(command="bash bench/gpu_train.sh", carry=[".gl", "build-gpu/cli/wgslvk", ".corpus"])
# (.corpus: a copy of /usr/share/games/fortunes; the machine has no fortunes package.)
# Per preset, ours: wall ms/step per logging interval (each interval ends with the loss
# read-back, which waits for the GPU), the steady state = the mean over the intervals after the
# first (pipeline creation, upload) and before the last (the profiled step), and the GPU's own
# time of one step (--profile at the last step: timestamps between dispatches, summed). The SM
# clock is sampled every 100 ms during each of our runs (nvidia-smi), because a GPU that idles
# between small submissions lowers its clocks. PyTorch: ms/step over the steps after STEADY_FROM
# (synchronized at both ends).
# Env: PRESETS ("preset:steps:log_every ..."), LONG ("small:5000:100 medium:5000:100": long runs,
# ms/step at step 100 vs the last intervals; empty: none), BASE_BIN (a second engine, e.g. the tree before
# a change: its small preset is run with profiles at steps 100 and 1000 for a before/after),
# WGSLVK_BIN, CORPUS, RUN_TIMEOUT (seconds per run of ours, default 150), TORCH (0: skip PyTorch), TORCH_MODES ("fp32 tf32 bf16"), AB_MATMUL (presets
# also run with --matmul $AB_KERNEL, default native: the trainer's matmul before native_auto
# became the default; empty: none), MIXED (mixed precision runs, see below; empty: none).
# Results under $OUT: log.txt, summary.md (the tables, printed
# last), raw.tar.gz (every log), smi.csv.
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
OUT=${OUT:-$ROOT/out/train}
W=/tmp/wgslvk-gpu-train
rm -rf "$W"
mkdir -p "$OUT" "$W/raw"
exec > >(tee "$OUT/log.txt") 2>&1
PRESETS=${PRESETS:-"small:1000:50 medium:1000:50 large:1000:50 xl:120:10 gpt110m:120:10"}
LONG=${LONG-"small:5000:100 medium:5000:100"}
TORCH=${TORCH:-1}
AB_MATMUL=${AB_MATMUL-"xl gpt110m"}
AB_KERNEL=${AB_KERNEL:-native}
TORCH_MODES=${TORCH_MODES:-"fp32 tf32 bf16"}
t0=$(date +%s)
step() { echo; echo "== [$(($(date +%s) - t0)) s] $*"; }

unxz_bin() {  # a carried engine, xz'd or not
  local b=$1 name=$2
  if [ ! -x "$b" ] && [ -f "$b.xz" ]; then xz -dkc "$b.xz" > "$W/$name" && chmod +x "$W/$name" && b=$W/$name; fi
  [ -x "$b" ] || { echo "gpu_train: no engine at $b"; return 1; }
  echo "$b"
}
BIN=$(unxz_bin "${WGSLVK_BIN:-$ROOT/build-gpu/cli/wgslvk}" wgslvk) || exit 1
BASE=""
[ -n "${BASE_BIN:-}" ] && { BASE=$(unxz_bin "$BASE_BIN" wgslvk-base) || exit 1; }
CORPUS=${CORPUS:-}
[ -z "$CORPUS" ] && { [ -d "$ROOT/.corpus" ] && CORPUS=$ROOT/.corpus || CORPUS=/usr/share/games/fortunes; }

step "environment"
if ! ldconfig -p | grep -q 'libvulkan.so.1'; then
  for f in .gl/*.deb; do dpkg -x "$f" /; done
  ldconfig
fi
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm,clocks.mem --format=csv
git -C "$ROOT" log -1 --format='commit %H %s' 2>/dev/null || true
"$BIN" devices | head -5
python3 -c 'import torch; print("torch", torch.__version__, torch.cuda.get_device_name())' || TORCH=0
# The host matters to eager PyTorch (a launch per op): say which CPU and how loaded it is.
echo "host: $(nproc) CPUs, $(lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -1), load $(cut -d' ' -f1-3 /proc/loadavg)"
SMI_Q=timestamp,clocks.sm,clocks.mem,utilization.gpu,power.draw,clocks_throttle_reasons.active
nvidia-smi --query-gpu=$SMI_Q --format=csv,noheader >/dev/null 2>&1 || SMI_Q=timestamp,clocks.sm,clocks.mem,utilization.gpu,power.draw
echo "tag,$SMI_Q" > "$OUT/smi.csv"

# ours NAME BIN ARGS...: one training run with the SM clock sampled beside it.
ours() {
  local name=$1 bin=$2
  shift 2
  nvidia-smi --query-gpu=$SMI_Q --format=csv,noheader -lms 100 > "$W/raw/$name.smi" 2>&1 &
  local smi=$!
  echo "\$ wgslvk train $*"
  timeout "${RUN_TIMEOUT:-150}" "$bin" train "$@" --eval-every 0 --corpus "$CORPUS" > "$W/raw/$name.txt" 2>&1
  local rc=$?
  kill $smi 2>/dev/null
  wait $smi 2>/dev/null
  sed "s/^/$name,/" "$W/raw/$name.smi" >> "$OUT/smi.csv"
  grep -E '^step|^done|^\| \*\*step' "$W/raw/$name.txt" | sed -n '1,3p;$p'
  [ $rc = 0 ] || { echo "gpu_train: $name FAILED (exit $rc)"; tail -5 "$W/raw/$name.txt"; }
}

if [ -n "$BASE" ]; then
  step "before/after: the small preset, 1000 steps, profiles at steps 100 and 1000"
  engines="base:$BASE new:$BIN"
  [ "${BASE_BIN:-}" = "${WGSLVK_BIN:-}" ] && engines="base:$BASE"
  for e in $engines; do
    tag=${e%%:*} b=${e#*:}
    profiles="100 1000"
    [ $tag = new ] && profiles=100  # its 1000: the small preset's run below
    for p in $profiles; do
      ours "ab_${tag}_p$p" "$b" --preset small --steps 1000 --log-every 50 --profile $p
    done
  done
fi

for spec in $PRESETS; do
  IFS=: read -r preset steps every <<< "$spec"
  step "$preset: ours ($steps steps, log every $every, profile at $steps)"
  ours "$preset" "$BIN" --preset "$preset" --steps "$steps" --log-every "$every" --profile "$steps" \
    --save-init "$W/$preset.init" --json "$W/raw/$preset.ours.jsonl"
  if [ "$TORCH" = 1 ]; then
    "$BIN" train --preset "$preset" --steps "$steps" --corpus "$CORPUS" \
      --dump-batches "$W/$preset.batches" > /dev/null || echo "gpu_train: dump-batches FAILED"
    from=$((steps / 5))
    for mode in $TORCH_MODES; do
      flag=""
      [ $mode = tf32 ] && flag=--tf32
      [ $mode = bf16 ] && flag=--bf16
      cmp=""
      [ $mode = fp32 ] && cmp="--compare $W/raw/$preset.ours.jsonl"
      PYTHONUNBUFFERED=1 timeout 120 python3 apps/gpt/peer_torch_train.py --init "$W/$preset.init" \
        --batches "$W/$preset.batches" --steps "$steps" --time --steady-from $from $flag $cmp \
        --gpu-busy 5 > "$W/raw/$preset.torch_$mode.txt" 2>&1 || echo "gpu_train: torch $preset $mode FAILED"
      grep -E '^torch|^worst' "$W/raw/$preset.torch_$mode.txt"
    done
  fi
done

for preset in $AB_MATMUL; do
  spec=$(tr ' ' '\n' <<< "$PRESETS" | grep "^$preset:") || continue
  IFS=: read -r preset steps every <<< "$spec"
  step "$preset with --matmul $AB_KERNEL"
  ours "${preset}_ab" "$BIN" --preset "$preset" --steps "$steps" --log-every "$every" \
    --profile "$steps" --matmul "$AB_KERNEL" --json "$W/raw/${preset}_ab.ours.jsonl"
done

for spec in $LONG; do
  IFS=: read -r preset steps every <<< "$spec"
  step "long run: $preset, $steps steps"
  ours "long_$preset" "$BIN" --preset "$preset" --steps "$steps" --log-every "$every" --profile "$steps"
done

# Mixed precision (issue 24): MIXED="preset:steps ..." (default none). Per preset: ours fp32 and
# --precision mixed reading the loss back every step (so the JSON logs hold every step's loss:
# the loss comparison; same weights and batches, both from --seed), mixed again logging every
# 10 steps as the runs above (the timing) with a profile of the last step, one step with
# --f16-stats (underflow/overflow of every f16 cast), and PyTorch with TF32 and with bf16
# autocast on the same weights and batches. MIXED_REPEAT=N (default 1) times the mixed run and
# both PyTorch modes N times, alternating, because eager PyTorch's step depends on the host (its
# --gpu-busy profile says how much of the step the GPU was busy). MIXED_AB="flags" (default none):
# in each repeat, before our mixed run, one more mixed run with those flags (e.g.
# "--mixed-attention fa2": the step before attention went to tensor cores), the first with a
# profile of its last step: an A/B on the same machine. Table: $OUT/mixed.md.
MIXED=${MIXED-""}
MIXED_REPEAT=${MIXED_REPEAT:-1}
MIXED_AB=${MIXED_AB-""}
for spec in $MIXED; do
  IFS=: read -r preset steps <<< "$spec"
  step "$preset: mixed precision vs fp32, $steps steps"
  ours "${preset}_f32_every1" "$BIN" --preset "$preset" --steps "$steps" --log-every 1 \
    --save-init "$W/$preset.minit" --json "$W/raw/${preset}_f32_every1.ours.jsonl"
  ours "${preset}_mixed_every1" "$BIN" --preset "$preset" --steps "$steps" --log-every 1 \
    --precision mixed --json "$W/raw/${preset}_mixed_every1.ours.jsonl"
  ours "${preset}_mixed" "$BIN" --preset "$preset" --steps "$steps" --log-every 10 \
    --precision mixed --profile "$steps" --json "$W/raw/${preset}_mixed.ours.jsonl"
  ours "${preset}_mixed_stats" "$BIN" --preset "$preset" --steps 1 --precision mixed --f16-stats
  grep -E '^mixed|^\| (cast|fwd|bwd)' "$W/raw/${preset}_mixed_stats.txt" | head -40
  if [ "$TORCH" = 1 ]; then
    "$BIN" train --preset "$preset" --steps "$steps" --corpus "$CORPUS" \
      --dump-batches "$W/$preset.mbatches" > /dev/null || echo "gpu_train: dump-batches FAILED"
    for r in $(seq 1 "$MIXED_REPEAT"); do
      sfx=""
      [ "$r" -gt 1 ] && sfx=".r$r"
      if [ -n "$MIXED_AB" ]; then
        prof=""
        [ "$r" = 1 ] && prof="--profile $steps"
        # shellcheck disable=SC2086  # MIXED_AB is a list of flags
        ours "${preset}_mixed_ab$sfx" "$BIN" --preset "$preset" --steps "$steps" --log-every 10 \
          --precision mixed $MIXED_AB $prof
      fi
      [ "$r" -gt 1 ] && ours "${preset}_mixed.r$r" "$BIN" --preset "$preset" --steps "$steps" \
        --log-every 10 --precision mixed
      for mode in tf32 bf16; do
        PYTHONUNBUFFERED=1 timeout 180 python3 apps/gpt/peer_torch_train.py --init "$W/$preset.minit" \
          --batches "$W/$preset.mbatches" --steps "$steps" --time --steady-from $((steps / 5)) \
          --gpu-busy 5 --$mode > "$W/raw/${preset}_mixed.torch_$mode$sfx.txt" 2>&1 \
          || echo "gpu_train: torch $mode FAILED"
        grep -E '^torch' "$W/raw/${preset}_mixed.torch_$mode$sfx.txt"
      done
    done
  fi
done
if [ -n "$MIXED" ]; then
  PYTHONPATH="$ROOT/bench" python3 - "$W/raw" "$MIXED" "$MIXED_REPEAT" "$MIXED_AB" > "$OUT/mixed.md" <<'PYEOF'
import json, os, re, statistics as st, sys
raw, specs, repeat, ab = sys.argv[1], sys.argv[2].split(), int(sys.argv[3]), sys.argv[4]
import train_logs
def losses(name): return train_logs.losses(raw, name)
def steady(name): return train_logs.steady(raw, name)
def torch_ms(preset, mode, sfx="", what="steady"):
    return train_logs.torch(os.path.join(raw, f"{preset}_mixed.torch_{mode}{sfx}.txt"), what)
print("| preset | steps | losses compared | worst rel loss diff mixed vs fp32 (step) | last loss fp32 / mixed "
      "| ours fp32, loss read every step (ms/step) | ours mixed, every step | ours mixed, every 10 "
      "| mixed GPU ms (profiled step) | PyTorch TF32 | PyTorch bf16 autocast |")
print("|---|---:|---:|---|---|---:|---:|---:|---:|---:|---:|")
for spec in specs:
    preset, steps = spec.split(":")
    a, b = losses(preset + "_f32_every1"), losses(preset + "_mixed_every1")
    common = sorted(set(a) & set(b))
    worst, at = 0.0, "-"
    for s in common:
        r = abs(b[s] - a[s]) / abs(a[s])
        if r >= worst:
            worst, at = r, s
    last = f"{a[common[-1]]:.4f} / {b[common[-1]]:.4f}" if common else "-"
    f1, _ = steady(preset + "_f32_every1")
    m1, _ = steady(preset + "_mixed_every1")
    m10, gpu = steady(preset + "_mixed")
    g = f"{gpu:.2f}" if gpu else "-"
    print(f"| {preset} | {steps} | {len(common)} | {worst:.2e} ({at}) | {last} | {f1:.2f} | {m1:.2f} | "
          f"{m10:.2f} | {g} | {torch_ms(preset, 'tf32'):.2f} | {torch_ms(preset, 'bf16'):.2f} |")
print()
abh = f" | ours mixed {ab}" if ab else ""
print("| preset | run | ours mixed, every 10 (ms/step)" + abh + " | PyTorch TF32 | its GPU busy | PyTorch bf16 "
      "| its GPU busy |")
print("|---|---:|---:|---:|---:|---:|---:|" + ("---:|" if ab else ""))
for spec in specs:
    preset = spec.split(":")[0]
    for r in range(1, repeat + 1):
        sfx = "" if r == 1 else f".r{r}"
        m10, _ = steady(preset + "_mixed" + sfx)
        abc = f" | {steady(preset + '_mixed_ab' + sfx)[0]:.2f}" if ab else ""
        cells = [f"{torch_ms(preset, mo, sfx, w):.2f}" for mo in ("tf32", "bf16") for w in ("steady", "gpu-busy")]
        print(f"| {preset} | {r} | {m10:.2f}" + abc + " | " + " | ".join(cells) + " |")
if ab:
    for spec in specs:
        preset = spec.split(":")[0]
        _, g = steady(preset + "_mixed_ab")
        print(f"\n{preset} with {ab}: profiled step {g} GPU ms")
PYEOF
  cat "$OUT/mixed.md"
fi

# fp32 attention A/B (issue 23): FP32_AB="preset:steps:log_every ..." (default none). Per preset,
# FP32_AB_REPEAT times (default 1), alternating: ours with --fp32-attention fa2 (the step before
# the materialized fp32 attention), ours with the default (auto), PyTorch fp32 (TF32 off) on the
# same weights and batches; the first repeat profiles the last step of both. FP32_AB_LOSS=N
# (default 0: none): then N steps of both with the loss read back every step (JSON logs: every
# step's loss, auto against fa2). Table: $OUT/fp32_ab.md.
FP32_AB=${FP32_AB-""}
FP32_AB_REPEAT=${FP32_AB_REPEAT:-1}
FP32_AB_LOSS=${FP32_AB_LOSS:-0}
for spec in $FP32_AB; do
  IFS=: read -r preset steps every <<< "$spec"
  step "$preset: fp32 attention auto vs fa2, $steps steps, $FP32_AB_REPEAT repeat(s)"
  "$BIN" train --preset "$preset" --steps "$steps" --corpus "$CORPUS" \
    --dump-batches "$W/$preset.fbatches" > /dev/null || echo "gpu_train: dump-batches FAILED"
  for r in $(seq 1 "$FP32_AB_REPEAT"); do
    prof=""
    [ "$r" = 1 ] && prof="--profile $steps"
    init=""
    [ "$r" = 1 ] && init="--save-init $W/$preset.finit"
    # shellcheck disable=SC2086  # prof and init are lists of flags
    ours "${preset}_fa2.r$r" "$BIN" --preset "$preset" --steps "$steps" --log-every "$every" \
      --fp32-attention fa2 $prof $init
    # shellcheck disable=SC2086
    ours "${preset}_auto.r$r" "$BIN" --preset "$preset" --steps "$steps" --log-every "$every" \
      $prof --json "$W/raw/${preset}_auto.r$r.ours.jsonl"
    grep -E '^fp32 attention' "$W/raw/${preset}_auto.r$r.txt" "$W/raw/${preset}_fa2.r$r.txt"
    if [ "$TORCH" = 1 ]; then
      PYTHONUNBUFFERED=1 timeout 180 python3 apps/gpt/peer_torch_train.py --init "$W/$preset.finit" \
        --batches "$W/$preset.fbatches" --steps "$steps" --time --steady-from $((steps / 5)) \
        --gpu-busy 5 --compare "$W/raw/${preset}_auto.r$r.ours.jsonl" \
        > "$W/raw/${preset}_ab.torch_fp32.r$r.txt" 2>&1 || echo "gpu_train: torch fp32 FAILED"
      grep -E '^torch|^worst' "$W/raw/${preset}_ab.torch_fp32.r$r.txt"
    fi
  done
  if [ "$FP32_AB_LOSS" -gt 0 ]; then
    for a in fa2 auto; do
      ours "${preset}_${a}_loss" "$BIN" --preset "$preset" --steps "$FP32_AB_LOSS" --log-every 1 \
        --fp32-attention "$a" --json "$W/raw/${preset}_${a}_loss.ours.jsonl"
    done
  fi
done
if [ -n "$FP32_AB" ]; then
  PYTHONPATH="$ROOT/bench" python3 - "$W/raw" "$FP32_AB" "$FP32_AB_REPEAT" > "$OUT/fp32_ab.md" <<'PYEOF'
import json, os, re, statistics as st, sys
raw, specs, repeat = sys.argv[1], sys.argv[2].split(), int(sys.argv[3])
import train_logs
def steady(name): return train_logs.steady(raw, name)
def torch(name, what): return train_logs.torch(os.path.join(raw, name + ".txt"), what)
def losses(name): return train_logs.losses(raw, name)
print("| preset | run | ours fa2 (ms/step) | ours auto | fa2 / auto | PyTorch fp32 (TF32 off) | its GPU busy "
      "| PyTorch / ours auto | loss auto vs PyTorch (worst rel) |")
print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
for spec in specs:
    preset = spec.split(":")[0]
    for r in range(1, repeat + 1):
        f, _ = steady(f"{preset}_fa2.r{r}")
        a, _ = steady(f"{preset}_auto.r{r}")
        t = torch(f"{preset}_ab.torch_fp32.r{r}", "steady")
        g = torch(f"{preset}_ab.torch_fp32.r{r}", "gpu-busy")
        w = torch(f"{preset}_ab.torch_fp32.r{r}", "worst")
        print(f"| {preset} | {r} | {f:.2f} | {a:.2f} | {f / a:.3f} | {t:.2f} | {g:.2f} | {t / a:.3f} | {w:.1e} |")
for spec in specs:
    preset = spec.split(":")[0]
    _, gf = steady(f"{preset}_fa2.r1")
    _, ga = steady(f"{preset}_auto.r1")
    print(f"\n{preset}: profiled step GPU ms: fa2 {gf}, auto {ga}")
    a, b = losses(f"{preset}_fa2_loss"), losses(f"{preset}_auto_loss")
    common = sorted(set(a) & set(b))
    if common:
        worst, at = max((abs(b[s] - a[s]) / abs(a[s]), s) for s in common)
        print(f"{preset}: {len(common)} steps' losses, auto vs fa2: worst relative difference "
              f"{worst:.2e} (step {at}); last {a[common[-1]]:.5f} fa2 / {b[common[-1]]:.5f} auto")
PYEOF
  cat "$OUT/fp32_ab.md"
fi

# fp32 matmul rule A/B (issue 23, session 13): MM_AB="preset:steps:log_every ..." (default none).
# Per preset, MM_AB_REPEAT times (default 1), alternating: ours with each --matmul of MM_AB_KERNELS
# (default "native_auto native_auto_bmm"), then PyTorch fp32 (TF32 off) on the same weights and
# batches; the first repeat profiles the last step of each. MM_AB_LOSS=N (default 0: none): then N
# steps of each with the loss read back every step (JSON logs: every step's loss against the
# first kernel's). Table: $OUT/mm_ab.md.
MM_AB=${MM_AB-""}
MM_AB_REPEAT=${MM_AB_REPEAT:-1}
MM_AB_LOSS=${MM_AB_LOSS:-0}
MM_AB_KERNELS=${MM_AB_KERNELS:-"native_auto native_auto_bmm"}
for spec in $MM_AB; do
  IFS=: read -r preset steps every <<< "$spec"
  step "$preset: --matmul $MM_AB_KERNELS, $steps steps, $MM_AB_REPEAT repeat(s)"
  "$BIN" train --preset "$preset" --steps "$steps" --corpus "$CORPUS" \
    --dump-batches "$W/$preset.mbatches2" > /dev/null || echo "gpu_train: dump-batches FAILED"
  for r in $(seq 1 "$MM_AB_REPEAT"); do
    prof=""
    [ "$r" = 1 ] && prof="--profile $steps"
    init=""
    [ "$r" = 1 ] && init="--save-init $W/$preset.mminit"
    for k in $MM_AB_KERNELS; do
      # shellcheck disable=SC2086  # prof and init are lists of flags
      ours "${preset}_mm_${k}.r$r" "$BIN" --preset "$preset" --steps "$steps" --log-every "$every" \
        --matmul "$k" $prof $init --json "$W/raw/${preset}_mm_${k}.r$r.ours.jsonl"
      init=""
    done
    if [ "$TORCH" = 1 ]; then
      first=${MM_AB_KERNELS%% *}
      PYTHONUNBUFFERED=1 timeout 180 python3 apps/gpt/peer_torch_train.py --init "$W/$preset.mminit" \
        --batches "$W/$preset.mbatches2" --steps "$steps" --time --steady-from $((steps / 5)) \
        --gpu-busy 5 --compare "$W/raw/${preset}_mm_${first}.r$r.ours.jsonl" \
        > "$W/raw/${preset}_mm.torch_fp32.r$r.txt" 2>&1 || echo "gpu_train: torch fp32 FAILED"
      grep -E '^torch|^worst' "$W/raw/${preset}_mm.torch_fp32.r$r.txt"
    fi
  done
  if [ "$MM_AB_LOSS" -gt 0 ]; then
    for k in $MM_AB_KERNELS; do
      ours "${preset}_mm_${k}_loss" "$BIN" --preset "$preset" --steps "$MM_AB_LOSS" --log-every 1 \
        --matmul "$k" --json "$W/raw/${preset}_mm_${k}_loss.ours.jsonl"
    done
  fi
done
if [ -n "$MM_AB" ]; then
  PYTHONPATH="$ROOT/bench" python3 - "$W/raw" "$MM_AB" "$MM_AB_REPEAT" "$MM_AB_KERNELS" > "$OUT/mm_ab.md" <<'PYEOF'
import json, os, re, statistics as st, sys
raw, specs, repeat, kernels = sys.argv[1], sys.argv[2].split(), int(sys.argv[3]), sys.argv[4].split()
import train_logs
def steady(name): return train_logs.steady(raw, name)
def torch(name, what): return train_logs.torch(os.path.join(raw, name + ".txt"), what)
def losses(name): return train_logs.losses(raw, name)
print("| preset | run | " + " | ".join(f"ours {k} (ms/step)" for k in kernels) +
      " | PyTorch fp32 (TF32 off) | its GPU busy | PyTorch / ours " + kernels[-1] + " |")
print("|---|---:|" + "---:|" * len(kernels) + "---:|---:|---:|")
for spec in specs:
    preset = spec.split(":")[0]
    for r in range(1, repeat + 1):
        ms = [steady(f"{preset}_mm_{k}.r{r}")[0] for k in kernels]
        t = torch(f"{preset}_mm.torch_fp32.r{r}", "steady")
        g = torch(f"{preset}_mm.torch_fp32.r{r}", "gpu-busy")
        print(f"| {preset} | {r} | " + " | ".join(f"{x:.2f}" for x in ms) +
              f" | {t:.2f} | {g:.2f} | {t / ms[-1]:.3f} |")
for spec in specs:
    preset = spec.split(":")[0]
    print(f"\n{preset}: profiled step GPU ms: " +
          ", ".join(f"{k} {steady(f'{preset}_mm_{k}.r1')[1]}" for k in kernels))
    base = losses(f"{preset}_mm_{kernels[0]}_loss")
    for k in kernels[1:]:
        other = losses(f"{preset}_mm_{k}_loss")
        common = sorted(set(base) & set(other))
        if common:
            worst, at = max((abs(other[s] - base[s]) / abs(base[s]), s) for s in common)
            same = sum(1 for s in common if other[s] == base[s])
            print(f"{preset}: {len(common)} steps' losses, {k} vs {kernels[0]}: {same} identical, "
                  f"worst relative difference {worst:.2e} (step {at}); last {base[common[-1]]:.6f} / "
                  f"{other[common[-1]]:.6f}")
PYEOF
  cat "$OUT/mm_ab.md"
fi

step "summary"
python3 - "$W/raw" "$OUT/smi.csv" "$PRESETS" "$LONG" "$AB_KERNEL" > "$OUT/summary.md" <<'EOF'
import csv, os, re, statistics as st, sys
raw, smi_path, presets, long_spec = sys.argv[1], sys.argv[2], sys.argv[3].split(), sys.argv[4]
ab_kernel = sys.argv[5]

def intervals(name):
    """[(last step of the interval, wall ms/step)] and the profiled step's GPU ms."""
    iv, gpu = [], None
    p = os.path.join(raw, name + ".txt")
    if not os.path.exists(p):
        return iv, gpu
    for line in open(p):
        m = re.match(r"step\s+(\d+)/\d+\s+loss .* ([\d.]+) ms/step", line)
        if m:
            iv.append((int(m.group(1)), float(m.group(2))))
        m = re.match(r"\| \*\*step\*\* \| \d+ \| ([\d.]+) \|", line)
        if m:
            gpu = float(m.group(1))
    return iv, gpu

clocks = {}
for row in csv.reader(open(smi_path)):
    if len(row) < 3 or row[0] == "tag":
        continue
    m = re.match(r"\s*(\d+)", row[2])
    if m:
        clocks.setdefault(row[0], []).append(int(m.group(1)))

def clk(name):
    c = clocks.get(name, [])
    if not c:
        return "-"
    tail = c[len(c) * 4 // 5:]
    return f"{st.median(c):.0f} (last fifth {st.median(tail):.0f}, min {min(c)})"

def at(iv, s):
    """ms/step of the interval that holds step s."""
    for last, ms in iv:
        if last >= s:
            return ms
    return float("nan")

def steady(iv):
    mid = iv[1:-1] if len(iv) > 2 else iv[1:]
    return st.mean(ms for _, ms in mid) if mid else float("nan")

def torch_ms(preset, mode):
    p = os.path.join(raw, f"{preset}.torch_{mode}.txt")
    if not os.path.exists(p):
        return float("nan")
    for line in open(p):
        m = re.match(r"torch steady: ([\d.]+) ms/step", line)
        if m:
            return float(m.group(1))
    return float("nan")

def parity(preset):
    p = os.path.join(raw, f"{preset}.torch_fp32.txt")
    if os.path.exists(p):
        for line in open(p):
            m = re.match(r"worst relative difference over (\d+) logged steps: (\S+)", line)
            if m:
                return f"{float(m.group(2)):.1e}"
    return "-"

print("| preset | steps | ours ms/step (steady, wall) | ours GPU ms/step (profiled step) | "
      "wall / GPU | PyTorch fp32 (TF32 off) | TF32 on | bf16 autocast | fp32 / ours | "
      "loss vs PyTorch fp32 (worst rel) | SM MHz during ours (median) |")
print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
for spec in presets:
    preset, steps, every = spec.split(":")
    iv, gpu = intervals(preset)
    s = steady(iv)
    f32, t32, b16 = (torch_ms(preset, m) for m in ("fp32", "tf32", "bf16"))
    ratio = f"{f32 / s:.2f}x" if s == s and f32 == f32 else "-"
    g = f"{gpu:.2f}" if gpu else "-"
    wg = f"{s / gpu:.2f}" if gpu and s == s else "-"
    print(f"| {preset} | {steps} | {s:.2f} | {g} | {wg} | {f32:.2f} | {t32:.2f} | {b16:.2f} | "
          f"{ratio} | {parity(preset)} | {clk(preset)} |")

def drift_rows(names):
    print("\n| run | ms/step at step 100 | at step 500 | at the last interval | last / step 100 "
          "| GPU ms of the profiled step | SM MHz (median) |")
    print("|---|---:|---:|---:|---:|---:|---|")
    for name in names:
        iv, gpu = intervals(name)
        if not iv:
            continue
        a, b = at(iv, 100), at(iv, 500)
        # the last interval holds the profiled step when it is the last: take the one before
        last_step, last = iv[-2] if len(iv) > 2 else iv[-1]
        g = f"{gpu:.3f}" if gpu else "-"
        print(f"| {name} | {a:.2f} | {b:.2f} | {last:.2f} (step {last_step}) | {last / a:.3f} "
              f"| {g} | {clk(name)} |")

import json
auto = [p.split(":")[0] for p in presets
        if os.path.exists(os.path.join(raw, p.split(":")[0] + "_ab.txt"))]
if auto:
    print("\n| preset | --matmul | ms/step (steady) | GPU ms (profiled step) | losses vs the default's |")
    print("|---|---|---:|---:|---|")
    for p in auto:
        for name, mm in ((p, "default (native_auto)"), (p + "_ab", ab_kernel)):
            iv, gpu = intervals(name)
            g = f"{gpu:.2f}" if gpu else "-"
            same = "-"
            if name != p:
                def losses(n):
                    f = os.path.join(raw, n + ".ours.jsonl")
                    if not os.path.exists(f):
                        return None
                    return [j["loss"] for j in map(json.loads, open(f)) if j.get("event") == "train"]
                a, b = losses(p), losses(name)
                same = "-" if a is None or b is None else ("bitwise" if a == b else
                       f"no (worst rel {max(abs(x - y) / abs(x) for x, y in zip(a, b)):.1e})")
            print(f"| {p} | {mm} | {steady(iv):.2f} | {g} | {same} |")

ab = [n for n in ("ab_base_p100", "ab_base_p1000", "ab_new_p100")
      if os.path.exists(os.path.join(raw, n + ".txt"))]
names = ab + [p.split(":")[0] for p in presets if p.split(":")[0] in ("small", "medium", "large")]
names += ["long_" + p.split(":")[0] for p in long_spec.split()]
drift_rows(names)
EOF
[ -f "$OUT/mixed.md" ] && { echo; cat "$OUT/mixed.md"; } >> "$OUT/summary.md"
(cd "$W/raw" && tar czf "$OUT/raw.tar.gz" .)
cat "$OUT/summary.md"
