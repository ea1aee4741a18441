#!/usr/bin/env bash
# Writes the demo ponytail avatar, measures it into an HTML report, and opens the report in
# headless Chromium (web/report/check_report.mjs): no console errors, every plot drawn, and a
# screenshot kept beside the report for people to look at. Exit 77 (skip) without a browser.
#   report_test.sh HAIRSWING_CLI WORKDIR REPO_ROOT
set -euo pipefail
cli=$1 work=$2 root=$3
if [[ ! -x /usr/bin/chromium || ! -d "$root/web/report/node_modules/playwright-core" ]] || ! command -v node >/dev/null; then
  echo "skip: needs /usr/bin/chromium, node and web/report/node_modules (scripts/setup installs them)"
  exit 77
fi
rm -rf "$work" && mkdir -p "$work"
"$cli" make-demo-avatar --variant ponytail -o "$work/ponytail.vrm"
"$cli" measure "$work/ponytail.vrm" --fps 30,60 --match-swing --report "$work/report.html" --json "$work/report.json"
# 4 uPlot plots; 5 scatter points at the highest frame rate: arc, parent, vrm and the two matched runs.
node "$root/web/report/check_report.mjs" "$work/report.html" "$work/report.png" 4 5
echo "report screenshot: $work/report.png"
