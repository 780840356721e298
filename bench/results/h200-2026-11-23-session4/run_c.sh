#!/usr/bin/env bash
# Session 4, GPU call C (after the API pass): 8-bit update and steps, embedding beside PyTorch and
# Dawn, layernorm backward variants, the trainer's defaults.
set -uo pipefail
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
R=/tmp/o; mkdir -p $R
mkdir -p build-gpu/cli && xz -dc .session/wgslvk.xz > build-gpu/cli/wgslvk && chmod +x build-gpu/cli/wgslvk
tar xJf .session/corpus.tar.xz
BIN=$PWD/build-gpu/cli/wgslvk
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s]"; }
echo "== 8-bit and steps $(el)"
timeout 200 $BIN bench --only adamw_8bit_update,adamw_8bit_update_vec4,step --json $R/opt8.json > $R/opt8.txt 2>&1; echo "rc $?"
echo "== embedding peers $(el)"
OUT=$R/emb timeout 170 bash bench/gpu_peers.sh -- --only embedding > /dev/null 2>&1; echo "rc $?"
echo "== layernorm backward $(el)"
timeout 40 $BIN bench --only layernorm_backward,layernorm_backward_fused,layernorm_backward_fused_prefetch --json $R/ln.json > $R/ln.txt 2>&1; echo "rc $?"
echo "== trainer defaults $(el)"
timeout 35 $BIN train --preset gpt110m --steps 40 --batch 8 --log-every 20 --eval-every 0 --corpus .corpus > $R/train_default.txt 2>&1; echo "rc $?"
echo "== done $(el)"
tar czf $OUT/c.tgz -C $R .
grep -E "vec4|8-bit|bit-identical|limit" $R/opt8.txt | tail -30
grep -E "embed_lookup" $R/emb/ratios.md | head -30; tail -8 $R/emb/ratios.md
grep -E "^norm" $R/ln.txt | tail -20
grep -E "model:|done:" $R/train_default.txt
