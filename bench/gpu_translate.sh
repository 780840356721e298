#!/usr/bin/env bash
# The WGSL front end on the GPU (issue 21's proof), one `run` call:
#   1. wgslvk validate            (hand ports)            --dump A
#   2. wgslvk validate --translate (every shipped kernel from its WGSL) --dump B
#      then A and B compared file by file: every checked output of every golden case bit-identical
#   3. wgslvk bench and bench --translate, interleaved per family, and the per-row median ratio
#      translated / hand port (bench/peers/translate_ratios.py)
# usage (from the repo root, on the device machine; the engine carried as build-gpu/cli/wgslvk.xz):
#   run(command="bash bench/gpu_translate.sh", carry=[".gl", "build-gpu/cli/wgslvk.xz"], timeout_s=600)
# Results: $OUT/translate.md (the table), $OUT/log.txt, $OUT/hand.json, $OUT/translated.json
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
OUT=${OUT:-$ROOT/out/translate}
W=${WGSLVK_TRANSLATE_WORK:-/tmp/wgslvk-translate}
FAMILIES=${FAMILIES:-elementwise,norm,loss,embedding,matmul}
mkdir -p "$OUT" "$W"
exec > >(tee "$OUT/log.txt") 2>&1
t0=$(date +%s)
step() { echo; echo "== [$(($(date +%s) - t0)) s] $*"; }

step "environment"
date -u +%Y-%m-%dT%H:%M:%SZ
nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv 2>&1 || true
git -C "$ROOT" log -1 --format='commit %H %s' 2>/dev/null || echo "commit: (no git here)"
if ! ldconfig -p | grep -q 'libvulkan.so.1'; then
  for f in .gl/*.deb; do dpkg -x "$f" /; done
  ldconfig
fi
BIN=${WGSLVK_BIN:-$ROOT/build-gpu/cli/wgslvk}
if [ ! -x "$BIN" ] && [ -f "$BIN.xz" ]; then xz -dkc "$BIN.xz" > "$W/wgslvk" && chmod +x "$W/wgslvk" && BIN=$W/wgslvk; fi
[ -x "$BIN" ] || { echo "gpu_translate: no engine at $BIN (carry build-gpu/cli/wgslvk.xz)"; exit 1; }
export WGSLVK_SOURCE_DIR=$ROOT
"$BIN" devices | head -3

step "validate: hand ports, then the front end's translations (outputs dumped)"
rm -rf "$W/hand" "$W/translated"
"$BIN" validate --no-random --dump "$W/hand" | tail -3
"$BIN" validate --no-random --translate --dump "$W/translated" | tail -4
step "bit identity of every checked output (hand port vs translation)"
n=0; d=0
while IFS= read -r f; do
  n=$((n + 1))
  cmp -s "$W/hand/$f" "$W/translated/$f" || { d=$((d + 1)); echo "DIFFERS: $f"; }
done < <(cd "$W/hand" && find . -name '*.actual.npy' | sort)
echo "bit-identical: $((n - d)) of $n checked outputs"

step "bench: hand ports and translations, one family at a time, alternating"
IFS=, read -ra FAMS <<< "$FAMILIES"
for fam in "${FAMS[@]}"; do
  timeout 150 "$BIN" bench --only "$fam" --reps 15 --warm-ms 50 --json "$W/hand_$fam.json" > /dev/null 2>&1 || echo "bench $fam (hand) failed or timed out"
  timeout 150 "$BIN" bench --only "$fam" --reps 15 --warm-ms 50 --translate --json "$W/tr_$fam.json" > /dev/null 2>&1 || echo "bench $fam (translated) failed or timed out"
done
python3 - "$W" "$OUT" <<'PY'
import json, sys, glob, os, statistics
w, out = sys.argv[1], sys.argv[2]
rows, hand_all, tr_all = [], [], []
for h in sorted(glob.glob(os.path.join(w, 'hand_*.json'))):
    t = h.replace('hand_', 'tr_')
    if not os.path.exists(t): continue
    H, T = json.load(open(h)), json.load(open(t))
    hand_all += H.get('kernels', []); tr_all += T.get('kernels', [])
    key = lambda r: (r.get('kernel'), r.get('label'))
    tm = {key(r): r for r in T.get('kernels', [])}
    for r in H.get('kernels', []):
        q = tm.get(key(r))
        a, b = r.get('median_ms'), q and q.get('median_ms')
        if a and b: rows.append((r.get('kernel'), r.get('label'), a, b, b / a))
json.dump({'hand': hand_all, 'translated': tr_all}, open(os.path.join(out, 'bench.json'), 'w'))
per = {}
for k, l, a, b, r in rows: per.setdefault(k, []).append(r)
lines = ['| kernel | rows | translated / hand, median (min-max) |', '|---|---:|---|']
for k, rs in sorted(per.items()):
    lines.append(f'| {k} | {len(rs)} | {statistics.median(rs):.3f} ({min(rs):.3f}-{max(rs):.3f}) |')
if rows:
    g = statistics.geometric_mean([r for *_, r in rows])
    lines.append(f'\nall {len(rows)} rows: geometric mean {g:.3f}, worst {max(r for *_, r in rows):.3f}')
open(os.path.join(out, 'translate.md'), 'w').write('\n'.join(lines) + '\n')
print('\n'.join(lines))
PY
step "done"
