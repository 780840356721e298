#!/usr/bin/env bash
# Session 4, GPU call D: the embedding lookups beside PyTorch and Dawn (issue 15).
set -uo pipefail
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
mkdir -p build-gpu/cli && xz -dc .session/wgslvk.xz > build-gpu/cli/wgslvk && chmod +x build-gpu/cli/wgslvk
OUT=$OUT/emb timeout 280 bash bench/gpu_peers.sh -- --only embed_lookup,embed_lookup_rows,embed_lookup_w16,embed_lookup_w16_rows > /dev/null 2>&1; echo "rc $?"
grep "== \[" $OUT/emb/log.txt
grep -E "embed_lookup" $OUT/emb/ratios.md | head -30; tail -6 $OUT/emb/ratios.md
