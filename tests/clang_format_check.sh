#!/usr/bin/env bash
# Fails when a C++ file of the repo differs from what clang-format (the repo's .clang-format:
# Google style, 100 columns) makes of it, listing the files. Fix: clang-format -i <file>.
# Usage: clang_format_check.sh REPO
set -euo pipefail
cd "$1"
command -v clang-format >/dev/null || { echo "clang-format not installed (scripts/setup installs it)"; exit 77; }
mapfile -t files < <(git ls-files '*.cpp' '*.h' '*.inc' 2>/dev/null | grep -v '^tests/data/' || find src include cli tests bench fuzz -name '*.cpp' -o -name '*.h' -o -name '*.inc')
bad=()
for f in "${files[@]}"; do
  clang-format --dry-run --Werror "$f" >/dev/null 2>&1 || bad+=("$f")
done
if ((${#bad[@]})); then
  echo "not clang-formatted (${#bad[@]} files): ${bad[*]}"
  echo "fix: clang-format -i ${bad[*]}"
  exit 1
fi
echo "clang-format: ${#files[@]} files clean"
