#!/usr/bin/env bash
# `hairswing wear --library` names its contact sheet: contact-sheet.html, opened in headless
# Chromium (web/report/check_contact_sheet.mjs), shows every worn pair's two tiles under its
# target's and hairstyle's names, cut from the right place of contact-sheet.png, each linking to
# the worn file, and says which pairs failed. A screenshot is kept for people to look at.
# Exit 77 (skip) without a browser or without ../shared/data.
#   contact_sheet_check.sh HAIRSWING_CLI WORKDIR SHARED_DATA REPO_ROOT
set -euo pipefail
cli=$1 work=$2 shared=$(realpath -m "$3") root=$4
if [[ ! -x /usr/bin/chromium || ! -d "$root/web/report/node_modules/playwright-core" ]] || ! command -v node >/dev/null; then
  echo "skip: needs /usr/bin/chromium, node and web/report/node_modules (scripts/setup installs them)"
  exit 77
fi
if [[ ! -d "$shared/hairstyles/ubc-unrigged" || ! -f "$shared/targets/Frog.glb" ]]; then
  echo "skip: needs the UBC hairstyles and the frog in $shared"
  exit 77
fi
rm -rf "$work" && mkdir -p "$work" && cd "$work"
# The UBC hair-only files on the frog, the demo ponytail and a file with no head: the eyebrows
# and the beard fail everywhere (they do not wrap around a head without the character they were
# made for) and are left out; every pair on the headless file fails and says so in its cells.
"$cli" make-demo-avatar --variant ponytail -o ponytail.vrm >/dev/null
rc=0
"$cli" wear --library "$shared/hairstyles/ubc-unrigged" --on "$shared/targets/Frog.glb" \
  --on ponytail.vrm --on "$shared/fixtures/three-vrm/sphere-collider.gltf" --fit-chains --tile 80 --out sheet > wear.out || rc=$?
[[ $rc == 1 ]] || { echo "FAIL: wear --library exit $rc, expected 1 (failed pairs)"; exit 1; }
grep -q "named in sheet/contact-sheet.html" wear.out || { echo "FAIL: the page is not announced: $(tail -2 wear.out)"; exit 1; }
node "$root/web/report/check_contact_sheet.mjs" sheet "$work/contact-sheet.png" | tee check.out
grep -q '"failed":4' check.out || { echo "FAIL: expected 4 failed cells (the headless target)"; exit 1; }
echo "contact sheet screenshot: $work/contact-sheet.png"
