#!/usr/bin/env bash
# Instructions per joint-step of the solver's frame call, counted by valgrind (callgrind): unlike
# wall time on a shared machine, the count does not move with the load, so two builds compare
# to the instruction. For each file and mode: the instructions of `hairswing_peer_bench serve`
# over 241 frames minus those over 1 frame (loading cancels), divided by 240 frames x 2 steps x
# the joints (vrm-frame: vrm mode stepped once per frame as three-vrm steps, 1 step). Arc and
# parent with whole-link checks on the stress rigs, as the peer table.
#
#   bench/instructions.sh OUT_DIR BENCH [OTHER_BENCH]   (files: OUT_DIR/*.vrm from --peer)
#
# With OTHER_BENCH (e.g. the peer bench binary of an older commit), both columns and the ratio.
set -euo pipefail
out=$1
bins=("$2")
[[ $# -ge 3 ]] && bins+=("$3")
command -v valgrind >/dev/null || { echo "instructions: valgrind is not installed" >&2; exit 2; }
count() {  # BIN FILE MODE FRAMES EXTRA...
  local b=$1 f=$2 m=$3 n=$4
  shift 4
  echo "run $n" | valgrind --tool=callgrind --callgrind-out-file=/dev/null "$b" serve "$f" "$m" "$@" \
    --input driven 2>&1 >/dev/null | awk '/refs:/ { gsub(",", "", $NF); print $NF }'
}
per_step() {  # BIN FILE MODE EXTRA...  (MODE vrm-frame: vrm stepped once per frame)
  local b=$1 f=$2 m=$3
  shift 3
  local joints one many steps=2
  if [[ $m == vrm-frame ]]; then
    m=vrm steps=1
    set -- "$@" --stepping frame
  fi
  joints=$(echo "run 1" | "$b" serve "$f" "$m" "$@" --input driven 2>/dev/null | head -1 |
    sed -n 's/.*"joints": \([0-9]*\).*/\1/p' || true)
  [[ -n $joints ]] || { echo "n/a"; return; }  # e.g. an older build without --stepping
  one=$(count "$b" "$f" "$m" 1 "$@")
  many=$(count "$b" "$f" "$m" 241 "$@")
  echo $(( (many - one) / (240 * steps * joints) ))
}
header="| file | mode | instructions per joint-step |"
[[ ${#bins[@]} -eq 2 ]] && header="| file | mode | this build | other build | other / this |"
echo "$header"
echo "|---|---|---:|$([[ ${#bins[@]} -eq 2 ]] && echo '---:|---:|')"
for f in "$out"/*.vrm; do
  extra=()
  [[ $f == *stress* ]] && extra=(--segment-checks on)
  for m in arc parent vrm vrm-frame; do
    a=$(per_step "${bins[0]}" "$f" "$m" "${extra[@]}")
    if [[ ${#bins[@]} -eq 2 ]]; then
      b=$(per_step "${bins[1]}" "$f" "$m" "${extra[@]}")
      ratio=n/a
      [[ $a != n/a && $b != n/a ]] && ratio=$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.2fx", b / a }')
      echo "| $(basename "$f") | $m | $a | $b | $ratio |"
    else
      echo "| $(basename "$f") | $m | $a |"
    fi
  done
done
