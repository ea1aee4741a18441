#!/usr/bin/env bash
# The Debian package: `cpack -G DEB` in the build folder, unpacked into a scratch root with
# `dpkg -x` (no root rights, nothing installed on the machine), then the unpacked hairswing runs
# `demo` and serves `view` from its own share/hairswing/viewer - not from this source tree.
# Exit 77 (skip) without cpack/dpkg-deb or without the built viewer (scripts/build-viewer).
#   deb_check.sh BUILD_DIR WORKDIR
set -euo pipefail
build=$1 work=$2
if ! command -v cpack >/dev/null || ! command -v dpkg-deb >/dev/null || ! command -v curl >/dev/null; then
  echo "skip: needs cpack, dpkg-deb and curl"
  exit 77
fi
src=$(sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' "$build/CMakeCache.txt")
if [[ ! -f $src/web/viewer/dist/index.html ]]; then
  echo "skip: the viewer is not built (scripts/build-viewer; scripts/test runs it)"
  exit 77
fi
fail() { echo "FAIL: $*" >&2; exit 1; }
rm -rf "$work" && mkdir -p "$work"
(cd "$work" && cpack -G DEB --config "$build/CPackConfig.cmake" -B "$work/pkg" >cpack.log 2>&1) ||
  { cat "$work/cpack.log" >&2; fail "cpack -G DEB"; }
deb=$(ls "$work"/pkg/hairswing_*.deb)
echo "package: $(basename "$deb") ($(du -k "$deb" | cut -f1) KiB)"
depends=$(dpkg-deb -f "$deb" Depends)
echo "Depends: $depends"
[[ $depends == *libtbb* ]] || fail "Depends lacks TBB (dpkg-shlibdeps did not run?)"
dpkg-deb -c "$deb" >"$work/contents.txt"
for f in ./usr/bin/hairswing ./usr/share/hairswing/viewer/index.html ./usr/include/hairswing/io.h \
         ./usr/share/doc/hairswing/LICENSE; do
  grep -q " $f\$" "$work/contents.txt" || fail "$f is not in the package"
done
grep -q "/cmake/hairswing/hairswingConfig.cmake\$" "$work/contents.txt" || fail "no CMake package config"

root=$work/root
dpkg -x "$deb" "$root"
hs=$root/usr/bin/hairswing
# The demo from the unpacked copy, in a folder of its own.
mkdir -p "$work/run"
(cd "$work/run" && "$hs" demo --out demo-out >demo.log 2>&1) || { cat "$work/run/demo.log" >&2; fail "hairswing demo"; }
[[ -s $work/run/demo-out/report.html ]] || fail "the demo wrote no report.html"
grep -q "report" "$work/run/demo.log" || fail "the demo did not say where its report is"
echo "demo: $(grep -m1 -o '[^ ]*report.html' "$work/run/demo.log")"

# The viewer from the unpacked copy: the app must come from the package's share/hairswing/viewer.
# HAIRSWING_DATA names the data folder of an installed copy (godette, the clips): an empty one
# here, so the server offers the two built-in demo avatars only.
mkdir -p "$work/nodata"
HAIRSWING_DATA=$work/nodata "$hs" view --port 0 >"$work/view.log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null || true' EXIT
url=
for _ in $(seq 1 100); do
  url=$(grep -o 'http://127\.0\.0\.1:[0-9]*/?token=[0-9a-f]*' "$work/view.log" || true)
  [[ -n $url ]] && break
  kill -0 $pid 2>/dev/null || { cat "$work/view.log" >&2; fail "hairswing view exited"; }
  sleep 0.1
done
[[ -n $url ]] || { cat "$work/view.log" >&2; fail "hairswing view printed no URL"; }
grep -q "served from $root/usr/share/hairswing/viewer" "$work/view.log" ||
  { cat "$work/view.log" >&2; fail "the viewer is not served from the unpacked package"; }
base=${url%%\?*} token=${url##*token=}
curl -sf -o "$work/page.html" "$url" || fail "GET the viewer page"
cmp -s "$work/page.html" "$root/usr/share/hairswing/viewer/index.html" ||
  fail "the page served is not the package's index.html"
avatars=$(curl -sf -H "X-Hairswing-Token: $token" "${base}api/avatars") || fail "GET /api/avatars"
[[ $avatars == *demo-layered.vrm* ]] || fail "/api/avatars lacks the demo avatar: $avatars"
[[ $avatars != *godette* ]] || fail "HAIRSWING_DATA was not honoured (godette offered): $avatars"
echo "view: $base serves the package's app and $(grep -o '\.vrm' <<<"$avatars" | wc -l) avatars"
echo "ok"
