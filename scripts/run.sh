#!/usr/bin/env bash
# The README's two Quick start commands:
#   bash scripts/run.sh validate   install what is missing, build, run `wgslvk validate`
#   bash scripts/run.sh test       install what is missing, build, run the whole test suite
#                                  (release build, then the ASan+UBSan build), validation layer on
set -euo pipefail
cd "$(dirname "$0")/.."
what=${1:-validate}
jobs=$(nproc)
# Each phase's wall time, so a slow CI run says where its time went, and its CPU time (user + sys
# of the commands it waited for, from bash's `times`), which a shared machine's load does not
# stretch as it stretches the wall time.
t_start=$SECONDS t_phase=$SECONDS cpu_phase=0
phase() {
  local f cpu
  f=$(mktemp)
  times >"$f"  # here, not in $(...): a subshell's `times` counts only its own children
  # The children's user + sys so far: times' second line, "XmY.YYYs XmY.YYYs".
  cpu=$(awk 'NR == 2 { s = 0; for (i = 1; i <= 2; ++i) { split($i, p, "m"); s += p[1] * 60 + p[2] }
                       printf "%d\n", s + 0.5 }' "$f")
  rm -f "$f"
  echo "== run.sh: $1 took $((SECONDS - t_phase)) s, $((cpu - cpu_phase)) s of CPU (total $((SECONDS - t_start)) s)"
  t_phase=$SECONDS cpu_phase=$cpu
}
build() {  # build DIR [cmake args...] [-- targets...]
  local dir=$1; shift
  local args=() targets=()
  while (($#)) && [ "$1" != -- ]; do args+=("$1"); shift; done
  (($#)) && shift && targets=(--target "$@")
  cmake -S . -B "$dir" -G Ninja "${args[@]}" >/dev/null
  cmake --build "$dir" -j "$jobs" "${targets[@]}"
}
# install-deps.sh WHAT in the background, its output in build/install-deps-WHAT.log; in the
# foreground instead where apt would need a sudo password (a background prompt would stop the run).
install_pid=""
install_in_background() {
  mkdir -p build
  : >"build/install-deps-$1.log"
  if [ "$(id -u)" = 0 ] || sudo -n true 2>/dev/null; then
    bash scripts/install-deps.sh "$1" >"build/install-deps-$1.log" 2>&1 &
    install_pid=$!
    # On any exit, apt is left to finish rather than interrupted mid-install.
    trap 'wait "$install_pid" 2>/dev/null || true' EXIT
  else
    bash scripts/install-deps.sh "$1"
  fi
}
await_install() {  # await_install WHAT: the background install finished; its log printed
  if [ -n "$install_pid" ] && ! wait "$install_pid"; then
    cat "build/install-deps-$1.log" >&2
    echo "run.sh: install-deps.sh $1 failed (log above)" >&2
    exit 1
  fi
  cat "build/install-deps-$1.log"
}
case "$what" in
  validate)
    # The first command (issue 25): only what the CLI needs, installed and built (no tests, no
    # browser, no Dawn tooling: those are `run.sh test`'s), in Release without debug info, at -O1:
    # the build is nearly all of this command's time, while what `wgslvk validate` runs on the CPU
    # is small (the randomized cases' inputs and double references; the whole run took 4.8 s of
    # CPU with an older -O3 build and 4.9 s with this one, 70 of 72 kernels passing, 2 skipped).
    # -O1 against Release's -O3, each pair compiled at once (same load), CPU s: sema.cpp 13.1 ->
    # 9.1, adafactor/cases.cpp 12.2 -> 8.7, attention/bench.cpp 11.1 -> 8.8, validate case.cpp
    # 12.3 -> 8.9, time_case.cpp 9.4 -> 8.0, gpt/trainer.cpp 17.1 -> 13.0, cli/port.cpp 10.4 -> 8.4:
    # 24% less. Results do not depend on the level (no -ffast-math; x86-64 without -mfma contracts
    # nothing). apt's part, on a Debian 12 root with the machine image's compiler, CMake and Ninja
    # (debootstrap): 49 s wall for the 10 missing packages (48 with dependencies). With -O3 this
    # command took 4 min 51 s from a fresh clone with the packages present (566 s of CPU, idle
    # machine, 2026-11-27); a quarter less build CPU is about 60 s less wall on 2 cores.
    # A unity build (-DCMAKE_UNITY_BUILD=ON: up to 8 sources of a target compiled as one; the CLI's
    # own sources stay apart, cli/CMakeLists.txt): at these flags, no ccache, 2026-11-27 (load 5-11),
    # per target, the same sources alone vs as unity sources: wgslvk_translator 18.4 -> 11.2 s of CPU
    # (compile.cpp, alone in both, 5.9 and 5.0: the load's noise), wgslvk_wgsl 34.0 -> 26.9; the whole
    # build (translation steps and links included) 301 s of CPU, against 464 s without it (idle
    # machine, session 13); its `wgslvk validate`: 79 of 86 kernels pass, 7 skipped, as without.
    # This command from a fresh clone at 531c9b2, packages present, load 2-4: 140 s (build 136 s
    # wall, 240 s of CPU; validate 4 s: 78 of 85 pass, 7 skipped); session 13's run: 241 s.
    # apt in two steps: what compiling needs, then lavapipe (mesa-vulkan-drivers with its LLVM and
    # Z3: ~37 MB of the ~47 MB the CLI's packages download on a fresh Debian 12), which only the run
    # needs, in the background while the build compiles.
    bash scripts/install-deps.sh cli-build
    phase "install-deps (build)"
    install_in_background device
    build build -DWGSLVK_TESTS=OFF -DCMAKE_BUILD_TYPE=Release "-DCMAKE_CXX_FLAGS_RELEASE=-O1 -DNDEBUG" \
      -DCMAKE_UNITY_BUILD=ON -- wgslvk
    phase "build"
    await_install device
    phase "install-deps (device, after the build)"
    ./build/cli/wgslvk validate
    phase "validate"
    ;;
  test)
    # What configuring and building needs first; what only the tests need (Chromium, the validation
    # layer, clang-format, npm packages, Mesa 25: downloads and unpacking, little CPU) installs in the
    # background while the release build compiles. The tests wait for it; a failure there fails
    # this command with its log.
    bash scripts/install-deps.sh build
    phase "install-deps (build)"
    install_in_background tools
    # Line tables only (-g1): a failure's backtrace keeps file:line, and the build spends less
    # time writing debug info (translator/wgsl/src/builtins.cpp measured: 10.6 s of CPU at -O2 -g,
    # 8.1 s at -O2 -g1).
    # The fuzz targets run 3 s each here, 15 s (their default) in the sanitizer pass below: without
    # the sanitizers a mutated input that corrupts memory goes unseen, so this pass's run is the
    # committed corpus replayed plus a short mutation run (a crash or hang still fails it), and the
    # long run is the one whose findings the sanitizers report (7 targets: 84 s of test time saved).
    # ccache, its cache inside build/ (this run's own, nothing shared or stale): the scratch-family
    # test (tests/families) builds a copy of the tree with one more family at these flags, and
    # with CCACHE_BASEDIR (paths under the checkout hashed relative to the build folder) and
    # CCACHE_NOHASHDIR (the build folder's path not hashed) every object the new family does not
    # change is this build's own from the cache. Depend mode: a miss does not run the
    # preprocessor a second time (ccache hashes the headers the compiler's -MD lists).
    export CCACHE_DIR=$PWD/build/ccache CCACHE_BASEDIR=$PWD CCACHE_NOHASHDIR=1 CCACHE_DEPEND=1
    # Measured, not taken (2026-11-27, the same test sources compiled alone, CPU user + sys):
    # a precompiled header of GoogleTest, nlohmann/json and the test device reused by every
    # suite (target_precompile_headers REUSE_FROM), at -O3: test_golden.cpp 21.4 s without,
    # 23.1 s with (each source loads the 143 MB .gch; building it took 11.9 s), test_record.cpp
    # 6.8 -> 6.7 s: these sources' time is optimizing GoogleTest bodies, not parsing headers.
    # Taken: the suites' own sources (not the libraries, not the test support) at -O1 instead of
    # -O2 (WGSLVK_TEST_COMPILE_OPTIONS, still -g1): test_golden 19.3 -> 14.7 s, test_wgsl_sema
    # 18.0 -> 11.6, test_loss 14.1 -> 12.3, test_api 6.3 -> 5.5 (-24% on the four; the test sources
    # took ~360 s of CI's release build). Built whole with -Werror and every suite passing
    # (2026-11-27, session 14).
    # (-DCMAKE_UNITY_BUILD=OFF: build/ may hold validate's unity configuration, and the scratch-family
    # test's cache hits need one object per source, see the sanitizer build's comment below.)
    # Linked by mold (install-deps.sh's build group), here and in the sanitizer build: each build's
    # executables relinked from the same objects, each link alone (mold with --no-fork, so that its
    # CPU is counted), 2026-11-27, CPU user + sys: this build's 45, GNU ld 12.7-13.0 s, mold 4.8 s;
    # the sanitizer build's 40, GNU ld 36.7-38.6 s, mold 10.9 s (~34 s less in all). Both passes
    # were run whole on mold's binaries. (The scratch-family copy links with the default.)
    build build -DWGSLVK_TESTS=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER_LAUNCHER=ccache \
      "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O2 -g1 -DNDEBUG" -DWGSLVK_FUZZ_SECONDS=3 -DCMAKE_UNITY_BUILD=OFF \
      -DWGSLVK_TEST_COMPILE_OPTIONS=-O1 -DWGSLVK_TEST_PER_SUITE=ON -DCMAKE_EXE_LINKER_FLAGS=-fuse-ld=mold
    phase "release build"
    await_install tools
    phase "install-deps (tools, after the build)"
    # Every test runs under the Khronos validation layer, with its synchronization validation
    # (it sees a missing barrier that lavapipe's in-order execution hides); any message fails.
    # One CTest entry per GoogleTest suite (WGSLVK_TEST_PER_SUITE, as the sanitizer pass below; a
    # failure names its test in the entry's output), a suite of more than 32 tests split into gtest
    # shards (cmake/WgslvkTestSuites.cmake): the 272 replays of the committed golden cases run as 9
    # entries of ~30. Each process start here (Vulkan loader, validation layer, test device) costs
    # ~0.4 s of CPU: per test, ~800 processes. Measured, load ~3 on 2 cores: this pass less the
    # golden replays and slow/install labels, 526 entries per test 283 s wall / 393 s CPU, 129
    # suite entries 213 s / 220 s (session 13); the whole pass per suite, 157 entries (801 gtest
    # tests + 27 others, all passing) 358 s wall / 433 s CPU at load 3-5 (2026-11-27, eec0417),
    # where the last fresh-clone run here per test took 566 s / 751 s (827 entries, other load).
    export WGSLVK_VALIDATION=1 WGSLVK_SYNC_VALIDATION=1
    (cd build && ctest --output-on-failure -j "$jobs")
    phase "release tests"
    # The sanitizer pass keeps the layer on but not its synchronization checks (the pass above
    # runs those): with them on, LeakSanitizer reports ~100 KB allocated inside the layer at
    # exit even for a single lookup test, while the same test with them off is clean.
    # It leaves out the replays of the committed golden cases (Committed/GoldenCase.*, 244 of
    # them; the release pass runs every one): each runs the same host code (case.json and .npy
    # reading, the run, the comparison) on other data: most of the golden label's 598 s of the
    # pass's 1,700 s of test time in CI. That code stays under the sanitizers through the
    # families' *Kernels.EveryGeneratorPassesOnFreshInputs (fresh cases through the same runner),
    # GoldenCases.*, Validate.*, Npy.*, CaseJson.* and UntrustedCase.* (malformed case folders).
    # Three more tests check a numerical property by running the same host code many times, which
    # the sanitizers see in its first round: GptParity.FiftyStepsLossDrift (50 training steps; one
    # step's host code runs under the sanitizers in GptParity.GradientsMatchTheDoubleReference and
    # ParametersAfterStepOneWithinDerivedBounds; 294 s of this pass's test time), Regen.
    # IsDeterministicAndDetectsChanges (every generator five times; once in Regen.
    # CommittedGoldenIsWhatTheGeneratorsProduce; 65 s) and MultiTensorAdamW8bit.
    # ConvergesWithin2PercentOfFp32 (2,000 steps; the 8-bit step's host code in the other
    # MultiTensorAdamW tests; 22 s), and GptMixed.TwelveStepsTrackTheFp32Run (12 mixed-precision
    # steps beside 12 fp32 ones; one mixed step's host code runs in GptMixed.
    # GradientsOfOneStepMatchTheDoubleReference; 34 s). The release pass runs all four.
    # EmbeddedKernels.EveryPortPassesTheAbiCheckAgain recompiles, validates, reflects and
    # ABI-checks every embedded port: the same translate() code on the same inputs that the
    # sanitizer build itself ran, under the same sanitizers, in its wgslvk-translate step for each
    # port (a report there fails the build); 12 s of this pass's test time. The release pass runs it.
    # (gtest filter patterns: this pass's entries are whole suites, see below.)
    asan_skip='Committed/GoldenCase.*:GptParity.FiftyStepsLossDrift:Regen.IsDeterministicAndDetectsChanges'
    asan_skip+=':MultiTensorAdamW8bit.ConvergesWithin2PercentOfFp32:GptMixed.TwelveStepsTrackTheFp32Run'
    asan_skip+=':EmbeddedKernels.EveryPortPassesTheAbiCheckAgain'
    # The sanitizer pass builds only what its tests need (WGSLVK_SLOW_TESTS=OFF: the suites
    # labelled slow, which it does not run, are not built) with line tables only (-g1: reports
    # keep file:line; with full -g, wgsl_ports/norm/cases.cpp took 13.8 s of CPU to compile under
    # the sanitizers instead of 11.5 s).
    # One CTest entry per GoogleTest suite (WGSLVK_TEST_PER_SUITE, tests/CMakeLists.txt), not per
    # test: each process start here (ASan, UBSan, Vulkan loader, validation layer) costs ~1 s of
    # CPU, and ~500 tests ran as ~500 processes (~115 suites). Measured on tests/matmul/test_matmul
    # under the sanitizers (load average 10 on 2 cores): its 17 tests as 17 processes 27.4 s of CPU
    # (104 s wall), as its 4 suites 7.8 s of CPU (28 s wall). A failure still names its test.
    # A unity build (-DCMAKE_UNITY_BUILD=ON: up to 8 sources of a target compiled as one translation
    # unit). At -O0 a compile is mostly parsing the same headers (the standard library, Vulkan,
    # GoogleTest, nlohmann/json) and emitting the same inline functions once per source. Per object,
    # CPU user + sys, these flags, no ccache, 2026-11-27 (load ~10 on 2 cores): wgslvk_wgsl 91.8 ->
    # 73.2 s (three groups), wgslvk_translator 60.2 -> 42.6, wgslvk_validate 82.0 -> 32.5,
    # wgslvk_bench 33.8 -> 21.8, loss plugins 24.2 -> 17.0, norm plugins 24.2 -> 16.3, test_runtime's
    # 4 unity sources 23.6 -> 11.5, test_embedding's 4 23.1 -> 14.3: 363 -> 229 s (-37%), on the
    # ~930 s of library and test objects of this build. Taken in session 14 after a fresh build of
    # the whole configuration (186 objects, 538 s of compile CPU at load 3-4; 672 s in another at
    # load 5-11) and this whole pass passing under it. The file-local name clashes are excluded in
    # the CMakeLists.txt files (SKIP_UNITY_BUILD_INCLUSION, UNITY_GROUP): a file-local name repeated
    # across a target's sources fails only here and in validate's build, not in the release build.
    # Not for the release build above: the scratch-family test's ccache hits need per-source
    # objects (a unity source names its sources by absolute path, so the copy's would all miss).
    # Linked by mold, as the release build: see there.
    build build-asan -DWGSLVK_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG=-g1 \
      -DWGSLVK_SLOW_TESTS=OFF -DWGSLVK_TEST_PER_SUITE=ON "-DWGSLVK_TEST_EXCLUDE=$asan_skip" \
      -DCMAKE_UNITY_BUILD=ON -DCMAKE_EXE_LINKER_FLAGS=-fuse-ld=mold
    phase "sanitizer build"
    # Longest first: a fresh build-asan has no timings of its own, so ctest -j would start the
    # long suites (15 s fuzz runs, 40 s GPT gradients) in declaration order, some of them last
    # with the other core idle; the release pass's timings (the same `Suite.*` entries) order
    # them instead (its list of failed tests, after "---", left behind).
    if [ ! -f build-asan/Testing/Temporary/CTestCostData.txt ] && [ -f build/Testing/Temporary/CTestCostData.txt ]; then
      mkdir -p build-asan/Testing/Temporary
      sed '/^---/,$d' build/Testing/Temporary/CTestCostData.txt >build-asan/Testing/Temporary/CTestCostData.txt
    fi
    (cd build-asan && WGSLVK_SYNC_VALIDATION=0 ASAN_OPTIONS=detect_leaks=1 \
       ctest --output-on-failure -j "$jobs" -LE "slow|install")
    phase "sanitizer tests"
    ;;
  *) echo "usage: scripts/run.sh validate|test" >&2; exit 2 ;;
esac
