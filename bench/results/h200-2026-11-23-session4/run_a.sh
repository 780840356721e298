#!/usr/bin/env bash
# Session 4, GPU call A: Adafactor, capture, trainer parity (Dawn, PyTorch) and speed.
set -uo pipefail
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
R=/tmp/o; mkdir -p $R
mkdir -p build-gpu/cli && xz -dc .session/wgslvk.xz > build-gpu/cli/wgslvk && chmod +x build-gpu/cli/wgslvk
tar xJf .session/corpus.tar.xz
BIN=$PWD/build-gpu/cli/wgslvk
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s]"; }
echo "== adafactor $(el)"; OUT=$R/ada timeout 150 bash bench/gpu_adafactor.sh > /dev/null 2>&1; echo "rc $?"
echo "== capture $(el)"; OUT=$R/cap timeout 140 bash bench/gpu_capture.sh > /dev/null 2>&1; echo "rc $?"
echo "== train dawn $(el)"; OUT=$R/train STEPS=200 CORPUS=$PWD/.corpus timeout 170 bash bench/gpu_train_dawn.sh > /dev/null 2>&1; echo "rc $?"
echo "== speed $(el)"
for m in vec4 native; do
  timeout 40 $BIN train --preset gpt110m --steps 60 --batch 8 --log-every 20 --eval-every 0 --corpus .corpus --matmul $m --profile 50 > $R/speed_$m.txt 2>&1; echo "$m rc $?"
done
echo "== torch parity $(el)"
mkdir -p $R/torch; T=$R/torch
timeout 30 $BIN train --preset gpt110m --steps 100 --batch 8 --corpus .corpus --save-init $T/init.safetensors --log-every 1 --eval-every 0 --json $T/ours.jsonl > $T/ours.txt 2>&1; echo "ours rc $?"
timeout 10 $BIN train --preset gpt110m --steps 100 --batch 8 --corpus .corpus --dump-batches $T/batches.u32 > /dev/null 2>&1
timeout 60 python3 bench/peers/torch_gpt_train.py --init $T/init.safetensors --batches $T/batches.u32 --steps 100 --compare $T/ours.jsonl --time > $T/torch.txt 2>&1; echo "torch rc $?"
rm -f $T/init.safetensors* $T/batches.u32
echo "== done $(el)"
tar czf $OUT/a.tgz -C $R .
for f in ada/table.txt cap/log.txt train/log.txt; do echo "---- $f"; tail -15 $R/$f; done
for m in vec4 native; do echo "---- speed $m"; grep -v "^ *[0-9a-z_]* *[0-9.]* ms" $R/speed_$m.txt | tail -8; done
echo "---- torch"; tail -8 $T/torch.txt; tail -3 $T/ours.txt
