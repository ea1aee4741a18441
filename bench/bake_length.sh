#!/usr/bin/env bash
# Bake time against clip length: the ponytail demo avatar baked (one-shot, arc) on generated
# humanoid clips of 60 s to 1 hour, hair still and hair moving (bench/make_long_clip.py). Bake
# should grow linearly with length: the table shows seconds per clip minute for each.
#   bench/bake_length.sh HAIRSWING_CLI WORKDIR [SECONDS...]   (default 60 240 960 3600)
set -euo pipefail
cli=$(realpath "$1") work=$2
shift 2
lengths=("$@")
[[ ${#lengths[@]} -gt 0 ]] || lengths=(60 240 960 3600)
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$work" && cd "$work"
"$cli" make-demo-avatar --variant ponytail -o pony.vrm --force >/dev/null
printf '| clip | length (s) | bake wall (s) | s per clip minute | peak memory (MB) |\n|---|---:|---:|---:|---:|\n'
for kind in still moving; do
  for s in "${lengths[@]}"; do
    python3 "$here/make_long_clip.py" "$s" "$kind" "clip.bvh"
    /usr/bin/time -f "%e %M" -o time.txt "$cli" bake pony.vrm --motion clip.bvh --one-shot \
      -o out.vrm --force >/dev/null
    read -r wall kb < time.txt
    awk -v k="$kind" -v s="$s" -v w="$wall" -v m="$kb" \
      'BEGIN { printf "| %s | %d | %.2f | %.3f | %.0f |\n", k, s, w, w / (s / 60), m / 1024 }'
  done
done
rm -f clip.bvh out.vrm
