#!/usr/bin/env bash
# The WebAssembly build gives bitwise the native solver's results: for both demo avatars, the
# layered one with angle limits and with gravity, and godette (when ../shared is present), in every mode, `hairswing hash` (native, 60 fps) and
# web/hairswing-three/bin/hairswing-hash.mjs (WebAssembly in node, 30 and 120 fps) must print the
# same 16 hex digits. Skips (77) when the module was not built (scripts/build-wasm).
# Usage: wasm_hash_check.sh REPO CLI WORKDIR
set -euo pipefail
repo=$1 cli=$2 work=$3
hash_js=$repo/web/hairswing-three/bin/hairswing-hash.mjs
if [[ ! -f $repo/web/hairswing-three/wasm/hairswing.wasm ]]; then
  echo "skipped: web/hairswing-three/wasm/hairswing.wasm missing (run scripts/build-wasm)"
  exit 77
fi
command -v node >/dev/null || { echo "skipped: node missing"; exit 77; }
rm -rf "$work" && mkdir -p "$work"
files=()
for v in ponytail layered; do
  "$cli" make-demo-avatar --variant $v -o "$work/$v.vrm" >/dev/null
  files+=("$work/$v.vrm")
done
# Angle limits (docs/tune.md): cones on most chains, a hinge and a spherical limit on two.
"$cli" tune "$work/layered.vrm" --all --limit cone:15 -o "$work/limited1.vrm" >/dev/null
"$cli" tune "$work/limited1.vrm" --chain hair_0 --limit hinge:20:z -o "$work/limited2.vrm" >/dev/null
"$cli" tune "$work/limited2.vrm" --chain hair_1 --limit spherical:30,10 -o "$work/limited.vrm" >/dev/null
files+=("$work/limited.vrm")
# Gravity (arc turns each chain's arc on its own, the lanes with a frame each): every chain pulled
# down, one sideways and harder.
"$cli" tune "$work/layered.vrm" --all --gravity-power 0.6 -o "$work/gravity1.vrm" >/dev/null
"$cli" tune "$work/gravity1.vrm" --chain hair_0 --gravity-power 1.5 --gravity-dir 1,0,0 -o "$work/gravity.vrm" >/dev/null
files+=("$work/gravity.vrm")
godette=$repo/../shared/data/avatars/godette.vrm
if [[ -f $godette ]]; then files+=("$godette"); else echo "note: $godette absent, not compared"; fi
bad=0
for f in "${files[@]}"; do
  for m in arc parent vrm; do
    native=$("$cli" hash "$f" --solver $m --fps 60)
    for fps in 30 120; do
      wasm=$(node "$hash_js" "$f" --solver $m --fps $fps)
      if [[ $native != "$wasm" ]]; then
        echo "MISMATCH $(basename "$f") $m: native $native, wasm at $fps fps $wasm"
        bad=1
      fi
    done
    echo "$(basename "$f") $m $native"
  done
done
[[ $bad == 0 ]] && echo "wasm: every hash equals the native one"
exit $bad
