#!/usr/bin/env bash
# Installs the Debian 12 packages wgslvk builds and tests with, only those that are missing.
# Idempotent: a second run installs nothing and does not touch the network.
set -euo pipefail
packages=(
  build-essential cmake ninja-build pkg-config
  libvulkan-dev vulkan-validationlayers mesa-vulkan-drivers
  glslang-dev glslang-tools spirv-tools spirv-headers
  spirv-cross libspirv-cross-c-shared-dev
  googletest libgtest-dev nlohmann-json3-dev
  fortunes  # the training corpus (apps/gpt): English text installed under /usr/share/games/fortunes
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "install-deps: installing ${missing[*]}"
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
else
  echo "install-deps: all ${#packages[@]} packages present"
fi
