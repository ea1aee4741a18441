#!/usr/bin/env bash
# Hair worn on another character among colliders made for the character's own hair
# (docs/solver.md, "The lag guard"; docs/fit.md, "Colliders the hair lies in"). Two Quaternius
# cuts worn on godette with --fit-chains, their angle limits taken off (tune --limit none):
#   - men_Adventurer's back chains start inside godette's 21.7 cm chest sphere, which moves
#     against the head the hair hangs from: the fitted springs must leave it out ("round the
#     root"; women_Suit's nape chain flipped 102.7 deg with p99 excess stretch 92 % in the
#     head-turn when the sphere squeezed its first segment at every turn of the head);
#   - women_Suit's head-turn in arc: flip under 60 deg, p99 excess stretch under 30 %;
#   - in the motion suite's Roll the usual solver throws both cuts past 90 deg; arc's largest
#     flip there must stay under 60 (women_Suit 128, men_Adventurer 147 while the guard left a
#     chain that lies on a collider to the collider: straight chains wrapped over the head sphere).
#   worn_flip_check.sh CLI WORKDIR SHARED_DATA     (exit 77 without ../shared/data)
set -euo pipefail
cli=$1 work=$2 shared=$(realpath -m "$3")
ual=$shared/animations/ual1/AnimationLibrary_Godot_Standard.gltf
godette=$shared/avatars/godette.vrm
cuts=$shared/hairstyles/quaternius-modular
if [[ ! -f $ual || ! -f $godette || ! -f $cuts/women_Suit.glb || ! -f $cuts/men_Adventurer.glb ]]; then
  echo "worn_flip_check: skipped: needs godette, the UAL clips and the Quaternius cuts in $shared"
  exit 77
fi
rm -rf "$work" && mkdir -p "$work" && cd "$work"
"$cli" wear "$cuts/women_Suit.glb" --hair material:Hair_Blond,material:Hair_Brown --fit-chains \
  --on "$godette" -o women_Suit.vrm --report women_Suit.json >women_Suit.txt 2>&1
"$cli" wear "$cuts/men_Adventurer.glb" --hair material:Hair --fit-chains --on "$godette" \
  -o men_Adventurer.vrm --report men_Adventurer.json >men_Adventurer.txt 2>&1
# The fitter's cone limits bound every solver's flip (VRM 0.x keeps them in its bone groups'
# extras for hairswing): the lag guard is what holds arc where a chain has none, as in a runtime
# without the extension or a file whose author gave none. So the cuts are measured without them.
for cut in women_Suit men_Adventurer; do
  "$cli" tune $cut.vrm --all --limit none -o $cut.free.vrm >/dev/null 2>&1
  mv $cut.free.vrm $cut.vrm
done
"$cli" measure women_Suit.vrm --fps 60 --solver arc,parent --json women_Suit-turn.json >/dev/null
for cut in women_Suit men_Adventurer; do
  "$cli" measure $cut.vrm --suite --suite-clips "$ual" --fps 60 --solver arc,parent \
    --json $cut-suite.json >/dev/null
done
python3 - <<'PY'
import json

def strings(o):
    if isinstance(o, str):
        yield o
    elif isinstance(o, dict):
        for v in o.values():
            yield from strings(v)
    elif isinstance(o, list):
        for v in o:
            yield from strings(v)

def by_solver(path):
    return {r['solver']: r for r in json.load(open(path))['results']}

left = [s for s in strings(json.load(open('men_Adventurer.json'))) if 'round the root' in s]
assert any('chest' in s for s in left), ('the chest sphere round the roots is still on the springs', left)
turn = by_solver('women_Suit-turn.json')['arc']
print(f"women_Suit on godette, head-turn, arc: flip {turn['flip_deg']:.1f} deg, "
      f"p99 excess stretch {turn['stretch_p99_excess_pct']:.1f} %")
assert turn['flip_deg'] < 60.0, ('head-turn flip', turn['flip_deg'])
assert turn['stretch_p99_excess_pct'] < 30.0, ('head-turn stretch', turn['stretch_p99_excess_pct'])
for cut in ('women_Suit', 'men_Adventurer'):
    roll = {r['solver']: r for r in json.load(open(f'{cut}-suite.json'))['suite'] if r['motion'] == 'Roll'}
    assert set(roll) == {'arc', 'parent'}, ('the suite has no Roll', cut, sorted(roll))
    print(f"{cut} on godette, Roll: largest flip arc {roll['arc']['flip_deg']:.1f} deg, "
          f"parent {roll['parent']['flip_deg']:.1f}")
    assert roll['parent']['flip_deg'] > 90.0, ('the Roll must throw the hair', cut, roll['parent']['flip_deg'])
    assert roll['arc']['flip_deg'] < 60.0, ('arc thrown over the head', cut, roll['arc']['flip_deg'])
PY
echo "worn_flip_check: ok"
