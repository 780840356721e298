#!/usr/bin/env bash
# Checks that every C++ file of the tree is formatted as .clang-format says (clang-format 14, the
# Debian 12 package: another version may format differently). GLSL ports are not checked: they are
# line-by-line transliterations of the WGSL. Fix: scripts/check_format.sh --fix
# usage: check_format.sh [--fix] [CLANG_FORMAT]
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
fix=0
[ "${1:-}" = --fix ] && { fix=1; shift; }
CF=${1:-$(command -v clang-format-14 || command -v clang-format || true)}
[ -n "$CF" ] || { echo "check_format: clang-format-14 not found (scripts/install-deps.sh installs it)"; exit 1; }
"$CF" --version | grep -q "version 14\." || echo "check_format: warning: $("$CF" --version) is not clang-format 14"
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  mapfile -t files < <(git ls-files '*.cpp' '*.hpp' '*.h')
else
  mapfile -t files < <(find . -path ./build\* -prune -o -path ./node_modules -prune -o \
                            \( -name '*.cpp' -o -name '*.hpp' -o -name '*.h' \) -print | sort)
fi
if ((fix)); then
  "$CF" -i "${files[@]}"
  echo "check_format: formatted ${#files[@]} files"
  exit 0
fi
if ! "$CF" --dry-run --Werror "${files[@]}" 2>/tmp/check_format.$$; then
  grep -E '^[^ ].*: error:' /tmp/check_format.$$ | cut -d: -f1 | sort -u | sed 's/^/needs formatting: /'
  echo "check_format: FAILED (run scripts/check_format.sh --fix)"
  rm -f /tmp/check_format.$$
  exit 1
fi
rm -f /tmp/check_format.$$
echo "check_format: ${#files[@]} files formatted as .clang-format says"
