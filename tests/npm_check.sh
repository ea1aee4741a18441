#!/usr/bin/env bash
# Runs the npm package's node tests (web/hairswing-three/test/NAME.test.mjs ...) with node's own
# test runner. Skips (77) when the WebAssembly module or the npm packages are missing.
# Usage: npm_check.sh REPO CLI NAME...
set -euo pipefail
repo=$1 cli=$2
shift 2
pkg=$repo/web/hairswing-three
command -v node >/dev/null || { echo "skipped: node missing"; exit 77; }
if [[ ! -f $pkg/wasm/hairswing.wasm ]]; then
  echo "skipped: $pkg/wasm/hairswing.wasm missing (run scripts/build-wasm)"
  exit 77
fi
if [[ ! -d $repo/tests/parity/node_modules/@pixiv/three-vrm ]]; then
  echo "skipped: tests/parity/node_modules missing (run scripts/setup)"
  exit 77
fi
files=()
for name in "$@"; do files+=("$pkg/test/$name.test.mjs"); done
cd "$pkg"
HAIRSWING_CLI=$cli exec node --test "${files[@]}"
