#!/usr/bin/env bash
# Installs the Debian 12 packages wgslvk builds and tests with, only those that are missing.
# Idempotent: a second run installs nothing and does not touch the network.
#   install-deps.sh        everything `scripts/run.sh test` needs (tests, browser suite, Dawn peers)
#   install-deps.sh cli    only what building and running the `wgslvk` command needs (run.sh validate)
set -euo pipefail
what=${1:-all}
[ "$what" = all ] || [ "$what" = cli ] || { echo "usage: install-deps.sh [all|cli]" >&2; exit 2; }
# The CLI and its libraries: compiler, CMake, the Vulkan loader and lavapipe, glslang, SPIRV-Tools,
# SPIRV-Cross, JSON, zlib.
packages=(
  build-essential cmake ninja-build pkg-config
  libvulkan-dev mesa-vulkan-drivers
  glslang-dev spirv-tools spirv-headers
  glslang-tools  # Debian 12's glslang-dev CMake package names /usr/bin/glslangValidator: without it
                 # find_package(glslang) fails (seen on a fresh Debian 12 root)
  spirv-cross libspirv-cross-c-shared-dev
  nlohmann-json3-dev
  zlib1g-dev  # the optimizer checkpoints' CRC-32 (wgsl_ports/optimizer/checkpoint.cpp)
)
[ "$what" = cli ] || packages+=(
  vulkan-validationlayers  # every test runs under the Khronos validation layer
  googletest libgtest-dev
  clang-format-14  # the C++ style check (.clang-format, scripts/check_format.sh)
  fortunes  # the training corpus (apps/gpt): English text installed under /usr/share/games/fortunes
  chromium nodejs  # the browser suite (capture/, tests/browser): headless Chromium's WebGPU as the oracle
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# npm: Debian's package, unless a nodejs build that bundles it (NodeSource) is installed
[ "$what" = cli ] || command -v npm >/dev/null 2>&1 || dpkg-query -W -f='${Status}' npm 2>/dev/null | grep -q "install ok installed" || missing+=(npm)
if ((${#missing[@]})); then
  echo "install-deps: installing ${missing[*]}"
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
else
  echo "install-deps: all ${#packages[@]} packages present"
fi
[ "$what" = cli ] && exit 0

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
