#!/bin/bash
# On the device machine (the run tool): bash cts/f16_probe/run.sh [CONFIG...], carrying .gl and
# build-f16-probe (cts/f16_probe/build.sh). Writes $OUT/probe.txt; prints it.
set -uo pipefail
for f in .gl/*.deb; do dpkg -x "$f" /; done
ldconfig
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null
F16_PROBE_DUMP=${F16_PROBE_DUMP:-ours,tint,f16vec3-cols} build-f16-probe/f16_probe build-f16-probe "$@" |
  tee "${OUT:-/tmp}/probe.txt"
