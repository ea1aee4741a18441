#!/usr/bin/env bash
# hairswing_peer_bench's "replay N" (what bench/profile.sh samples) must step the same frames of
# the head-turn as "run N": the same state hash after N frames, from the start and when it
# follows frames already run (it continues the same loop), in every mode, on the ponytail demo
# (one lone chain and a lane group) and the 12 x 8 stress rig (whole-link checks).
#
#   bench/replay_check.sh PEER_BENCH WORK_DIR
set -euo pipefail
bench=$1 work=$2
rm -rf "$work"
mkdir -p "$work"
"$bench" prepare "$work" >/dev/null
hash_of() { sed -n 's/.*"hash": "\([0-9a-f]*\)".*/\1/p' | tail -1; }
fail=0
for f in demo-ponytail stress-12x8; do
  extra=()
  [[ $f == stress-* ]] && extra=(--segment-checks on)
  for m in arc parent vrm; do
    serve=("$bench" serve "$work/$f.vrm" "$m" "${extra[@]}" --input driven)
    run=$(printf 'run 500\n' | "${serve[@]}" | hash_of)
    replay=$(printf 'replay 500\n' | "${serve[@]}" | hash_of)
    # 500 frames pass the end of the 12 s loop (720 frames) when they start at frame 300.
    run_after=$(printf 'run 300\nrun 500\n' | "${serve[@]}" | hash_of)
    replay_after=$(printf 'run 300\nreplay 500\n' | "${serve[@]}" | hash_of)
    echo "$f $m: run $run, replay $replay; after 300 frames: run $run_after, replay $replay_after"
    if [[ -z $run || $run != "$replay" || -z $run_after || $run_after != "$replay_after" ||
      $run == "$run_after" ]]; then
      echo "  MISMATCH" >&2
      fail=1
    fi
  done
done
[[ $fail == 0 ]] && echo "replay steps the frames run steps"
exit $fail
