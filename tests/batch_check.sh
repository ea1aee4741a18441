#!/usr/bin/env bash
# hairswing batch, end to end (docs/batch.md).
#   batch_check.sh CLI WORKDIR SHARED_DATA bad     bad manifests fail before any work, one line
#   batch_check.sh CLI WORKDIR SHARED_DATA shards  a manifest run whole and as 3 shard processes
#       gives the same summary (less the seconds) and the same output bytes; a file that fails
#       to load fails its jobs only; sha256 of inputs and outputs agree with sha256sum; a rerun
#       skips what is up to date and reruns what changed. Exit 77 without ../shared/data.
#   batch_check.sh CLI WORKDIR SHARED_DATA shards-only   the same up to the 3 shards (for the
#       sanitizer build: the cluster scripts and resume are checked in the normal one)
set -euo pipefail
cli=$1 work=$2 shared=$3 mode=$4
fail() { echo "FAIL: $*" >&2; exit 1; }
docs=$(cd "$(dirname "$0")/../docs/batch" && pwd)
rm -rf "$work" && mkdir -p "$work" && cd "$work"
"$cli" make-demo-avatar --variant layered -o layered.vrm >/dev/null

if [[ $mode == bad ]]; then
  # Each manifest must be refused with exit 2, a one-line message containing the expected text,
  # and no output folder (nothing ran).
  expect_bad() {  # NAME JSON EXPECTED-TEXT [extra args]
    local name=$1 json=$2 want=$3
    shift 3
    printf '%s\n' "$json" > "$name.json"
    set +e
    "$cli" batch "$name.json" "$@" > "$name.out" 2> "$name.err"
    local rc=$?
    set -e
    [[ $rc == 2 ]] || fail "$name: exit $rc, expected 2 ($(cat "$name.err"))"
    # (CLI11 adds "Run with --help" under a bad command-line option: only the first line counts)
    [[ $(grep -vc '^Run with --help' "$name.err") == 1 ]] || fail "$name: expected one line, got: $(cat "$name.err")"
    grep -qF -- "$want" "$name.err" || fail "$name: expected '$want' in: $(cat "$name.err")"
    [[ ! -e "$name-out" ]] || fail "$name: created $name-out before refusing"
    echo "ok: $name: $(cat "$name.err")"
  }
  expect_bad missing_file '{"avatars": ["nope.vrm"], "operations": ["measure"]}' \
    'avatars[0].path: no such file'
  expect_bad missing_wear '{"avatars": [{"path": "layered.vrm", "wear": "gone.gltf"}], "operations": ["measure"]}' \
    'avatars[0].wear[0]: no such file'
  expect_bad unknown_op '{"avatars": ["layered.vrm"], "operations": ["measure", "simulate"]}' \
    'operations[1]: unknown operation "simulate"'
  expect_bad bad_selector '{"avatars": [{"path": "layered.vrm", "hair": "material:NoSuchMaterial"}], "operations": ["fit"]}' \
    'avatars[0].hair:'
  expect_bad bad_selector_syntax '{"avatars": [{"path": "layered.vrm", "hair": "material:"}], "operations": ["fit"]}' \
    'is not a selector'
  expect_bad duplicate_outputs '{"avatars": ["layered.vrm", "./layered.vrm"], "operations": ["measure"]}' \
    'avatars[0] and avatars[1] would both write to layered/measure'
  expect_bad not_json '{"avatars": ["layered.vrm"], "operations": ["measure"' 'not valid JSON'
  expect_bad unknown_key '{"avatars": ["layered.vrm"], "operation": ["measure"]}' 'unknown key "operation"'
  expect_bad unknown_option '{"avatars": ["layered.vrm"], "operations": ["measure"], "options": {"measure": {"fsp": [60]}}}' \
    'options.measure.fsp: unknown option'
  expect_bad bad_option_value '{"avatars": ["layered.vrm"], "operations": ["measure"], "options": {"measure": {"fps": [50]}}}' \
    'options.measure.fps: lists 50'
  expect_bad bad_arc_setting '{"avatars": ["layered.vrm"], "operations": ["measure"], "options": {"measure": {"arc_setting": "bouncy"}}}' \
    'options.measure.arc_setting: "bouncy" is not one of article, lively, follow'
  expect_bad option_type '{"avatars": ["layered.vrm"], "operations": ["measure"], "options": {"measure": {"seconds": "12"}}}' \
    'options.measure.seconds: expected number'
  expect_bad clips_missing '{"avatars": ["layered.vrm"], "operations": ["bake"]}' \
    'validate-clips and bake need at least one clip file'
  expect_bad clip_not_animation '{"avatars": ["layered.vrm"], "clips": ["layered.vrm"], "operations": ["bake"]}' \
    'clips[0]: layered.vrm: no animations'
  expect_bad bad_shard '{"avatars": ["layered.vrm"], "operations": ["measure"]}' '--shard' --shard 3/3
  echo "all bad manifests refused before any work"
  exit 0
fi

ual="$shared/animations/ual1/AnimationLibrary_Godot_Standard.gltf"
for f in "$ual" "$shared/avatars/godette.vrm" "$shared/avatars/quaternius-casual.glb"; do
  [[ -f $f ]] || { echo "skip: needs $f (../shared/data)"; exit 77; }
done
head -c 4000 "$shared/avatars/godette.vrm" > truncated.vrm   # a guarded load error
cat > lib.json <<EOF
{
  "description": "batch_check.sh: 4 avatars (one fails to load) x 2 clips x every operation",
  "avatars": [
    {"path": "$shared/avatars/quaternius-casual.glb", "name": "casual", "hair": "material:Hair_Blond"},
    "$shared/avatars/godette.vrm",
    {"path": "layered.vrm", "shirt": "Shirt"},
    "truncated.vrm"
  ],
  "clips": [{"path": "$ual", "clip": "Walk_Loop"}, {"path": "$ual", "clip": "Hit_Chest"}],
  "operations": ["fit", "fit-colliders", "measure", "validate-clips", "bake"],
  "options": {"measure": {"fps": [60], "solvers": ["arc", "vrm"], "seconds": 2, "arc_setting": "follow"},
              "bake": {"settle": 0.5, "arc_setting": "lively"}}
}
EOF
set +e
"$cli" batch lib.json --out whole > whole.log 2>&1; rc=$?
set -e
[[ $rc == 1 ]] || fail "whole run: exit $rc, expected 1 (the truncated avatar's jobs fail): $(tail -5 whole.log)"
S=whole/summary.json
[[ $(jq '.counts.jobs' $S) == 25 ]] || fail "expected 25 jobs, got $(jq '.counts.jobs' $S)"
# The truncated avatar's 6 jobs fail and say why; every other job is ok.
[[ $(jq '[.jobs[] | select(.status == "failed")] | length' $S) == 6 ]] || fail "expected 6 failed: $(jq -c '[.jobs[] | select(.status == "failed") | .id]' $S)"
[[ $(jq '[.jobs[] | select(.status == "failed" and (.avatar.name != "truncated" or (.error | test("truncated") | not)))] | length' $S) == 0 ]] ||
  fail "a failure other than the truncated file's: $(jq -c '[.jobs[] | select(.status == "failed") | [.id, .error]]' $S)"
# Outputs of the operations are there, and the fit put chains on the casual haircut.
[[ $(jq '.jobs[] | select(.id == "casual/fit") | .figures.chains' $S) -gt 3 ]] || fail "casual/fit made no chains"
for f in casual/fit/avatar.vrm casual/fit-colliders/avatar.vrm casual/measure/measure.json \
         layered/AnimationLibrary_Godot_Standard/Walk_Loop/bake/baked.vrm \
         godette/AnimationLibrary_Godot_Standard/Hit_Chest/validate-clips/validate.json; do
  [[ -s whole/$f ]] || fail "missing output $f"
done
jq -e '.jobs[] | select(.id == "layered/AnimationLibrary_Godot_Standard/Walk_Loop/bake") | .figures.mode == "cyclic"' $S >/dev/null || fail "Walk_Loop not baked cyclic"
# The named arc settings reached the runs: follow's liveliness and follow in measure, lively in bake.
jq -e '.settings | .arc_liveliness == 1 and .arc_stiffness == 1 and .arc_follow == 0.7' whole/casual/measure/measure.json >/dev/null ||
  fail "measure ran without the follow setting: $(jq -c .settings whole/casual/measure/measure.json)"
jq -e '.arc_setting == "lively"' whole/layered/AnimationLibrary_Godot_Standard/Walk_Loop/bake/bake.json >/dev/null ||
  fail "bake.json does not name the lively setting"
jq -e '.jobs[] | select(.id == "layered/AnimationLibrary_Godot_Standard/Hit_Chest/bake") | .figures.mode == "one-shot"' $S >/dev/null || fail "Hit_Chest not baked one-shot"
# sha256 in the records agrees with sha256sum (inputs, the .gltf's buffer, every output).
want=$(sha256sum < "$shared/avatars/quaternius-casual.glb" | cut -d' ' -f1)
[[ $(jq -r '.jobs[0].inputs[0].sha256' $S) == "$want" ]] || fail "input sha256 of the casual avatar"
bin_sha=$(sha256sum < "${ual%.gltf}.bin" | cut -d' ' -f1)
jq -e --arg s "$bin_sha" '[.jobs[] | select(.clip) | .inputs[] | select(.path | endswith(".bin")) | .sha256 == $s] | all and length > 0' $S >/dev/null ||
  fail "clip jobs do not list the .gltf's buffer with its sha256"
n=0
while read -r path sha; do
  [[ $(sha256sum < "whole/$path" | cut -d' ' -f1) == "$sha" ]] || fail "output sha256 of $path"
  n=$((n + 1))
done < <(jq -r '.jobs[].outputs[] | "\(.path) \(.sha256)"' $S)
echo "ok: whole run: 25 jobs, 6 failed (the truncated file), $n outputs match their sha256"

# The merged summary of a sharded run must equal the whole run's (less the seconds), and every
# output file its bytes (job records less the seconds).
same_as_whole() {  # DIR WHAT
  local dir=$1 what=$2 strip='del(.jobs[].seconds, .jobs[].record_sha256)'
  set +e
  "$cli" batch lib.json --out "$dir" --merge --force > "$dir.merge.log" 2>&1; local rc=$?
  set -e
  [[ $rc == 1 ]] || fail "$what: merge exit $rc, expected 1 (failed jobs): $(cat "$dir.merge.log")"
  diff <(jq "$strip" whole/summary.json) <(jq "$strip" "$dir/summary.json") > "$dir.diff" ||
    fail "$what: merged summary differs from the whole run's: $(head -20 "$dir.diff")"
  local files
  files=$(cd whole && find . -type f ! -name 'summary*.json' | sort)
  [[ $files == "$(cd "$dir" && find . -type f ! -name 'summary*.json' | sort)" ]] || fail "$what: different output files"
  for f in $files; do
    if [[ $(basename "$f") == job.json ]]; then
      diff <(jq 'del(.seconds, .record_sha256)' "whole/$f") <(jq 'del(.seconds, .record_sha256)' "$dir/$f") >/dev/null || fail "$what: record $f differs"
    else
      cmp -s "whole/$f" "$dir/$f" || fail "$what: output $f differs from the whole run's"
    fi
  done
  echo "ok: $what merged = the whole run ($(echo "$files" | wc -l) files compared)"
}

# The same manifest as 3 shard processes at once.
pids=()
for i in 0 1 2; do
  "$cli" batch lib.json --out shards --shard $i/3 --threads 1 -q > shard$i.log 2>&1 & pids+=($!)
done
for p in "${pids[@]}"; do wait "$p" || true; done
for i in 0 1 2; do [[ -f shards/summary.shard-$i-of-3.json ]] || fail "shard $i wrote no summary: $(cat shard$i.log)"; done
same_as_whole shards "3 shard processes"
[[ $mode == shards-only ]] && exit 0

# docs/batch: slurm-submit.sh with a stand-in sbatch runs the Slurm array task script as Slurm
# would (task id and count in the environment) and then the merge; the Kubernetes Indexed Job's
# command runs with its completion index (paths and shard count of the example replaced by this
# test's).
# slurm-submit.sh against a stand-in sbatch that runs what it is given at once, in order: the
# array's tasks with Slurm's variables, then the merge (--wrap).
mkdir -p fakebin
cat > fakebin/sbatch <<'SB'
#!/usr/bin/env bash
set -euo pipefail
array="" wrap="" script="" exports=()
while [[ $# -gt 0 ]]; do
  case $1 in
    --array=*) array=${1#--array=} ;;
    --export=*) IFS=, read -ra kv <<< "${1#--export=}"; for e in "${kv[@]}"; do [[ $e == ALL ]] || exports+=("$e"); done ;;
    --wrap) wrap=$2; shift ;;
    --*) ;;
    *) script=$1 ;;
  esac
  shift
done
if [[ -n $array ]]; then
  n=$(( ${array#*-} + 1 ))
  for ((i = 0; i < n; i++)); do
    env "${exports[@]}" SLURM_ARRAY_TASK_ID=$i SLURM_ARRAY_TASK_COUNT=$n SLURM_CPUS_PER_TASK=1 bash "$script" >&2
  done
else
  bash -c "$wrap" >&2 || true  # the merge's exit 1 (failed jobs) is Slurm's business
fi
echo 4242
SB
chmod +x fakebin/sbatch
PATH="$PWD/fakebin:$PATH" HAIRSWING=$cli bash "$docs/slurm-submit.sh" lib.json submitted 3 > submit.log 2>&1 ||
  fail "slurm-submit.sh: $(cat submit.log)"
grep -q "queued array job 4242 (3 shards)" submit.log || fail "slurm-submit.sh: $(cat submit.log)"
[[ -f submitted/summary.json ]] || fail "slurm-submit.sh: no merged summary: $(cat submit.log)"
diff <(jq 'del(.jobs[].seconds, .jobs[].record_sha256, .manifest)' whole/summary.json) <(jq 'del(.jobs[].seconds, .jobs[].record_sha256, .manifest)' submitted/summary.json) >/dev/null ||
  fail "slurm-submit.sh: merged summary differs from the whole run's"
same_as_whole submitted "slurm-submit.sh and the Slurm array script (3 tasks, stand-in sbatch)"
k8s=$(sed -n 's/^ *- \(hairswing batch .*\)$/\1/p' "$docs/k8s-indexed-job.yaml")
[[ -n $k8s ]] || fail "no hairswing command in k8s-indexed-job.yaml"
k8s=${k8s//\/data\/library.json/lib.json}
k8s=${k8s//\/data\/library-out/k8s}
k8s=${k8s//\/8\"/\/3\"}
for i in 0 1 2; do
  JOB_COMPLETION_INDEX=$i PATH="$(dirname "$cli"):$PATH" sh -c "$k8s" > k8s$i.log 2>&1 || fail "k8s index $i: $(cat k8s$i.log)"
done
same_as_whole k8s "the Kubernetes Indexed Job command (3 indices)"

# Resume: a rerun skips the 19 ok jobs and reruns the 6 failed; a changed output reruns its job;
# a changed option reruns the jobs that use it.
"$cli" batch lib.json --out whole > rerun.log 2>&1 || true
grep -q "25 jobs: 6 run, 19 up to date, 6 failed" rerun.log || fail "rerun: $(tail -1 rerun.log)"
echo 'tampered' >> whole/godette/measure/measure.json
"$cli" batch lib.json --out whole > rerun2.log 2>&1 || true
grep -q "25 jobs: 7 run, 18 up to date, 6 failed" rerun2.log || fail "rerun after a changed output: $(tail -1 rerun2.log)"
jq '.options.bake.rate = 60' lib.json > lib60.json
"$cli" batch lib60.json --out whole > rerun3.log 2>&1 || true
grep -q "25 jobs: 12 run, 13 up to date, 6 failed" rerun3.log || fail "rerun after a changed bake option: $(tail -1 rerun3.log)"
echo "ok: resume skips up-to-date jobs and reruns changed ones"
