#!/usr/bin/env bash
# `fit --reweight-roots --report` (docs/fit.md, "Root re-weighting"): the JSON report gives per
# chain the root bend's cost before and after, every joint's cost and the head's share of the
# chain's vertex weight before and after; the text says the share and warns above one half.
# Checked on the layered demo (12 chains of 5 segments, a 1 cm blend at each root) at widths 2
# and 4: the cost falls and the share rises with the width (3 -> 21 -> 43-47 %, no warning); a
# haircut hairswing fitted is kept with a hint at `fit --root-ramp`; and, with ../shared/data, on
# godette at width 3, whose short front chains pass one half (warned).
#   reweight_report_check.sh CLI WORKDIR [SHARED_DATA]
set -euo pipefail
cli=$1 work=$2 shared=${3:-}
rm -rf "$work" && mkdir -p "$work" && cd "$work"
"$cli" make-demo-avatar --variant layered -o demo.vrm --force >/dev/null
"$cli" make-demo-avatar --variant ponytail -o demo-ponytail.vrm --force >/dev/null
for w in 2 4; do
  "$cli" fit demo.vrm --reweight-roots --reweight-segments $w -o rw$w.vrm --force --report rw$w.json >rw$w.txt
done
grep -q 'the head carries 3 -> ' rw2.txt || { cat rw2.txt; echo "reweight_report_check: no head share in the text"; exit 1; }
if grep -q 'more than half' rw2.txt rw4.txt; then echo "reweight_report_check: the demo warned"; exit 1; fi
python3 - <<'PY'
import json
two = json.load(open('rw2.json'))['reweight']
four = json.load(open('rw4.json'))['reweight']
assert len(two) == 12 and len(four) == 12, (len(two), len(four))
for a, b in zip(two, four):
    assert a['chain'] == b['chain']
    assert a['root_cost_pct_per_deg_after'] < a['root_cost_pct_per_deg_before'], a
    assert len(a['joint_cost_pct_per_deg']) == 5, a
    assert a['joint_cost_pct_per_deg'][0] == a['root_cost_pct_per_deg_after'], a
    assert 0 < a['head_share_before'] < a['head_share_after'] < b['head_share_after'] <= 1, (a, b)
    assert a['head_share_before'] == b['head_share_before'], (a, b)
print('head share at widths 2 / 4:', round(two[0]['head_share_after'], 3), round(four[0]['head_share_after'], 3))
PY
# A haircut hairswing fitted (the demo ponytail fitted again): its blend is the fitter's root
# ramp, wider than one segment, so the chain is kept, and the text says where it is widened.
"$cli" fit demo-ponytail.vrm --hair Ponytail -o refit.vrm --force >/dev/null
"$cli" fit refit.vrm --reweight-roots -o refit-rw.vrm --force >refit-rw.txt
grep -q 'kept (blend .*fitted by hairswing: fit the source again with a larger --root-ramp' refit-rw.txt ||
  { cat refit-rw.txt; echo "reweight_report_check: a fitted chain kept without the --root-ramp hint"; exit 1; }
if grep -q 'root-ramp' rw2.txt; then echo "reweight_report_check: an artist rig got the fitter's hint"; exit 1; fi
if [[ -n $shared && -f $shared/avatars/godette.vrm ]]; then
  "$cli" fit "$shared/avatars/godette.vrm" --reweight-roots --reweight-segments 3 -o godette.vrm --force >godette.txt
  grep -q '"FrontHair_L": .*carries 22 -> 73 %.*more than half' godette.txt ||
    { cat godette.txt; echo "reweight_report_check: godette's front hair not warned"; exit 1; }
else
  echo "reweight_report_check: godette part skipped (no ../shared/data)"
fi
echo "reweight_report_check: ok"
