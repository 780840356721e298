#!/usr/bin/env bash
# Call C (2026-11-26): `wgslvk inspect --stats` on the real driver, first run: what NVIDIA's
# compiler made of every shipped kernel (registers, shared memory, spills...).
# run(command="bash bench/results/h200-2026-11-26/run_c.sh", carry=[".gl", "build-gpu/cli/wgslvk.xz"])
set -uo pipefail
for f in .gl/*.deb; do dpkg -x "$f" /; done; ldconfig
W=/tmp/wc; mkdir -p $W; B=$W/wgslvk; xz -dkc build-gpu/cli/wgslvk.xz > $B && chmod +x $B
$B inspect --stats > $OUT/c_stats.txt 2>&1; echo "table exit $?"
$B inspect --stats --json > $OUT/c_stats.json 2> $OUT/c_stats_err.txt; echo "json exit $?"
$B inspect --stats --internal optimizer/adamw_8bit_update_vec4 norm/layernorm_backward > $OUT/c_internal.txt 2>&1; echo "internal exit $?"
head -c 6000 $OUT/c_stats.txt
