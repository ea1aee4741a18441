#!/usr/bin/env bash
# arc's lag guard on hair a collider holds (docs/solver.md, "The lag guard"): godette's front
# chains rest against its head and chest spheres. With every stiffness x0.8 the usual solver
# throws them past 90 deg in the UAL Roll clip; arc's guard leaves a held link to the collider
# unless its chain is thrown (its chord past the guard's angle), and then holds it too. Checks, in
# `measure --suite`'s JSON: parent flips past 85 deg in the Roll (the motion does throw the hair)
# and arc's largest flip there is under 60 deg (75.3 when held links were never guarded); and
# arc's head-turn figures are those with the guard off (`--arc-max-lag 180`): it throws nothing.
#   flip_check.sh CLI WORKDIR SHARED_DATA     (exit 77 without ../shared/data)
set -euo pipefail
cli=$1 work=$2 shared=$3
ual=$shared/animations/ual1/AnimationLibrary_Godot_Standard.gltf
avatar=$shared/avatars/godette.vrm
if [[ ! -f $ual || ! -f $avatar ]]; then
  echo "flip_check: skipped: needs $avatar and $ual (../shared/data)"
  exit 77
fi
rm -rf "$work" && mkdir -p "$work" && cd "$work"
"$cli" measure "$avatar" --suite --suite-clips "$ual" --suite-seconds 6 --stiffness-scale 0.8 \
  --solver arc,parent --fps 60 --json m.json --force >m.txt
"$cli" measure "$avatar" --stiffness-scale 0.8 --solver arc --fps 60 --arc-max-lag 180 \
  --json free.json --force >free.txt
python3 - <<'PY'
import json
m = json.load(open('m.json'))
roll = {r['solver']: r for r in m['suite'] if r['motion'].startswith('Roll')}
print(f"Roll, stiffness x0.8: largest flip arc {roll['arc']['flip_deg']:.1f} deg, parent {roll['parent']['flip_deg']:.1f}")
assert roll['parent']['flip_deg'] > 85.0, ('the Roll must throw the hair', roll['parent']['flip_deg'])
assert roll['arc']['flip_deg'] < 60.0, ('arc thrown over the head', roll['arc']['flip_deg'])
head = [r for r in m['results'] if r['solver'] == 'arc' and r['fps'] == 60][0]
free = [r for r in json.load(open('free.json'))['results'] if r['solver'] == 'arc' and r['fps'] == 60][0]
for k in ('stretch_p99_excess_pct', 'stretch_worst_excess_pct', 'swing_rms_mm', 'flip_deg'):
    assert head[k] == free[k], ('head-turn changed by the guard', k, head[k], free[k])
PY
echo "flip_check: ok"
