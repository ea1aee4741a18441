#!/usr/bin/env bash
# hairswing batch attacked through its output folder and records: a symlinked folder planted
# below --out, an input sitting at an output path, a manifest named OUT/summary.json, a tampered
# record, a record that is a FIFO or /dev/zero, deep JSON, odd shard file names. Nothing may be
# written outside --out, no input replaced, no hang, no crash.
#   batch_attack.sh HAIRSWING_CLI WORKDIR
set -uo pipefail
cli=$1 work=$2
repo=$(cd "$(dirname "$0")/../.." && pwd)
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
failures=0
check() { if eval "$1"; then echo "ok   $2"; else echo "FAIL $2"; failures=$((failures + 1)); fi; }
"$cli" make-demo-avatar --variant ponytail -o pony.vrm >/dev/null 2>&1
[[ -f pony.vrm ]] || { echo "FAIL cannot make the demo avatar"; exit 1; }
cat > m.json <<'J'
{"avatars": [{"path": "pony.vrm", "name": "pony"}], "operations": ["measure"],
 "options": {"measure": {"fps": [60], "solvers": ["arc"], "seconds": 2}}}
J
run() { timeout 120 "$cli" batch "$@" > run.log 2>&1; echo $?; }

# 1. A symlinked folder below --out pointing elsewhere: refused, nothing written behind it.
mkdir -p elsewhere out1
ln -s ../elsewhere out1/pony
rc=$(run m.json --out out1)
check '[[ $rc != 0 && $rc != 124 && -z $(ls -A elsewhere) ]]' "symlink below --out: exit $rc, nothing written behind it ($(ls -A elsewhere | head -3))"
check 'grep -qs "symlink" out1/summary.json run.log' "the record names the symlink"

# 2. An input at an output path: the manifest itself where the summary goes.
mkdir -p out2 && cp m.json out2/summary.json && cp pony.vrm out2/pony.vrm
before=$(sha256sum out2/summary.json)
rc=$(run out2/summary.json --out out2)
check '[[ $rc == 2 && $(sha256sum out2/summary.json) == "$before" ]]' "manifest named OUT/summary.json: exit $rc, manifest unchanged"
check 'grep -q "inputs" run.log && [[ ! -e out2/pony ]]' "refused before any work, saying it is an input: $(tail -1 run.log)"

# 3. Records: an honest run, then a tampered record is not trusted.
rc=$(run m.json --out out3)
check '[[ $rc == 0 ]]' "a clean run: exit $rc"
rc=$(run m.json --out out3)
check 'grep -q "1 up to date" run.log' "rerun: the job is up to date"
jq '.figures.tampered = 1' out3/pony/measure/job.json > t.json && cat t.json > out3/pony/measure/job.json
rc=$(run m.json --out out3)
check 'grep -q "1 run, 0 up to date" run.log' "a tampered record is run again: $(tail -1 run.log)"
jq '.outputs = []' out3/pony/measure/job.json > t.json && cat t.json > out3/pony/measure/job.json
rc=$(run m.json --out out3)
check 'grep -q "1 run, 0 up to date" run.log' "a record listing no outputs is run again"

# 4. A record that is a FIFO or /dev/zero: no hang, the job runs.
rm -f out3/pony/measure/job.json && mkfifo out3/pony/measure/job.json
rc=$(run m.json --out out3)
check '[[ $rc == 0 ]]' "a FIFO as the record: exit $rc (124 = hang)"
rm -f out3/pony/measure/job.json && ln -s /dev/zero out3/pony/measure/job.json
rc=$(run m.json --out out3)
check '[[ $rc == 0 ]]' "/dev/zero as the record: exit $rc"

# 5. Deep JSON in the manifest and in a record.
python3 -c "print('{\"avatars\":' + '['*200000 + ']'*200000 + '}')" > deep.json
rc=$(run deep.json --out out5)
check '[[ $rc == 2 ]] && grep -q "nested deeper" run.log' "a manifest nested 200,000 deep: exit $rc, $(tail -1 run.log)"
python3 -c "print('['*200000 + ']'*200000)" > out3/pony/measure/job.json.new && rm -f out3/pony/measure/job.json && mv out3/pony/measure/job.json.new out3/pony/measure/job.json
rc=$(run m.json --out out3)
check '[[ $rc == 0 ]]' "a record nested 200,000 deep: exit $rc"

# 6. Odd shard summary names in a merge: one error line naming the file, no abort.
mkdir -p out6 && echo '{}' > out6/summary.shard-99999999999999-of-2.json
rc=$(run m.json --out out6 --merge)
check '[[ $rc == 2 ]] && grep -q "summary.shard-99999999999999-of-2.json" run.log' "odd shard name: exit $rc, $(tail -1 run.log)"
rm out6/* && echo '{}' > out6/summary.shard-5-of-2.json
rc=$(run m.json --out out6 --merge)
check '[[ $rc == 2 ]] && grep -q "summary.shard-5-of-2.json" run.log' "shard index past the count: exit $rc"

# 7. Counts: 20,000 clip entries are refused at once; 9,000 entries of one clip file read it once.
python3 "$repo/bench/make_long_clip.py" 2 moving walk.bvh
python3 -c "
import json
json.dump({'avatars': ['pony.vrm'], 'clips': ['walk.bvh'] * 20000, 'operations': ['validate-clips']}, open('toomany.json', 'w'))
json.dump({'avatars': ['pony.vrm'], 'clips': [{'path': 'walk.bvh', 'name': 'w%d' % i} for i in range(9000)], 'operations': ['validate-clips']}, open('many.json', 'w'))
"
rc=$(run toomany.json --out out7 --list)
check '[[ $rc == 2 ]] && grep -q "more than the 10000" run.log' "20,000 clip entries: exit $rc, $(tail -1 run.log)"
/usr/bin/time -f "%M" -o mem.txt timeout 120 "$cli" batch many.json --out out7 --list > run.log 2>&1
mb=$(( $(tail -1 mem.txt) / 1024 ))
check '[[ $mb -lt 1000 ]] && grep -q "9000 of 9000 jobs" run.log' "9,000 entries of one clip file planned in $mb MB: $(tail -1 run.log)"

# 8. A .gltf input's external buffer sitting at a job's output path: the job fails, the buffer
#    stays as it was (the buffer file is an input too).
mkdir -p out8/g/measure
python3 - <<'PY'
import json, struct
data = open("pony.vrm", "rb").read()
n = struct.unpack_from("<I", data, 12)[0]
doc = json.loads(data[20:20 + n])
bin_len = struct.unpack_from("<I", data, 20 + n)[0]
open("out8/g/measure/measure.json", "wb").write(data[28 + n:28 + n + bin_len])
doc["buffers"][0]["uri"] = "out8/g/measure/measure.json"
open("g.gltf", "w").write(json.dumps(doc))
PY
cat > m8.json <<'J'
{"avatars": ["g.gltf"], "operations": ["measure"], "options": {"measure": {"fps": [60], "solvers": ["arc"], "seconds": 2}}}
J
before=$(sha256sum out8/g/measure/measure.json)
rc=$(run m8.json --out out8)
check '[[ $rc == 1 && $(sha256sum out8/g/measure/measure.json) == "$before" ]] && grep -q "inputs" run.log' "a .gltf buffer at an output path: exit $rc, buffer unchanged: $(grep -m1 FAILED run.log)"

if ((failures)); then echo "batch attack: $failures case(s) failed"; exit 1; fi
echo "batch attack: every case held"
