#!/usr/bin/env bash
# The web viewer in Debian's chromium (web/viewer/test/viewer_check.mjs): hairswing view serves it,
# every control is exercised, screenshots go to WORKDIR. Exit 77 (skip) without a browser, the
# npm packages or the built viewer (scripts/build-viewer).
#   viewer_check.sh REPO_ROOT HAIRSWING_CLI WORKDIR SHARED_DATA
set -euo pipefail
root=$1 cli=$2 work=$3 shared=$4
if [[ ! -x /usr/bin/chromium ]] || ! command -v node >/dev/null || [[ ! -d $root/web/viewer/node_modules/playwright-core ]]; then
  echo "skip: needs /usr/bin/chromium, node and web/viewer/node_modules (scripts/setup installs them)"
  exit 77
fi
if [[ ! -f $root/web/viewer/dist/index.html ]]; then
  echo "skip: the viewer is not built (scripts/build-viewer; scripts/test runs it)"
  exit 77
fi
exec node "$root/web/viewer/test/viewer_check.mjs" "$cli" "$work" "$shared"
