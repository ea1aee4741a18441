#!/usr/bin/env bash
# Runs a node check from tests/parity (three.js + @pixiv/three-vrm from npm). Skips (77) without
# node, without tests/parity/node_modules, or when a file given with --needs is missing.
# Usage: node_check.sh REPO [--needs FILE]... SCRIPT.mjs ARGS...
set -euo pipefail
repo=$1
shift
while [[ ${1:-} == --needs ]]; do
  [[ -e $2 ]] || { echo "skipped: $2 not present"; exit 77; }
  shift 2
done
command -v node >/dev/null || { echo "skipped: node missing"; exit 77; }
[[ -d $repo/tests/parity/node_modules/@pixiv/three-vrm ]] ||
  { echo "skipped: tests/parity/node_modules missing (run scripts/setup)"; exit 77; }
cd "$repo/tests/parity"
exec node "$@"
