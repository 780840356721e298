#!/usr/bin/env bash
# Second call (lead, session 14): is S = Q K^T really slower with the hoisted matmul_batched, or was
# call 1's S row (the second case of each run, after the low-clock start) an artefact? S's case
# placed first and last (a_S_QKt, z_S_QKt) around dP (m_dP_dOVt: the same code path, K = 64), after
# a warm-up run of the whole 9-product set; old / new alternated three times.
#   mkdir build-gpu-h7/scases; cp -r build-gpu-h7/cases/att_S_QKt build-gpu-h7/scases/a_S_QKt;
#   cp -r .../att_dP_dOVt build-gpu-h7/scases/m_dP_dOVt; cp -r .../att_S_QKt build-gpu-h7/scases/z_S_QKt
#   run(command="bash bench/results/h200-2026-11-27u-batched-hoist/s_check.sh", kind="nvidia-h200",
#       carry=[".gl", "build-gpu-h7/wgslvk.old.xz", "build-gpu-h7/wgslvk.new.xz", "build-gpu-h7/cases",
#              "build-gpu-h7/scases"])
set -uo pipefail
exec > >(tee "$OUT/s_check_log.txt") 2>&1
if ! ldconfig -p | grep -q 'libvulkan.so.1'; then
  for f in .gl/*.deb; do dpkg -x "$f" /; done
  ldconfig
fi
W=/tmp/h7s; mkdir -p $W
for e in old new; do xz -dkc build-gpu-h7/wgslvk.$e.xz > $W/$e && chmod +x $W/$e; done
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv
echo "== warm-up (whole set, new)"; timeout 60 $W/new bench --cases build-gpu-h7/cases --reps 8 --warm-ms 300 >/dev/null 2>&1
for r in 1 2 3; do
  for e in old new; do
    echo "== $e r$r"
    timeout 60 $W/$e bench --cases build-gpu-h7/scases --reps 16 --warm-ms 150 --json "$OUT/s_$e.r$r.json" | grep -E 'cases/' | cut -c1-150
  done
done
nvidia-smi --query-gpu=clocks.sm --format=csv
