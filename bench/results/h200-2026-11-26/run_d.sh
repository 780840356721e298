#!/usr/bin/env bash
# Call D (2026-11-26): does the 8-bit update lose its clocks when it runs long? (92% of copy at
# 16-32M elements, 69% from 64M and in the step.) SM clock, power and throttle reasons every
# 20 ms while the update runs at 32M and at 128M, and while the copy runs.
# run(command="bash bench/results/h200-2026-11-26/run_d.sh", carry=[".gl", "build-gpu/cli/wgslvk.xz"])
set -uo pipefail
for f in .gl/*.deb; do dpkg -x "$f" /; done; ldconfig
W=/tmp/wd; mkdir -p $W; B=$W/wgslvk; xz -dkc build-gpu/cli/wgslvk.xz > $B && chmod +x $B
R=; nvidia-smi --query-gpu=clocks_event_reasons.active --format=csv >/dev/null 2>&1 && R=,clocks_event_reasons.active
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu$R --format=csv -lms 20 > $OUT/d_smi.csv 2>&1 &
P=$!
for i in 1 2 3; do $B bench --only adamw_8bit_update_vec4,adamw_update --reps 400 --warm-ms 500 > $OUT/d_bench_$i.txt 2>&1; done
kill $P
grep -E "vec4 n=|adamw_update n=" $OUT/d_bench_1.txt
python3 - <<'PY'
import csv,os,collections
rows=list(csv.reader(open(os.environ['OUT']+'/d_smi.csv')))
hdr=rows[0]; data=rows[1:]
c=collections.Counter((r[1].strip(), r[-1].strip()) for r in data if len(r)==len(hdr))
for k,v in c.most_common(12): print(v, k)
pw=[float(r[3].split()[0]) for r in data if len(r)==len(hdr) and r[3].strip()[0].isdigit()]
print('power max', max(pw), 'median', sorted(pw)[len(pw)//2])
PY
