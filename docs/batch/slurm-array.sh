#!/usr/bin/env bash
# One shard of a hairswing batch per Slurm array task (docs/batch.md). Submit with slurm-submit.sh,
# which sizes the array and queues the merge after it; or by hand:
#   sbatch --array=0-15 --export=ALL,MANIFEST=/shared/library.json,OUT=/shared/library-out slurm-array.sh
# MANIFEST and OUT must be on storage every node sees. The task index is the shard, the array
# size the shard count, so `--array=0-15` runs shards 0/16 .. 15/16.
#SBATCH --job-name=hairswing-batch
#SBATCH --cpus-per-task=2
#SBATCH --mem=4G
#SBATCH --time=04:00:00
#SBATCH --output=hairswing-batch-%A_%a.log
set -euo pipefail
: "${MANIFEST:?set MANIFEST to the path of the manifest}"
: "${OUT:?set OUT to the output folder}"
: "${SLURM_ARRAY_TASK_ID:?run this as a Slurm array job (sbatch --array=0-N)}"
count=${SLURM_ARRAY_TASK_COUNT:-1}
# Exit 1 means some jobs failed and are recorded in the shard's summary: the task itself did its
# work, so it ends successfully and the merge runs. Exit 2 (bad manifest, unwritable folder) stays
# a task failure.
rc=0
"${HAIRSWING:-hairswing}" batch "$MANIFEST" --out "$OUT" --shard "$SLURM_ARRAY_TASK_ID/$count" \
  --threads "${SLURM_CPUS_PER_TASK:-0}" --quiet || rc=$?
[[ $rc -le 1 ]] || exit "$rc"
