#!/usr/bin/env bash
# `hairswing bake` played back in three.js (tests/parity/bake_playback.mjs). Skips (77) without
# node, the npm packages of tests/parity or the UAL clip library in ../shared/data.
# Usage: bake_playback_check.sh REPO CLI WORKDIR
set -euo pipefail
repo=$1 cli=$2 work=$3
ual=$repo/../shared/data/animations/ual1/AnimationLibrary_Godot_Standard.gltf
command -v node >/dev/null || { echo "skipped: node missing"; exit 77; }
[[ -d $repo/tests/parity/node_modules/three ]] || { echo "skipped: tests/parity/node_modules missing (run scripts/setup)"; exit 77; }
[[ -f $ual ]] || { echo "skipped: $ual not present"; exit 77; }
cd "$repo/tests/parity"
exec node bake_playback.mjs "$cli" "$work" "$ual" "$repo/../shared/data/avatars/godette.vrm"
