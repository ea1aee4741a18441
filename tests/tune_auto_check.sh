#!/usr/bin/env bash
# hairswing tune --auto, end to end (docs/tune.md): on the ponytail demo with a budget the author's
# settings break on some chains and keep on others, every chain reported as met is within the
# budget when `measure --suite` measures the written file on its own; where the author's setting
# was within the budget the chosen one swings at least as much; the stiffness in the file is the
# author's times the reported factor; --undo gives the file back bit for bit; a budget nothing
# meets exits 1 with NOT MET and still writes the best found; the vrm solver works too; mistakes
# are one line with exit 2.
#   tune_auto_check.sh CLI WORKDIR SHARED_DATA [sanitizers]
# sanitizers (the ASan/UBSan build, about ten times slower): the tuning for arc's follow setting and
# for the vrm solver are left out - the same search with other solver settings, which the normal
# build checks; they are 4.5 s of its 11 s here.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cli=$1 work=$2 shared=$3 mode=${4:-full}
fail() { echo "FAIL: $*" >&2; exit 1; }
[[ $mode == full || $mode == sanitizers ]] || fail "mode '$mode': full or sanitizers"
rm -rf "$work" && mkdir -p "$work" && cd "$work"
"$cli" make-demo-avatar --variant ponytail -o pony.vrm >/dev/null
"$cli" convert pony.vrm -o plain.vrm >/dev/null
secs=2  # each suite clip's run: short, the search is what is tested
suite_args=(--suite-seconds $secs)
[[ -f $shared/animations/ual1/AnimationLibrary_Godot_Standard.gltf ]] ||
  echo "note: the UAL clip library is absent: --auto measures the head-turn alone"

set +e
"$cli" tune pony.vrm --auto --max-stretch 15 "${suite_args[@]}" --report auto.json -o auto.vrm > auto.out 2> auto.err
rc=$?
set -e
[[ $rc == 0 || $rc == 1 ]] || fail "tune --auto exit $rc: $(cat auto.err)"
grep -q '^auto-tune (arc solver, budget 15 %' auto.out || fail "no table: $(cat auto.out)"
"$cli" tune auto.vrm --list --json > after.json
"$cli" tune pony.vrm --list --json > before.json
# The independent check: measure the written file (a separate command) over the same motions.
if [[ -f $shared/animations/ual1/AnimationLibrary_Godot_Standard.gltf ]]; then
  "$cli" measure auto.vrm --solver arc --fps 60 --suite --suite-seconds $secs --json m.json --force >/dev/null
else
  "$cli" measure auto.vrm --solver arc --fps 60 --json m.json --force >/dev/null
fi
python3 - $rc <<'PY'
import json, sys
rc = int(sys.argv[1])
a = json.load(open('auto.json'))['auto']
before = {s['name']: s for s in json.load(open('before.json'))}
after = {s['name']: s for s in json.load(open('after.json'))}
m = json.load(open('m.json'))
names = m['chain_names']
rows = m.get('suite') or m['results']
def measured_excess(name):
    i = names.index(name)
    vals = [r['stretch_p99_excess_per_chain_pct'][i] for r in rows if r['solver'] == 'arc']
    vals = [v for v in vals if v is not None]
    return max(vals) if vals else None
assert a['all_met'] == all(c['met'] for c in a['chains'])
assert (rc == 0) == a['all_met'], ('exit code', rc, a['all_met'])
kinds = set()
for c in a['chains']:
    n = c['spring']
    f = c['stiffness_factor']
    assert 0.5 - 1e-6 <= f <= 4 + 1e-6, c
    # The file holds the author's stiffness times the factor, on every joint.
    for jb, ja in zip(before[n]['joints'], after[n]['joints']):
        assert abs(ja['stiffness'] - jb['stiffness'] * f) <= 1e-5 * max(1, jb['stiffness'] * f), (n, jb, ja, f)
    got = measured_excess(n)
    if c['met'] and got is not None:
        assert got <= 15 + 1e-3, ('met but measured', n, got)
        assert abs(got - c['excess_p99_after_pct']) < 1e-3, ('report vs measure', n, got, c)
    within_before = c['excess_p99_before_pct'] <= 15
    kinds.add('kept' if within_before else 'over')
    if within_before:  # the author's setting was a candidate: nothing swinging less was chosen
        assert c['swing_rms_after_mm'] >= c['swing_rms_before_mm'] - 1e-6, c
    assert c['trials'] and c['why'], c
assert kinds == {'kept', 'over'}, ('the budget should split the chains', kinds)
print('auto-tune:', len(a['chains']), 'chains,', a['rounds'], 'rounds,', sum(c['met'] for c in a['chains']), 'met')
PY

# Undo: the untuned file, byte for byte.
"$cli" tune auto.vrm --undo -o undone.vrm >/dev/null
cmp -s undone.vrm plain.vrm || fail "undo after --auto is not bit-exact"

# A budget nothing meets: exit 1, NOT MET, the best found written.
set +e
"$cli" tune pony.vrm --auto --max-stretch 0.1 --chain ponytail "${suite_args[@]}" -o tight.vrm > tight.out 2>&1
rc=$?
set -e
[[ $rc == 1 ]] || fail "an unmeetable budget exited $rc: $(cat tight.out)"
grep -q 'NOT MET' tight.out || fail "no NOT MET: $(cat tight.out)"
[[ -s tight.vrm ]] || fail "the best found was not written"

# Mistakes: exit 2, one line.
source "$here/expect_error.sh"
expect_error() { expect_cli_error tune "$@"; }
expect_error 'needs a budget' pony.vrm --auto -o x.vrm
expect_error "add --auto" pony.vrm --all --max-stretch 10 -o x.vrm
expect_error 'chooses stiffness' pony.vrm --auto --max-stretch 10 --stiffness 2 -o x.vrm
expect_error 'solver' pony.vrm --auto --max-stretch 10 --solver wobbly -o x.vrm
expect_error 'add --auto' pony.vrm --all --arc-setting follow -o x.vrm
expect_error 'setting of the arc solver' pony.vrm --auto --max-stretch 10 --solver vrm --arc-setting follow -o x.vrm
expect_error 'arc-setting' pony.vrm --auto --max-stretch 10 --arc-setting wobbly -o x.vrm
[[ ! -e x.vrm ]] || fail "an error left x.vrm behind"

# The follow and vrm tunings, last: the sanitizer build stops here (see the header).
if [[ $mode == sanitizers ]]; then
  echo "tune_auto_check: ok (without the follow and vrm tunings)"
  exit 0
fi

# Tuned for arc's follow setting: the measurement runs that setting (the ponytail at the author's
# stiffness stretches differently than with the default setting) and the report says so; the
# written file, measured with follow, has what the report says.
set +e
"$cli" tune pony.vrm --auto --max-stretch 15 --arc-setting follow --chain ponytail "${suite_args[@]}" \
  --report follow.json -o follow.vrm > follow.out 2>&1
rc=$?
set -e
[[ $rc == 0 || $rc == 1 ]] || fail "--arc-setting follow exit $rc: $(cat follow.out)"
if [[ -f $shared/animations/ual1/AnimationLibrary_Godot_Standard.gltf ]]; then
  "$cli" measure follow.vrm --solver arc --arc-setting follow --fps 60 --suite --suite-seconds $secs \
    --json mf.json --force >/dev/null
else
  "$cli" measure follow.vrm --solver arc --arc-setting follow --fps 60 --json mf.json --force >/dev/null
fi
python3 - <<'PY'
import json
f = json.load(open('follow.json'))['auto']
a = json.load(open('auto.json'))['auto']
assert f['arc_setting'] == 'follow' and a['arc_setting'] == 'article', (f['arc_setting'], a['arc_setting'])
cf = [c for c in f['chains'] if c['spring'] == 'ponytail'][0]
ca = [c for c in a['chains'] if c['spring'] == 'ponytail'][0]
assert abs(cf['excess_p99_before_pct'] - ca['excess_p99_before_pct']) > 0.5, (cf, ca)
m = json.load(open('mf.json'))
i = m['chain_names'].index('ponytail')
rows = m.get('suite') or m['results']
got = max(r['stretch_p99_excess_per_chain_pct'][i] for r in rows if r['solver'] == 'arc')
assert abs(got - cf['excess_p99_after_pct']) < 1e-3, ('report vs measure with follow', got, cf)
PY

# The vrm solver (three-vrm's): the table says so, the file loads.
set +e
"$cli" tune pony.vrm --auto --max-stretch 20 --solver vrm --chain 'bang_*' "${suite_args[@]}" -o vrm.vrm > vrm.out 2>&1
rc=$?
set -e
[[ $rc == 0 || $rc == 1 ]] || fail "--solver vrm exit $rc: $(cat vrm.out)"
grep -q '^auto-tune (vrm solver' vrm.out || fail "vrm table: $(cat vrm.out)"
"$cli" inspect vrm.vrm >/dev/null || fail "the vrm-tuned file does not load"
echo "tune_auto_check: ok"
