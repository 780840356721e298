#!/usr/bin/env bash
# Installs the Debian 12 packages wgslvk builds and tests with, only those that are missing.
# Idempotent: a second run installs nothing and does not touch the network.
#   install-deps.sh            everything `scripts/run.sh test` needs (tests, browser suite, Dawn peers)
#   install-deps.sh cli        what building and running the `wgslvk` command needs (run.sh validate)
# The parts run.sh installs in two steps, so that downloads and unpacking overlap the build:
#   install-deps.sh cli-build  what compiling the `wgslvk` command needs (cli less lavapipe)
#   install-deps.sh device     lavapipe, Mesa's CPU Vulkan driver: running needs it, compiling does not
#                              (with its LLVM and Z3 it is ~37 MB of the cli set's ~47 MB download)
#   install-deps.sh build      what configuring and building the tests needs (cli-build's, GoogleTest,
#                              ccache, mold, node: CMake looks for it when it registers the browser tests)
#   install-deps.sh tools      the rest, which only running the tests needs (lavapipe, the validation
#                              layer, clang-format, fortunes, Chromium, npm packages, Mesa 25)
# cli = cli-build + device; all = build + tools.
set -euo pipefail
what=${1:-all}
case "$what" in
  all | cli | cli-build | device | build | tools) ;;
  *) echo "usage: install-deps.sh [all|cli|cli-build|device|build|tools]" >&2; exit 2 ;;
esac
# The CLI and its libraries: compiler, CMake, the Vulkan loader, glslang, SPIRV-Tools, SPIRV-Cross,
# JSON, zlib.
compile=(
  build-essential cmake ninja-build pkg-config
  libvulkan-dev
  glslang-dev spirv-tools spirv-headers
  glslang-tools  # Debian 12's glslang-dev CMake package names /usr/bin/glslangValidator: without it
                 # find_package(glslang) fails (seen on a fresh Debian 12 root)
  spirv-cross libspirv-cross-c-shared-dev
  nlohmann-json3-dev
  zlib1g-dev  # the optimizer checkpoints' CRC-32 (wgsl_ports/optimizer/checkpoint.cpp)
)
device=(mesa-vulkan-drivers)  # lavapipe, the default device where there is no GPU
build=(
  googletest libgtest-dev
  ccache  # the scratch-family test's copy of the tree reuses the release build's objects (run.sh)
  mold  # the sanitizer build's linker (run.sh: a quarter of GNU ld's CPU on its 40 executables)
  nodejs  # tests/browser, tests/cts and tests/examples find node when CMake configures them
)
tools=(
  vulkan-validationlayers  # every test runs under the Khronos validation layer
  clang-format-14  # the C++ style check (.clang-format, scripts/check_format.sh)
  fortunes  # the training corpus (apps/gpt): English text installed under /usr/share/games/fortunes
  chromium  # the browser suite (capture/, tests/browser): headless Chromium's WebGPU as the oracle
)
case "$what" in
  all) packages=("${compile[@]}" "${device[@]}" "${build[@]}" "${tools[@]}") ;;
  cli) packages=("${compile[@]}" "${device[@]}") ;;
  cli-build) packages=("${compile[@]}") ;;
  device) packages=("${device[@]}") ;;
  build) packages=("${compile[@]}" "${build[@]}") ;;
  tools) packages=("${device[@]}" "${tools[@]}") ;;
esac
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# npm: Debian's package, unless a nodejs build that bundles it (NodeSource) is installed
if [ "$what" = all ] || [ "$what" = tools ]; then
  command -v npm >/dev/null 2>&1 || dpkg-query -W -f='${Status}' npm 2>/dev/null | grep -q "install ok installed" ||
    missing+=(npm)
fi
if ((${#missing[@]})); then
  echo "install-deps: installing ${missing[*]}"
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
else
  echo "install-deps: all ${#packages[@]} packages present"
fi
[ "$what" = all ] || [ "$what" = tools ] || exit 0

# The npm packages of package.json (puppeteer-core for the browser suite, webgpu for the Dawn
# peers): `npm ci` from package-lock.json, skipped when node_modules/ already matches the lock file
# (a stamp holds its hash), so a second run touches neither node_modules/ nor the network; npm's
# cache (~/.npm) makes a reinstall work offline after the first (--prefer-offline).
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
stamp="$ROOT/node_modules/.wgslvk-lock.sha256"
want=$(sha256sum "$ROOT/package-lock.json" | cut -d' ' -f1)
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
  echo "install-deps: node_modules matches package-lock.json"
else
  echo "install-deps: npm ci (package-lock.json)"
  (cd "$ROOT" && PUPPETEER_SKIP_DOWNLOAD=1 npm ci --no-audit --no-fund --prefer-offline --loglevel=error)
  echo "$want" > "$stamp"
fi

# Mesa 25's lavapipe from bookworm-backports, unpacked under /opt/wgslvk-dawn/mesa25 (nothing
# installed system-wide): Dawn (npm webgpu, the trainer's Dawn parity test in tests/gpt/dawn)
# refuses Debian 12's Mesa 22.3 lavapipe. Skipped when already there.
if [ -f /opt/wgslvk-dawn/mesa25/env.sh ]; then
  echo "install-deps: Mesa 25 lavapipe for Dawn present"
else
  echo "install-deps: Mesa 25 lavapipe for Dawn (bookworm-backports) -> /opt/wgslvk-dawn/mesa25"
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
  $SUDO bash "$ROOT/bench/peers/local-lavapipe.sh" /opt/wgslvk-dawn/mesa25 >/dev/null
fi
