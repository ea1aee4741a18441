#!/usr/bin/env bash
# Queues a hairswing batch on Slurm as N array tasks plus a merge that runs after all of them.
#   slurm-submit.sh MANIFEST OUT N
# The merged summary is OUT/summary.json; the merge's log says how many jobs failed.
set -euo pipefail
manifest=$(realpath "$1") out=$(realpath -m "$2") n=$3
here=$(dirname "$(realpath "$0")")
# Refused here, before anything is queued, when the manifest is bad:
"${HAIRSWING:-hairswing}" batch "$manifest" --out "$out" --list --quiet > /dev/null
array=$(sbatch --parsable --array=0-$((n - 1)) \
  --export=ALL,MANIFEST="$manifest",OUT="$out" "$here/slurm-array.sh")
sbatch --parsable --dependency=afterany:"$array" --job-name=hairswing-merge \
  --output=hairswing-merge-%j.log \
  --wrap "${HAIRSWING:-hairswing} batch '$manifest' --out '$out' --merge --force"
echo "queued array job $array ($n shards) and its merge"
