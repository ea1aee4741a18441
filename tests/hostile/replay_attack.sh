#!/usr/bin/env bash
# `hairswing hash --replay` fed what a hostile or broken recording can be: a FIFO, a device, a
# huge or deeply nested file, frames with numbers a float cannot hold, negative or non-finite dt,
# a time step of 1e30 s. Every bad input is one error line naming the file (and the frame), exit
# 2, without hanging; a huge dt is clamped and the replay finishes.
#   replay_attack.sh HAIRSWING_CLI WORKDIR [sanitize]   (sanitize: skip the ulimit case, which
#   AddressSanitizer's shadow memory cannot run under)
set -uo pipefail
cli=$1 work=$2 sanitize=${3:-}
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
failures=0
check() { if eval "$1"; then echo "ok   $2"; else echo "FAIL $2"; failures=$((failures + 1)); fi; }
"$cli" make-demo-avatar --variant ponytail -o pony.vrm >/dev/null || { echo "FAIL cannot make the demo avatar"; exit 1; }
# The avatar's driver count, from the error an empty recording gets.
echo '{}' > empty.json
n=$("$cli" hash pony.vrm --replay empty.json 2>&1 | sed -n 's/.*springs read \([0-9]*\).*/\1/p')
[[ -n $n ]] || { echo "FAIL no driver count"; exit 1; }
# A recording: identity matrices, FRAMES frames of DT seconds, one value replaced by BAD.
make() {  # NAME DT BAD_FRAME BAD_VALUE
  python3 - "$n" "$@" <<'PY'
import json, sys
n, name, dt, bad_frame, bad = int(sys.argv[1]), sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5]
ident = [1,0,0,0, 0,1,0,0, 0,0,1,0, 0,0,0,1] * n
frames = []
for f in range(10):
    m = json.dumps(ident)
    d = dt
    if f == bad_frame:
        if bad.startswith('dt='): d = bad[3:]
        else: m = json.dumps(ident[:-1])[:-1] + ', ' + bad + ']'
    frames.append('{"dt": %s, "m": %s}' % (d, m))
open(name, 'w').write('{"drivers": %d, "reset": %s, "frames": [%s]}' % (n, json.dumps(ident), ', '.join(frames)))
PY
}
run() { timeout 60 "$cli" hash pony.vrm --replay "$1" > out.log 2> err.log; echo $?; }

make good.json 0.016666 -1 0
rc=$(run good.json); check '[[ $rc == 0 ]]' "a good recording: exit $rc $(cat err.log)"
make huge_dt.json 0.016666 4 dt=1e30
rc=$(run huge_dt.json); check '[[ $rc == 0 ]]' "a frame of 1e30 s is clamped to a day and the replay finishes: exit $rc $(cat err.log)"
for bad in 1e39 -1e39 '"x"' null; do
  make bad.json 0.016666 3 "$bad"
  rc=$(run bad.json)
  check '[[ $rc == 2 && $(wc -l < err.log) == 1 ]] && grep -q "frames\[3\]" err.log' "matrix value $bad: exit $rc, $(cat err.log)"
done
for bad in -1 -1e-300 '"0.1"' null; do
  make bad.json 0.016666 7 "dt=$bad"
  rc=$(run bad.json)
  check '[[ $rc == 2 ]] && grep -q "frames\[7\].dt" err.log' "dt $bad: exit $rc, $(cat err.log)"
done
# A number no double holds is a JSON error saying so.
make bad.json 0.016666 7 dt=1e400
rc=$(run bad.json); check '[[ $rc == 2 && $(wc -l < err.log) == 1 ]] && grep -q "overflow" err.log' "dt 1e400: exit $rc, $(cat err.log)"
mkfifo fifo.json
rc=$(run fifo.json); check '[[ $rc == 2 ]] && grep -q "not a regular file" err.log' "a FIFO: exit $rc (124 = hang), $(cat err.log)"
rc=$(run /dev/zero); check '[[ $rc == 2 ]] && grep -q "not a regular file" err.log' "/dev/zero: exit $rc, $(cat err.log)"
python3 -c "print('{\"frames\":' + '['*300000 + ']'*300000 + '}')" > deep.json
rc=$(run deep.json); check '[[ $rc == 2 ]] && grep -q "nested deeper" err.log' "nested 300,000 deep: exit $rc, $(cat err.log)"
truncate -s 3G sparse.json
rc=$(run sparse.json); check '[[ $rc == 2 ]] && grep -q "more than" err.log' "a 3 GiB file: exit $rc, $(cat err.log)"
rm -f sparse.json

# The avatar readers under the same rules: a 3 GiB .gltf of zeros is refused from its first bytes
# (it used to be read whole: 6 GB of memory), and running out of memory is one error line.
truncate -s 3G zeros.gltf
rc=$(timeout 60 "$cli" inspect zeros.gltf > out.log 2> err.log; echo $?)
check '[[ $rc == 2 && $(wc -l < err.log) == 1 ]] && grep -q "neither GLB" err.log' "a 3 GiB .gltf of zeros: exit $rc, $(cat err.log)"
rm -f zeros.gltf
if [[ $sanitize != sanitize ]]; then
python3 -c "import sys; sys.stdout.write('{\"asset\":{\"version\":\"2.0\"},\"extras\":{\"a\":\"' + 'x' * 150000000 + '\"}}')" > big.gltf
rc=$( (ulimit -v 600000; timeout 60 "$cli" inspect big.gltf > out.log 2> err.log; echo $?) )
check '[[ $rc == 2 && $(wc -l < err.log) == 1 ]] && grep -qi "alloc\|memory" err.log' "out of memory (600 MB address space, 150 MB JSON): exit $rc, $(cat err.log)"
rm -f big.gltf
fi

if ((failures)); then echo "replay attack: $failures case(s) failed"; exit 1; fi
echo "replay attack: every case held"
