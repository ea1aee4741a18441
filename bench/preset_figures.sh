#!/usr/bin/env bash
# The measured figures of docs/tune.md's preset table: each built-in preset (data/presets) applied
# to every chain of the layered demo avatar (12 chains to the shoulders and chest) and of the
# ponytail demo (a 6-joint ponytail and 7 short bangs), then `hairswing measure --suite --fps 60`
# (the head-turn and seven UAL clips; needs ../shared/data for the clips). Prints a markdown table:
# per avatar and solver the head-turn swing (tip lag rms, mm), excess p99 stretch (%), curl (deg),
# and over the whole suite the median excess p99, median swing and the largest flip (deg).
#   bench/preset_figures.sh [CLI]     (default build/cli/hairswing)
set -euo pipefail
cd "$(dirname "$0")/.."
H=${1:-build/cli/hairswing}
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
$H make-demo-avatar --variant layered -o "$W/layered.vrm" >/dev/null
$H make-demo-avatar --variant ponytail -o "$W/ponytail.vrm" >/dev/null
presets=(as-authored $($H tune --presets | awk '/^[a-z]/ {print $1}'))
echo "| preset | avatar | solver | head-turn swing mm | exc p99 % | curl deg | suite: median exc p99 % | median swing mm | max flip deg |"
echo "|---|---|---|---|---|---|---|---|---|"
for p in "${presets[@]}"; do
  for a in layered ponytail; do
    f=$W/$a.vrm
    if [[ $p != as-authored ]]; then
      $H tune "$W/$a.vrm" --all --preset "$p" -o "$W/$a-$p.vrm" --force >/dev/null
      f=$W/$a-$p.vrm
    fi
    $H measure "$f" --suite --fps 60 --json "$W/m.json" --force >/dev/null 2>&1
    python3 - "$W/m.json" "$p" "$a" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
s = d['suite_summary']
for r in d['results']:
    if r['fps'] != 60 or r['solver'] not in ('arc', 'vrm'):
        continue
    m = s[r['solver']]
    f = lambda v: '-' if v is None else f'{v:.1f}'
    print(f"| {sys.argv[2]} | {sys.argv[3]} | {r['solver']} | {f(r['swing_rms_mm'])} | {f(r['stretch_p99_excess_pct'])} | "
          f"{r['shape_error_deg']:.2f} | {f(m['median_stretch_p99_excess_pct'])} | {f(m['median_swing_rms_mm'])} | {m['max_flip_deg']:.1f} |")
PY
  done
done
