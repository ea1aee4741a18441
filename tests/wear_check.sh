#!/usr/bin/env bash
# hairswing wear, end to end (docs/wear.md): one hairstyle on the demo avatar and back with
# --undo bit for bit, one-line errors with exit 2, and (with ../shared/data) the library manifest
# docs/examples/hairstyles.json on the frog and the UBC female: every pair worn, none with hair
# inside the head, a contact sheet of the right size.
#   wear_check.sh CLI WORKDIR SHARED_DATA REPO
set -euo pipefail
cli=$1 work=$2 shared=$3 repo=$4
fail() { echo "FAIL: $*" >&2; exit 1; }
rm -rf "$work" && mkdir -p "$work" && cd "$work"
"$cli" make-demo-avatar --variant layered -o layered.vrm >/dev/null
"$cli" make-demo-avatar --variant ponytail -o ponytail.vrm >/dev/null

# The layered demo's hair on the ponytail demo, with chains; then undone.
"$cli" wear layered.vrm --hair HairLayers --on ponytail.vrm -o worn.vrm --fit-chains \
  --report worn.json --preview worn.png > worn.out
grep -q 'hid the target.s own hair: mesh "Ponytail"' worn.out || fail "own hair not hidden: $(cat worn.out)"
python3 - worn.json worn.png <<'PY'
import json, struct, sys
r = json.load(open(sys.argv[1]))
assert r["inside"] == 0 and r["inside_after_placement"] > 0, r
assert r["chains"] > 0 and r["show_through"] == 0, r
png = open(sys.argv[2], 'rb').read()
w, h = struct.unpack('>II', png[16:24])
assert (w, h) == (768, 384), (w, h)
PY
"$cli" wear --undo --on worn.vrm -o undone.vrm > undo.out
"$cli" convert ponytail.vrm -o ponytail-again.vrm >/dev/null
cmp -s undone.vrm ponytail-again.vrm || fail "--undo did not restore the target bit for bit"

# Errors: one line, exit 2.
expect_error() {  # expect_error WORDS... -- ARGS...
  local want=$1; shift
  set +e; "$cli" "$@" > err.out 2> err.txt; local rc=$?; set -e
  [[ $rc == 2 ]] || fail "$* exited $rc: $(cat err.txt)"
  [[ $(wc -l < err.txt) == 1 ]] || fail "$*: not one line: $(cat err.txt)"
  grep -q "$want" err.txt || fail "$*: no '$want' in: $(cat err.txt)"
}
expect_error "whole character" wear layered.vrm --on ponytail.vrm -o x.vrm
expect_error "no worn hairstyle" wear --undo --on ponytail.vrm -o x.vrm
expect_error "already wears" wear layered.vrm --hair HairLayers --on worn.vrm -o x.vrm
expect_error "no mesh named" wear layered.vrm --hair Hairlayer --on ponytail.vrm -o x.vrm
[[ ! -e x.vrm ]] || fail "a failed wear wrote its output"

# A manifest is input too: a hairstyle name that would put a worn file outside --out, names that
# would overwrite each other, a field of the wrong type, two targets of the same name - each
# refused in one line before anything is written.
mkdir -p lib-in && cp layered.vrm lib-in/h.vrm
printf '{"hairstyles": [{"file": "h.vrm", "name": "../../escaped", "hair": "HairLayers"}]}' > lib-in/up.json
expect_error "not a plain file name" wear --library lib-in/up.json --on ponytail.vrm --out lib-up
printf '{"hairstyles": [{"file": "h.vrm", "name": "a/b"}]}' > lib-in/slash.json
expect_error "not a plain file name" wear --library lib-in/slash.json --on ponytail.vrm --out lib-up
printf '{"hairstyles": [{"file": "h.vrm"}, {"file": "./h.vrm"}]}' > lib-in/twice.json
expect_error "two hairstyles are named" wear --library lib-in/twice.json --on ponytail.vrm --out lib-up
printf '{"hairstyles": [{"file": "h.vrm", "hair": 3}]}' > lib-in/type.json
expect_error '"hair" must be a string' wear --library lib-in/type.json --on ponytail.vrm --out lib-up
mkdir -p other && cp ponytail.vrm other/ponytail.vrm
printf '{"hairstyles": [{"file": "h.vrm", "hair": "HairLayers"}]}' > lib-in/ok.json
expect_error "have the same name" wear --library lib-in/ok.json --on ponytail.vrm --on other/ponytail.vrm --out lib-up
[[ ! -e lib-up && ! -e ../escaped-on-ponytail.vrm && ! -e ../../escaped-on-ponytail.vrm ]] ||
  fail "a refused library run wrote something"
# Files of the same name in two subfolders get names of their own, none that a third file's own
# name already has (c/h-2.vrm keeps "h-2"; b/h.vrm becomes "h-3").
mkdir -p lib-dup/a lib-dup/b lib-dup/c && cp layered.vrm lib-dup/a/h.vrm && cp layered.vrm lib-dup/b/h.vrm
cp layered.vrm lib-dup/c/h-2.vrm
rc=0
"$cli" wear --library lib-dup --on ponytail.vrm --out lib-dup-out --tile 32 > dup.out 2>&1 || rc=$?
[[ -e lib-dup-out/h-on-ponytail.vrm && -e lib-dup-out/h-2-on-ponytail.vrm ]] ||
  fail "same-named files in two subfolders: $(ls lib-dup-out) (exit $rc) $(tail -3 dup.out)"
[[ -e lib-dup-out/h-3-on-ponytail.vrm ]] ||
  fail "a renamed file took another file's own name: $(ls lib-dup-out) (exit $rc)"

if [[ ! -d "$shared/targets" || ! -d "$shared/hairstyles" ]]; then
  echo "wear_check: ../shared/data/targets or hairstyles not present; library part skipped"
  exit 0
fi
"$cli" wear --library "$repo/docs/examples/hairstyles.json" --on "$shared/targets/Frog.glb" \
  --on "$shared/avatars/ubc/Superhero_Female_FullBody.gltf" --out lib --fit-chains --tile 64 > lib.out
python3 - lib <<'PY'
import json, struct, sys
d = json.load(open(sys.argv[1] + "/wear.json"))
assert d["failed"] == 0 and d["worn"] == 32, (d["failed"], d["worn"])
for p in d["pairs"]:
    assert p["inside"] == 0 and p["show_through"] == 0, p
png = open(sys.argv[1] + "/contact-sheet.png", 'rb').read()
w, h = struct.unpack('>II', png[16:24])
assert (w, h) == (2 * 2 * 64, 16 * 64), (w, h)
PY
# The UBC hair-only files without the characters they were made for: the eyebrows and the beard
# do not wrap around a head and fail (exit 1); the sheet keeps the four rows that were worn.
rc=0
"$cli" wear --library "$shared/hairstyles/ubc-unrigged" \
  --on "$shared/avatars/ubc/Superhero_Female_FullBody.gltf" --out unrigged --tile 32 > unrigged.out || rc=$?
[[ $rc == 1 ]] || fail "wear --library with failing pairs: exit $rc, expected 1"
grep -q "left out of the sheet (worn on no target): Eyebrows_Female, Eyebrows_Regular, Hair_Beard" \
  unrigged.out || fail "the rows left out are not named: $(tail -2 unrigged.out)"
python3 - unrigged <<'PY'
import json, struct, sys
d = json.load(open(sys.argv[1] + "/wear.json"))
assert d["worn"] == 4 and d["failed"] == 3, (d["worn"], d["failed"])
assert d["rows_left_out"] == ["Eyebrows_Female", "Eyebrows_Regular", "Hair_Beard"], d["rows_left_out"]
assert len(d["rows"]) == 4, d["rows"]
png = open(sys.argv[1] + "/contact-sheet.png", 'rb').read()
w, h = struct.unpack('>II', png[16:24])
assert (w, h) == (2 * 32, 4 * 32), (w, h)
PY
# On a VRM 0.x target the worn file keeps the fitted chains' cones only in its bone groups'
# extras: the library reports that once, and per file in wear.json, not as a warning per file.
if [[ -f "$shared/avatars/godette.vrm" ]]; then
  printf '{"hairstyles": [{"file": "%s", "hair": "material:Hair"}]}\n' \
    "$shared/hairstyles/quaternius-modular/men_Casual2.glb" > one.json
  "$cli" wear --library one.json --on "$shared/avatars/godette.vrm" --out on0 --fit-chains \
    --no-measure --tile 32 > on0.out 2> on0.err
  grep -q '1 worn file has warnings on what its format could not hold' on0.out ||
    fail "no summary of the write warnings: $(tail -2 on0.out)"
  ! grep -q 'angle limits' on0.err || fail "write warnings printed per file: $(cat on0.err)"
  python3 - on0 <<'PY'
import json, sys
d = json.load(open(sys.argv[1] + "/wear.json"))
w = d["pairs"][0].get("write_warnings", [])
assert any("angle limits" in x and "extras" in x for x in w), w
PY
fi
echo "wear_check: ok"
