#!/usr/bin/env bash
# Call B (2026-11-26): is the 8-bit step's gap the update's size cliff (92% of copy at 16-32M
# elements, 69% from 64M)? The API's step rows, now also with the update bound 128 MiB at a time.
# run(command="bash bench/results/h200-2026-11-26/run_b.sh", carry=[".gl", "build-gpu/cli/wgslvk.xz"])
set -uo pipefail
for f in .gl/*.deb; do dpkg -x "$f" /; done; ldconfig
W=/tmp/wb; mkdir -p $W; B=$W/wgslvk; xz -dkc build-gpu/cli/wgslvk.xz > $B && chmod +x $B
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv
$B bench --only step 2>&1 | tee $OUT/b_step.txt | grep -E "^api|8bit_update_vec4 decay"
