#!/usr/bin/env bash
# Call G (2026-11-26): PyTorch beside call F's families (call F ran out of time before its peers:
# the same torch_peers.py over call F's ours.json, carried as out/f_ours.json), then the trainer's
# step time with this session's kernels (gpt110m, batch 8, the lean layernorm backward).
# run(command="bash bench/results/h200-2026-11-26/run_g.sh", carry=[".gl", "build-gpu/cli/wgslvk.xz", ".corpus", "out/f_ours.json"])
set -uo pipefail
for f in .gl/*.deb; do dpkg -x "$f" /; done; ldconfig
W=/tmp/wg; mkdir -p $W; B=$W/wgslvk; xz -dkc build-gpu/cli/wgslvk.xz > $B && chmod +x $B
$B train --preset gpt110m --steps 60 --log-every 10 --eval-every 0 --profile 50 --corpus .corpus \
  --json $OUT/g_train.jsonl > $OUT/g_train.txt 2>&1; tail -5 $OUT/g_train.txt
PYTHONUNBUFFERED=1 timeout 420 python3 bench/peers/torch_peers.py --bench out/f_ours.json --out $OUT/g_torch.json \
  --only matmul,norm,elementwise,loss,attention,adafactor > $OUT/g_torch.txt 2>&1; echo "torch exit $?"
