#!/bin/bash
# cts.replay: replays tests/cts/replay through wgslvk serve (cts/replay.mjs), or exits 77 (ctest:
# skipped) when there is no node. usage: replay_or_skip.sh NODE WGSLVK_BIN
node=$1 bin=$2
root=$(cd "$(dirname "$0")/../.." && pwd)
if [ -z "$node" ] || [ ! -x "$node" ]; then
  echo "SKIP: node not found (scripts/install-deps.sh installs it)"; exit 77
fi
exec "$node" "$root/cts/replay.mjs" --bin "$bin" --jobs 2 "$root/tests/cts/replay"
