#!/usr/bin/env bash
# `measure --suite --suite-clips LIBRARY` with a library that is not the UAL one (docs/measure.md,
# "The motion suite"): a library without some of the standard clips runs the ones it has and says
# which are missing; one with none of them runs its own clips and says so; the default library
# must have them all. Checks, in the JSON and the table:
#   1. the UAL library with Walk_Loop and Roll renamed (a studio's own names): the suite runs the
#      other five standard clips (not the renamed two), and suite_notes names the two missing;
#   2. the VRM Animation of ../shared/data (one unnamed clip, no standard name): the suite runs
#      that clip ("clip 0") and the note says the library's own clips ran;
#   3. a creature (a rat wearing a fitted hairstyle: a head bone, no humanoid legs or arms): the
#      humanoid clips cannot drive it, so --suite fails with exit code 2 and says why and what to
#      run instead, and the same measure without --suite succeeds; tune --auto (whose default is
#      the suite) tunes over the head-turn alone and says why in its output and report.
#   suite_clips_check.sh CLI WORKDIR SHARED_DATA     (exit 77 without ../shared/data)
set -euo pipefail
cli=$1 work=$2 shared=$3
ual=$shared/animations/ual1/AnimationLibrary_Godot_Standard.gltf
vrma=$shared/animations/handmade-test.vrma
rat=$shared/targets/Rat.glb
hair=$shared/hairstyles/ubc-unrigged/Hair_Long.gltf
if [[ ! -f $ual || ! -f $vrma || ! -f $rat || ! -f $hair ]]; then
  echo "suite_clips_check: skipped: needs $ual, $vrma, $rat and $hair (../shared/data)"
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
# 3. A creature.
"$cli" wear "$hair" --on "$rat" --fit-chains -o rat.glb --force >/dev/null
rc=0
"$cli" measure rat.glb --fps 60 --solver arc --suite --suite-seconds 2 >rat.txt 2>rat.err || rc=$?
[[ $rc == 2 ]] || { cat rat.txt rat.err; echo "suite_clips_check: a creature with --suite: exit $rc, not 2"; exit 1; }
grep -q "cannot be retargeted onto this avatar: .*humanoid bones missing" rat.err &&
  grep -q "without --suite" rat.err ||
  { cat rat.err; echo "suite_clips_check: the creature's error does not say why or what to run"; exit 1; }
"$cli" measure rat.glb --fps 60 --solver arc >rat_head.txt ||
  { cat rat_head.txt; echo "suite_clips_check: the creature's head-turn failed"; exit 1; }
rc=0
"$cli" tune rat.glb --auto --max-stretch 10 --suite-seconds 2 --report rat_tune.json -o rat_tuned.glb \
  >rat_tune.txt 2>&1 || rc=$?
[[ $rc == 0 || $rc == 1 ]] || { cat rat_tune.txt; echo "suite_clips_check: tune --auto on a creature: exit $rc"; exit 1; }
grep -q "^note: the motion suite's humanoid clips cannot drive this avatar" rat_tune.txt ||
  { cat rat_tune.txt; echo "suite_clips_check: tune --auto does not say why it left the suite out"; exit 1; }
python3 - <<'PY'
import json
a = json.load(open('rat_tune.json'))['auto']
print('creature tune:', a['motions'], a['note'])
assert a['motions'] == ['head-turn'], a['motions']
assert 'cannot drive this avatar' in a['note'] and 'humanoid bones missing' in a['note'], a['note']
PY
echo "suite_clips_check: ok"
