#!/usr/bin/env bash
# Call A (2026-11-26): the comparisons the last session could not finish, on the tree of a8ee9f7.
#   Dawn on the same WGSL for norm, loss, matmul_blocked4 and the embedding lookups (dawn.node died
#   mid-replay last time: now in child processes, a death recorded per case), and the 8-bit
#   update's size sweep beside the whole step.
# run(command="bash bench/results/h200-2026-11-26/run_a.sh", carry=[".gl", ".dawn", "build-gpu/cli/wgslvk.xz"])
set -uo pipefail
for f in .gl/*.deb; do dpkg -x "$f" /; done; ldconfig
W=/tmp/wa; mkdir -p $W; B=$W/wgslvk; xz -dkc build-gpu/cli/wgslvk.xz > $B && chmod +x $B
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv | tee $OUT/a_env.txt
xz -dkc .dawn/node.xz > $W/node && chmod +x $W/node && xz -dkc .dawn/dawn.node.xz > $W/dawn.node
ONLY=norm,loss,matmul_blocked4,matmul_vec4,embed_lookup,embed_lookup_rows,embed_lookup_w16,embed_lookup_w16_rows
$B bench --only $ONLY --json $OUT/a_ours.json --dump $W/dump > $OUT/a_bench.txt 2>&1
DAWN_NODE=$W/dawn.node timeout 300 $W/node bench/peers/dawn_cases.mjs --root . --cases $W/dump \
  --out $OUT/a_dawn.json --reps 25 2>&1 | grep -v 'artificially reduced\|^Warning' > $OUT/a_dawn.txt
python3 bench/peers/ratios.py $OUT/a_ours.json $OUT/a_dawn.json --md $OUT/a_ratios.md > /dev/null 2>&1
$B bench --only adamw_8bit_update_vec4,step > $OUT/a_opt8.txt 2>&1
grep -c PASS $OUT/a_dawn.txt; grep -v PASS $OUT/a_dawn.txt | head -20
