#!/usr/bin/env bash
# Unpacks Mesa 25's lavapipe (bookworm-backports) under DIR (default /tmp/mesa25) for running Dawn
# on a machine without a GPU: Debian 12's own lavapipe (Mesa 22.3) is refused by Dawn. Installs
# nothing system-wide (scripts/install-deps.sh calls it with /opt/wgslvk-dawn/mesa25 for the Dawn
# parity test, tests/gpt/dawn). Then: source DIR/env.sh
#   usage: bash bench/peers/local-lavapipe.sh [DIR]
set -euo pipefail
D=${1:-/tmp/mesa25}
mkdir -p $D/apt/lists/partial $D/apt/etc $D/debs
echo 'deb http://deb.debian.org/debian bookworm-backports main' > $D/apt/etc/sources.list
o="-oDir::State::Lists=$D/apt/lists -oDir::Etc::SourceList=$D/apt/etc/sources.list -oDir::Etc::SourceParts=/dev/null"
apt-get $o update -qq
(cd $D/debs && apt-get $o download mesa-vulkan-drivers libdrm2/bookworm-backports libdrm-amdgpu1/bookworm-backports)
for f in $D/debs/*.deb; do dpkg -x "$f" $D; done
sed -i "s#\"library_path\": \"[^\"]*\"#\"library_path\": \"$D/usr/lib/x86_64-linux-gnu/libvulkan_lvp.so\"#" \
  $D/usr/share/vulkan/icd.d/lvp_icd.json
cat > $D/env.sh <<EOT
export VK_DRIVER_FILES=$D/usr/share/vulkan/icd.d/lvp_icd.json VK_ICD_FILENAMES=$D/usr/share/vulkan/icd.d/lvp_icd.json
export LD_LIBRARY_PATH=$D/usr/lib/x86_64-linux-gnu XDG_RUNTIME_DIR=/tmp
EOT
echo "source $D/env.sh"
