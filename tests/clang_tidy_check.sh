#!/usr/bin/env bash
# clang-tidy's bug-prone and performance checks (the repo's .clang-tidy, each disabled check
# justified there) on every library source; fails on any finding in our own files.
# Usage: clang_tidy_check.sh REPO BUILD_DIR (a build configured with compile_commands.json).
set -euo pipefail
repo=$1 build=$2
command -v clang-tidy >/dev/null || { echo "clang-tidy not installed (scripts/setup installs it)"; exit 77; }
[[ -f $build/compile_commands.json ]] || { echo "no $build/compile_commands.json"; exit 1; }
# tinygltf_impl.cpp only instantiates tinygltf (third-party code).
mapfile -t files < <(cd "$repo" && ls src/*/*.cpp | grep -v tinygltf_impl.cpp)
log=$(mktemp)
trap 'rm -f "$log"' EXIT
jobs=$(nproc 2>/dev/null || echo 2)
printf '%s\n' "${files[@]}" | xargs -P "$jobs" -I{} clang-tidy -quiet -p "$build" "$repo/{}" >"$log" 2>/dev/null || true
findings=$(grep -E "^$repo/(src|include)/.*(warning|error):" "$log" | sort -u || true)
if [[ -n $findings ]]; then
  echo "$findings"
  echo "clang-tidy: $(wc -l <<<"$findings") finding(s)"
  exit 1
fi
echo "clang-tidy: ${#files[@]} files, no findings"
