#!/usr/bin/env bash
# hairswing batch against the same work as separate commands (scripts/bench --batch).
#   batch_bench.sh HAIRSWING SHARED_DATA OUT_DIR [ROUNDS]
# The manifest: the 6 avatars of ../shared/data (3 with a hair selector, one of them wearing the
# UBC long hair file; the male UBC body and the cryptovoxels avatar have no springs, so their
# measure jobs fail in both ways of running) x fit + measure (the standard 12 s head-turn, 3 solvers x 30/60/120 fps) + validate-clips
# of the 46 UAL clips. Timed, interleaved, ROUNDS times (median reported):
#   direct-1: the equivalent hairswing fit / measure / validate-clips commands one after the
#             other on 1 core (taskset -c 0)
#   batch-1:  hairswing batch --threads 1 --force on the same core
#   direct-2, batch-2: the same on 2 cores (the commands still one after the other; validate-clips
#             uses both cores itself)
# Overhead = batch / direct - 1 at the same cores; also the batch's own time outside its jobs
# (wall minus the sum of the jobs' seconds, at 1 thread). Writes OUT_DIR/bench.json and bench.md.
set -euo pipefail
cli=$(realpath "$1") d=$(cd "$2" && pwd) out=$3 rounds=${4:-3}
mkdir -p "$out"
out=$(cd "$out" && pwd)
ual=$d/animations/ual1/AnimationLibrary_Godot_Standard.gltf
a=$d/avatars
for f in "$ual" "$a/godette.vrm" "$a/quaternius-casual.glb" "$a/quaternius-soldier.glb" \
         "$a/cryptovoxels-nosprings.vrm" "$a/ubc/Superhero_Female_FullBody.gltf" "$a/ubc/Superhero_Male_FullBody.gltf"; do
  [[ -f $f ]] || { echo "batch bench: needs $f"; exit 1; }
done
cat > "$out/library.json" <<EOF
{
  "description": "scripts/bench --batch: 6 avatars x fit + measure (head-turn) + validate-clips of 46 clips",
  "avatars": [
    "$a/godette.vrm",
    {"path": "$a/quaternius-casual.glb", "hair": "material:Hair_Blond"},
    {"path": "$a/quaternius-soldier.glb", "hair": "material:Hair_Brown"},
    {"path": "$a/ubc/Superhero_Female_FullBody.gltf", "wear": "$a/ubc/Hair_Long.gltf", "hair": "Hair_Long"},
    "$a/ubc/Superhero_Male_FullBody.gltf",
    "$a/cryptovoxels-nosprings.vrm"
  ],
  "clips": ["$ual"],
  "operations": ["fit", "measure", "validate-clips"]
}
EOF

# The same work as commands: per avatar fit (when it has hair), measure, validate-clips.
direct() {  # CORES
  local cores=$1 w=$out/direct
  rm -rf "$w" && mkdir -p "$w"
  local run="taskset -c $cores"
  fit_measure_validate() {  # NAME AVATAR [fit args...]
    local name=$1 src=$2
    shift 2
    local av=$src
    if [[ $# -gt 0 ]]; then
      $run "$cli" fit "$src" "$@" -o "$w/$name.vrm" > /dev/null 2>&1 || true
      av=$w/$name.vrm
    fi
    $run "$cli" measure "$av" --json "$w/$name-measure.json" > /dev/null 2>&1 || true
    $run "$cli" validate-clips "$av" --clips "$ual" --json "$w/$name-validate.json" > /dev/null 2>&1 || true
  }
  fit_measure_validate godette "$a/godette.vrm"
  fit_measure_validate casual "$a/quaternius-casual.glb" --hair material:Hair_Blond
  fit_measure_validate soldier "$a/quaternius-soldier.glb" --hair material:Hair_Brown
  fit_measure_validate female "$a/ubc/Superhero_Female_FullBody.gltf" --wear "$a/ubc/Hair_Long.gltf" --hair Hair_Long
  fit_measure_validate male "$a/ubc/Superhero_Male_FullBody.gltf"
  fit_measure_validate cryptovoxels "$a/cryptovoxels-nosprings.vrm"
}

ms() { echo $(( ($(date +%s%N) - $1) / 1000000 )); }
declare -A times
for ((r = 0; r < rounds; r++)); do
  for mode in direct-1 batch-1 direct-2 batch-2; do
    cores=0
    [[ $mode == *-2 ]] && cores=0-1
    start=$(date +%s%N)
    if [[ $mode == direct-* ]]; then
      direct $cores
    else
      threads=${mode#batch-}
      taskset -c $cores "$cli" batch "$out/library.json" --out "$out/batch" --threads "$threads" --force -q > "$out/$mode.log" 2>&1 || true
      cp "$out/batch/summary.json" "$out/summary-$mode.json"
    fi
    times[$mode]+="$(ms "$start") "
    echo "round $((r + 1))/$rounds $mode: $(ms "$start") ms"
  done
done
median() { tr ' ' '\n' <<< "$1" | grep . | sort -n | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
d1=$(median "${times[direct-1]}") b1=$(median "${times[batch-1]}")
d2=$(median "${times[direct-2]}") b2=$(median "${times[batch-2]}")
jobs=$(jq '.counts.jobs' "$out/summary-batch-1.json")
failed=$(jq '.counts.failed' "$out/summary-batch-1.json")
inside=$(jq '[.jobs[].seconds] | add * 1000 | round' "$out/summary-batch-1.json")
failures=$(jq -r '[.jobs[] | select(.status == "failed") | "\(.id): \(.error)"] | join("\n")' "$out/summary-batch-1.json")
pct() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%+.1f", (a / b - 1) * 100}'; }
cat > "$out/bench.json" <<EOF
{"rounds": $rounds, "jobs": $jobs, "failed_jobs": $failed,
 "direct_1core_ms": $d1, "batch_1thread_ms": $b1, "direct_2cores_ms": $d2, "batch_2threads_ms": $b2,
 "batch_jobs_sum_ms_1thread": $inside,
 "overhead_pct_1core": $(pct "$b1" "$d1"), "overhead_pct_2cores": $(pct "$b2" "$d2"),
 "outside_jobs_pct_1thread": $(pct "$b1" "$inside")}
EOF
{
  echo "# hairswing batch vs the same commands (median of $rounds, ms wall)"
  echo
  echo "$jobs jobs (6 avatars: fit where a hair selector is given, measure, validate-clips x 46 UAL clips), $failed failed."
  echo
  echo "| cores | direct commands | hairswing batch | batch vs direct |"
  echo "|---|---:|---:|---:|"
  echo "| 1 | $d1 | $b1 | $(pct "$b1" "$d1") % |"
  echo "| 2 | $d2 | $b2 | $(pct "$b2" "$d2") % |"
  echo
  echo "At 1 thread the jobs' own seconds add up to $inside ms of the batch's $b1 ms: $(pct "$b1" "$inside") % is"
  echo "planning, hashing, the solver fingerprint and writing records."
  echo
  echo "Failed jobs (the avatars have no spring chains to measure):"
  echo
  echo "$failures" | sed 's/^/- /'
} > "$out/bench.md"
cat "$out/bench.md"
