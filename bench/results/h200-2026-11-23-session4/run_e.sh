#!/usr/bin/env bash
# Session 4, GPU call E: PyTorch at the embedding lookup rows of call D (bench/peers/torch_bench.py).
set -uo pipefail
timeout 200 python3 bench/peers/torch_bench.py --bench .session/emb_ours.json --out $OUT/torch.json > $OUT/torch_log.txt 2>&1; echo "rc $?"
python3 bench/peers/ratios.py .session/emb_ours.json /nonexistent $OUT/torch.json --md $OUT/ratios.md > /dev/null 2>&1; echo "ratios rc $?"
grep -E "embed_lookup" $OUT/ratios.md | head -30; tail -4 $OUT/torch_log.txt
