#!/bin/bash
# Records the replay corpus tests/cts/replay (its README says what it is) from one CTS run of
# cts/ci_subset.txt on wgslvk, 2 spec files at a time: the provider writes every `wgslvk serve`
# transcript, cut into cases (WGSLVK_CTS_RECORD_ROOT: a folder per query), then
# `replay.mjs --make` keeps the requests and the passing cases' outputs. The same run rewrites
# cts/ci_expectations.json when --write-expectations is given. Needs the CTS (cts/README.md).
# Some queries keep a slice of their cases (KEEP below) so that the CTest replays in about a
# minute on 2 cores.
# usage: WGSLVK_BIN=build/cli/wgslvk [RUN_OUT=BASE] bash cts/make_replay.sh [--write-expectations]
#   RUN_OUT: keep the run's table (BASE.md, BASE.json, BASE.logs/)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${REPLAY_OUT:-$root/tests/cts/replay}
bin=${WGSLVK_BIN:-$root/build/cli/wgslvk}
cts=${WGSLVK_CTS_DIR:-$root/.cts-src}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
commit=$(git -C "$root" rev-parse --short HEAD)
cts_commit=$(cat "$cts/CTS_COMMIT" 2>/dev/null || echo unknown)
declare -A KEEP=(
  ['webgpu:shader,execution,robust_access:linear_memory:*']='shadowingMode="none"'
)
exp=()
[ "${1:-}" = --write-expectations ] && exp=(--write-expectations "$root/cts/ci_expectations.json")
# Recorded under the validation layer, as the CTest replays it: a layer message fails its case.
WGSLVK_VALIDATION=1 WGSLVK_SYNC_VALIDATION=1 WGSLVK_CTS_RECORD_ROOT="$tmp/rec" WGSLVK_BIN="$bin" \
  node "$root/cts/run.mjs" --providers wgslvk --cts "$cts" --jobs 2 --timeout-s 900 \
  --list-file "$root/cts/ci_subset.txt" --out "${RUN_OUT:-$tmp/run}" "${exp[@]}"
rm -f "$out"/*.jsonl.gz
mkdir -p "$out"
grep -v '^#' "$root/cts/ci_subset.txt" | grep . | while read -r q; do
  keep=()
  [ -n "${KEEP[$q]:-}" ] && keep=(--keep "${KEEP[$q]}")
  node "$root/cts/replay.mjs" --make "$out" --query "$q" --cts-commit "$cts_commit" --commit "$commit" \
    "${keep[@]}" "$tmp/rec/$(echo "$q" | sed 's/[^A-Za-z0-9_.-]/_/g')"
done
echo "wrote $out ($(du -sh "$out" | cut -f1)); check it: node cts/replay.mjs --bin $bin $out"
