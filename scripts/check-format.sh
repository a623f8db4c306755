#!/usr/bin/env bash
# The tree's one format (.clang-format, clang-format 14 as Debian 12 ships it) over every tracked
# C/C++ source (*.cpp, *.h, *.c), build directories excluded.
#   scripts/check-format.sh          check: list the files that differ, exit 1 if any does
#   scripts/check-format.sh --fix    apply: rewrite those files in place
# Environment: CLANG_FORMAT (default clang-format-14).
set -euo pipefail
cd "$(dirname "$0")/.."

mode=check
case "${1:-}" in
  "") ;;
  --fix) mode=fix ;;
  *)
    echo "usage: $0 [--fix]" >&2
    exit 2
    ;;
esac

clang_format=${CLANG_FORMAT:-clang-format-14}
if ! command -v "$clang_format" > /dev/null 2>&1; then
  echo "check-format: $clang_format not found (Debian package clang-format-14;" \
       "scripts/install-deps.sh installs it)" >&2
  exit 2
fi

# Tracked sources when this is a git checkout, else every source outside build directories.
files=()
if git rev-parse --is-inside-work-tree > /dev/null 2>&1; then
  while IFS= read -r -d '' f; do
    case "$f" in
      build/* | build-*/* | */build/*) continue ;;
    esac
    [ -f "$f" ] && files+=("$f")
  done < <(git ls-files -z -- '*.cpp' '*.h' '*.c')
else
  while IFS= read -r -d '' f; do
    files+=("${f#./}")
  done < <(find . \( -name build -o -name 'build-*' -o -name .git \) -prune -o \
             -type f \( -name '*.cpp' -o -name '*.h' -o -name '*.c' \) -print0 | sort -z)
fi

if [ ${#files[@]} -eq 0 ]; then
  echo "check-format: no source files found" >&2
  exit 2
fi

if [ "$mode" = fix ]; then
  "$clang_format" -i --style=file -- "${files[@]}"
  echo "check-format: formatted ${#files[@]} files"
  exit 0
fi

bad=()
for f in "${files[@]}"; do
  if ! "$clang_format" --dry-run -Werror --style=file -- "$f" > /dev/null 2>&1; then
    bad+=("$f")
  fi
done
if [ ${#bad[@]} -ne 0 ]; then
  echo "check-format: ${#bad[@]} of ${#files[@]} files differ from .clang-format" \
       "(make format rewrites them; '$clang_format --dry-run FILE' shows where):" >&2
  printf '  %s\n' "${bad[@]}" >&2
  exit 1
fi
echo "check-format: ${#files[@]} files follow .clang-format"
