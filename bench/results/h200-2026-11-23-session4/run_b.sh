#!/usr/bin/env bash
# Session 4, GPU call B: the new kernels (issues 11, 13, 15) beside Dawn and PyTorch; trainer speed.
set -uo pipefail
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
R=/tmp/o; mkdir -p $R
mkdir -p build-gpu/cli && xz -dc .session/wgslvk.xz > build-gpu/cli/wgslvk && chmod +x build-gpu/cli/wgslvk
tar xJf .session/corpus.tar.xz
BIN=$PWD/build-gpu/cli/wgslvk
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s]"; }
echo "== peers (validate all; optimizer, embedding, step) $(el)"
OUT=$R/peers timeout 230 bash bench/gpu_peers.sh -- --only optimizer,embedding,step > /dev/null 2>&1; echo "rc $?"
echo "== families (norm, elementwise, attention) $(el)"
OUT=$R/fam SKIP_VALIDATE=1 ONLY=norm,elementwise,attention timeout 170 bash bench/gpu_families.sh --reps 15 > /dev/null 2>&1; echo "rc $?"
echo "== adafactor steps $(el)"
timeout 40 $BIN bench --only multi_tensor_step,multi_tensor_step_per_tensor,multi_tensor_step_l2_groups,adafactor_sq_sums --json $R/ada.json > $R/ada.txt 2>&1; echo "rc $?"
echo "== trainer $(el)"
for a in fa2_wide fa2_tiled; do
  timeout 35 $BIN train --preset gpt110m --steps 40 --batch 8 --log-every 20 --eval-every 0 --corpus .corpus --attention $a --profile 30 > $R/train_$a.txt 2>&1; echo "$a rc $?"
done
echo "== done $(el)"
tar czf $OUT/b.tgz -C $R .
grep -E "PASS|FAIL" $R/peers/log.txt | tail -3
tail -25 $R/peers/ratios.md 2>/dev/null
tail -6 $R/fam/log.txt
grep -E "multi_tensor|sq_sums" $R/ada.txt | tail -8
for a in fa2_wide fa2_tiled; do echo "-- $a"; grep -E "done:|attn|\*\*step" $R/train_$a.txt; done
