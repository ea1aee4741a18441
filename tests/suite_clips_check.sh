#!/usr/bin/env bash
# `measure --suite --suite-clips LIBRARY` with a library that is not the UAL one (docs/measure.md,
# "The motion suite"): a library without some of the standard clips runs the ones it has and says
# which are missing; one with none of them runs its own clips and says so; the default library
# must have them all. Checks, in the JSON and the table:
#   1. the UAL library with Walk_Loop and Roll renamed (a studio's own names): the suite runs the
#      other five standard clips (not the renamed two), and suite_notes names the two missing;
#   2. the VRM Animation of ../shared/data (one unnamed clip, no standard name): the suite runs
#      that clip ("clip 0") and the note says the library's own clips ran.
#   suite_clips_check.sh CLI WORKDIR SHARED_DATA     (exit 77 without ../shared/data)
set -euo pipefail
cli=$1 work=$2 shared=$3
ual=$shared/animations/ual1/AnimationLibrary_Godot_Standard.gltf
vrma=$shared/animations/handmade-test.vrma
if [[ ! -f $ual || ! -f $vrma ]]; then
  echo "suite_clips_check: skipped: needs $ual and $vrma (../shared/data)"
  exit 77
fi
rm -rf "$work" && mkdir -p "$work" && cd "$work"
"$cli" make-demo-avatar --variant ponytail -o demo.vrm --force >/dev/null
# The library renamed, in this work folder beside a copy of its buffer (a test input made here).
cp "$(dirname "$ual")"/AnimationLibrary_Godot_Standard.bin .
python3 - "$ual" <<'PY'
import json, sys
g = json.load(open(sys.argv[1]))
renamed = {'Walk_Loop': 'Studio_Walk', 'Roll': 'Studio_Roll'}
for a in g['animations']:
    a['name'] = renamed.get(a.get('name'), a.get('name'))
json.dump(g, open('studio.gltf', 'w'))
PY
"$cli" measure demo.vrm --fps 60 --solver arc --suite --suite-seconds 2 --suite-clips studio.gltf \
  --json studio.json --force >studio.txt
grep -q 'lacks Walk_Loop, Roll' studio.txt || { cat studio.txt; echo "suite_clips_check: no note in the table"; exit 1; }
"$cli" measure demo.vrm --fps 60 --solver arc --suite --suite-seconds 2 --suite-clips "$vrma" \
  --json vrma.json --force >vrma.txt
python3 - <<'PY'
import json
s = json.load(open('studio.json'))
motions = [r['motion'] for r in s['suite']]
print('studio library:', motions, s['suite_notes'])
assert motions == ['head-turn', 'Idle_Loop', 'Jog_Fwd_Loop', 'Sprint_Loop', 'Jump_Start', 'Dance_Loop'], motions
assert any('Walk_Loop, Roll' in n for n in s['suite_notes']), s['suite_notes']
assert all(r['swing_rms_mm'] > 0 for r in s['suite']), 'every clip moves the hair'
v = json.load(open('vrma.json'))
motions = [r['motion'] for r in v['suite']]
print('VRM Animation:', motions, v['suite_notes'])
assert motions == ['head-turn', 'clip 0'], motions
assert any('none of the standard suite clips' in n for n in v['suite_notes']), v['suite_notes']
assert v['motion'] == 'head-turn'
PY
echo "suite_clips_check: ok"
