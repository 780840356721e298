#!/usr/bin/env bash
# Packs Node and Dawn (npm webgpu's dawn.node) small enough to travel to the GPU machine with the
# working tree (its 64 MiB limit: bench/README.md, "What travels to the GPU machine"), and prints
# what a call would send.
#   bash bench/pack_dawn.sh [DIR]              writes DIR/node.xz and DIR/dawn.node.xz (default .dawn)
#   bash bench/pack_dawn.sh --size CARRY...    only the size of a call carrying CARRY...
# NODE (default: the node on PATH) and DAWN_NODE (default node_modules/webgpu/dist/linux-x64/
# dawn.node) choose the inputs. Each binary is stripped (--strip-all) and compressed with xz's
# x86 filter and LZMA2 preset 9e with a dictionary as large as the binary (-T1: one block).
# Node's embedded ICU data (the icudtNN_dat symbol: 33 MB of its 86 MB, 7.9 MB once compressed)
# is cut to the root and English locales with icupkg (icu-devtools): every other locale's
# resource bundle, the transliterators and the legacy codepage converters (.cnv) removed, the
# reduced package written over the original in place and the rest zero-filled (ICU reads the
# package's table of contents, not its length). Intl then formats every locale as English; the
# scripts run no Intl. The cut node is checked here (Dates, number and date formats, collation,
# segmentation, TextDecoder) and the uncut one packed if it fails or icupkg / the symbol is
# missing (NODE_ICU_CUT=0 skips the cut).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
mib() { awk -v b="$1" 'BEGIN { printf "%.2f MB (%.2f MiB)", b / 1e6, b / 1048576 }'; }
# Bytes that travel: tracked files, untracked files git does not ignore, shared/ if present, and
# each carried path (files or folders).
tree_size() {
  local t u c=0 p s
  t=$(git ls-files -z | xargs -0 stat -c %s 2>/dev/null | awk '{ s += $1 } END { print s + 0 }')
  u=$(git ls-files -z --others --exclude-standard | xargs -0 -r stat -c %s 2>/dev/null |
    awk '{ s += $1 } END { print s + 0 }')
  echo "tracked files:              $(mib "$t")"
  echo "untracked, not ignored:     $(mib "$u")"
  for p in "$@"; do
    if [ -e "$p" ]; then
      s=$(find "$p" -type f -printf '%s\n' | awk '{ s += $1 } END { print s + 0 }')
      echo "carried $p: $(mib "$s")"
      c=$((c + s))
    else
      echo "carried $p: missing"
    fi
  done
  local all=$((t + u + c)) lim=$((64 * 1048576))
  echo "total:                      $(mib "$all") of 64 MiB; $(mib $((lim - all))) left"
  [ "$all" -le "$lim" ] || { echo "OVER the 64 MiB the device tool accepts"; return 1; }
}
if [ "${1:-}" = --size ]; then
  shift
  tree_size "$@"
  exit
fi
DIR=${1:-.dawn}
NODE=${NODE:-$(command -v node)}
DAWN_NODE=${DAWN_NODE:-node_modules/webgpu/dist/linux-x64/dawn.node}
[ -f "$DAWN_NODE" ] || { echo "pack_dawn: $DAWN_NODE missing (npm install webgpu@0.6.2)"; exit 1; }
mkdir -p "$DIR"
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
strip --strip-all -o "$W/node" "$NODE"
echo "node $("$NODE" --version) ($NODE): $(mib "$(stat -c %s "$NODE")"), stripped $(mib "$(stat -c %s "$W/node")")"

# The ICU cut (see the header).
smoke='const r = [new Date(0).toString(), (1234567.891).toLocaleString(),
  new Intl.DateTimeFormat("en-US", { timeZone: "Asia/Tokyo", dateStyle: "full", timeStyle: "long" }).format(new Date(0)),
  "a".localeCompare("B"), [...new Intl.Segmenter("en", { granularity: "word" }).segment("hi there")].length,
  new TextDecoder().decode(new Uint8Array([104, 105])), "\u00df".toUpperCase()]; console.log(r.join(" | "));'
cut_icu() {
  command -v icupkg >/dev/null || { echo "pack_dawn: no icupkg (icu-devtools): ICU not cut"; return 1; }
  local sym
  sym=$(nm -S "$NODE" 2>/dev/null | awk '$4 ~ /^icudt[0-9]+_dat$/ { print $1, $2, $4; exit }')
  [ -n "$sym" ] || { echo "pack_dawn: no icudtNN_dat symbol in $NODE: ICU not cut"; return 1; }
  set -- $sym
  local name=${3%_dat}l  # icudt78l: the package name its items are listed under
  python3 - "$W/node" "$1" "$2" "$W/$name.dat" <<'EOF' || return 1
import subprocess, sys
path, addr, size, out = sys.argv[1], int(sys.argv[2], 16), int(sys.argv[3], 16), sys.argv[4]
for line in subprocess.run(['readelf', '-S', '-W', path], capture_output=True, text=True,
                           check=True).stdout.splitlines():
    f = line.replace('[ ', '[').split()
    if len(f) > 5 and f[0].startswith('[') and f[2] == 'PROGBITS':
        a, off, sz = int(f[3], 16), int(f[4], 16), int(f[5], 16)
        if a <= addr and addr + size <= a + sz:
            break
else:
    sys.exit('pack_dawn: the ICU symbol is in no PROGBITS section')
data = open(path, 'rb').read()[addr - a + off:addr - a + off + size]
if data[2:4] != b'\xda\x27':
    sys.exit('pack_dawn: no ICU data header at the symbol')
open(out, 'wb').write(data)
open(out + '.at', 'w').write(f'{addr - a + off} {size}\n')
EOF
  icupkg -l "$W/$name.dat" > "$W/items.txt"
  # removed: other locales' bundles (names such as de.res, zh_Hant_TW.res, coll/de__PHONEBOOK.res),
  # the transliterators, the codepage converters; kept: root, en*, pool.res, res_index.res and
  # the data that is not per locale (supplementalData, zoneinfo64, the break dictionaries, ...)
  {
    grep -E '^translit/' "$W/items.txt"
    grep -E '\.cnv$|(^|/)[a-z]{2,3}(_[A-Za-z0-9]*)*\.res$' "$W/items.txt" |
      grep -Ev '^translit/|(^|/)en(_[A-Za-z0-9]*)*\.res$'
  } > "$W/remove.txt"
  mkdir -p "$W/cut"
  icupkg -r "$W/remove.txt" "$W/$name.dat" "$W/cut/$name.dat" || return 1
  python3 - "$W/node" "$W/cut/$name.dat" "$W/$name.dat.at" <<'EOF' || return 1
import sys
path, cut, at = sys.argv[1], sys.argv[2], sys.argv[3]
off, size = map(int, open(at).read().split())
new = open(cut, 'rb').read()
if len(new) > size:
    sys.exit('pack_dawn: the cut ICU package is larger than the original')
d = bytearray(open(path, 'rb').read())
d[off:off + size] = new + bytes(size - len(new))
open(path + '.cut', 'wb').write(d)
EOF
  chmod +x "$W/node.cut"
  echo "ICU $name: $(wc -l < "$W/items.txt") items, $(wc -l < "$W/remove.txt") removed;" \
    "$(mib "$(stat -c %s "$W/$name.dat")") -> $(mib "$(stat -c %s "$W/cut/$name.dat")")"
  local want got
  want=$("$W/node" -e "$smoke" 2>&1) || return 1
  got=$("$W/node.cut" -e "$smoke" 2>&1) || { echo "pack_dawn: the cut node fails: $got"; return 1; }
  echo "smoke, uncut: $want"
  echo "smoke, cut:   $got"
  [ "$want" = "$got" ] || { echo "pack_dawn: the cut node answers otherwise: ICU not cut"; return 1; }
  mv "$W/node.cut" "$W/node"
}
if [ "${NODE_ICU_CUT:-1}" = 1 ]; then cut_icu || true; fi

xzf() {  # $1 binary -> $2: x86 filter, LZMA2 9e, a dictionary at least the binary's size
  local s dict=8
  s=$(stat -c %s "$1")
  while [ $((dict * 1048576)) -lt "$s" ] && [ $dict -lt 1536 ]; do dict=$((dict * 2)); done
  nice -n 10 xz -T1 --x86 --lzma2=preset=9e,dict=${dict}MiB -c "$1" > "$2.part"
  mv "$2.part" "$2"
}
strip --strip-all -o "$W/dawn.node" "$DAWN_NODE"
xzf "$W/node" "$DIR/node.xz"
xzf "$W/dawn.node" "$DIR/dawn.node.xz"
echo "$DIR/node.xz: $(mib "$(stat -c %s "$DIR/node.xz")")"
echo "$DIR/dawn.node.xz: $(mib "$(stat -c %s "$DIR/dawn.node.xz")") (dawn.node $(mib "$(stat -c %s "$DAWN_NODE")"), stripped $(mib "$(stat -c %s "$W/dawn.node")"))"
# the packed node runs here
xz -dc "$DIR/node.xz" > "$W/check" && chmod +x "$W/check" && "$W/check" -e "$smoke"
