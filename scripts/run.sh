#!/usr/bin/env bash
# The README's two Quick start commands:
#   bash scripts/run.sh validate   install what is missing, build, run `wgslvk validate`
#   bash scripts/run.sh test       install what is missing, build, run the whole test suite
#                                  (release build, then the ASan+UBSan build), validation layer on
set -euo pipefail
cd "$(dirname "$0")/.."
what=${1:-validate}
jobs=$(nproc)
build() {  # build DIR [cmake args...] [-- targets...]
  local dir=$1; shift
  local args=() targets=()
  while (($#)) && [ "$1" != -- ]; do args+=("$1"); shift; done
  (($#)) && shift && targets=(--target "$@")
  cmake -S . -B "$dir" -G Ninja "${args[@]}" >/dev/null
  cmake --build "$dir" -j "$jobs" "${targets[@]}"
}
case "$what" in
  validate)
    # The first command (issue 25): only what the CLI needs, installed and built (no tests, no
    # browser, no Dawn tooling: those are `run.sh test`'s).
    bash scripts/install-deps.sh cli
    build build -DWGSLVK_TESTS=OFF -- wgslvk
    ./build/cli/wgslvk validate
    ;;
  test)
    bash scripts/install-deps.sh
    build build -DWGSLVK_TESTS=ON
    # Every test runs under the Khronos validation layer, with its synchronization validation
    # (it sees a missing barrier that lavapipe's in-order execution hides); any message fails.
    export WGSLVK_VALIDATION=1 WGSLVK_SYNC_VALIDATION=1
    (cd build && ctest --output-on-failure -j "$jobs")
    build build-asan -DWGSLVK_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug
    # The sanitizer pass keeps the layer on but not its synchronization checks (the pass above
    # runs those): with them on, LeakSanitizer reports ~100 KB allocated inside the layer at
    # exit even for a single lookup test, while the same test with them off is clean.
    (cd build-asan && WGSLVK_SYNC_VALIDATION=0 ASAN_OPTIONS=detect_leaks=1 \
       ctest --output-on-failure -j "$jobs" -LE "slow|install")
    ;;
  *) echo "usage: scripts/run.sh validate|test" >&2; exit 2 ;;
esac
