#!/usr/bin/env bash
# clang-tidy's bug-prone and performance checks (the repo's .clang-tidy, each disabled check
# justified there) on every library source; fails on any finding in our own files.
# Usage: clang_tidy_check.sh REPO BUILD_DIR (a build configured with compile_commands.json).
#
# It checks the translation units the build compiles: with HAIRSWING_UNITY_BUILD a module's
# sources are one batch file that includes them (CMake writes it under the build directory), so
# the standard library, glm and JSON headers are parsed once per module instead of once per file
# (most of clang-tidy's time). A finding in a source the batch includes is reported at that
# source's own path (.clang-tidy's HeaderFilterRegex covers src/). Every library source must be
# checked, on its own or through a batch: the script fails when one is in neither.
set -euo pipefail
repo=$1 build=$2
command -v clang-tidy >/dev/null || { echo "clang-tidy not installed (scripts/setup installs it)"; exit 77; }
repo=$(cd "$repo" && pwd)
build=$(cd "$build" && pwd)
db=$build/compile_commands.json
[[ -f $db ]] || { echo "no $db"; exit 1; }
# tinygltf_impl.cpp only instantiates tinygltf (third-party code).
mapfile -t sources < <(cd "$repo" && ls src/*/*.cpp | grep -v tinygltf_impl.cpp)
# The library's units: its own sources compiled alone, and the batches of its modules.
mapfile -t units < <(grep -o '"file": "[^"]*"' "$db" | sed 's/^"file": "//; s/"$//' |
  grep -E "^($repo/src/[^/]+/[^/]+\.cpp|$build/src/CMakeFiles/hairswing_[a-z]+\.dir/Unity/unity_[0-9]+_cxx\.cxx)$" |
  grep -v tinygltf_impl.cpp | sort -u)
missing=()
for s in "${sources[@]}"; do
  if ! printf '%s\n' "${units[@]}" | grep -qxF "$repo/$s" &&
     ! grep -qsF "\"$repo/$s\"" $(printf '%s\n' "${units[@]}" | grep '\.cxx$'); then
    missing+=("$s")
  fi
done
if (( ${#missing[@]} )); then
  echo "clang-tidy: not in $db (alone or in a batch): ${missing[*]}"
  exit 1
fi
log=$(mktemp)
trap 'rm -f "$log"' EXIT
jobs=$(nproc 2>/dev/null || echo 2)
printf '%s\n' "${units[@]}" | xargs -P "$jobs" -I{} clang-tidy -quiet -p "$build" {} >"$log" 2>/dev/null || true
findings=$(grep -E "^$repo/(src|include)/.*(warning|error):" "$log" | sort -u || true)
if [[ -n $findings ]]; then
  echo "$findings"
  echo "clang-tidy: $(wc -l <<<"$findings") finding(s)"
  exit 1
fi
echo "clang-tidy: ${#sources[@]} library sources in ${#units[@]} translation units, no findings"
