#!/usr/bin/env bash
# Where the solver's frame call spends its time, by function: a sampling profile (perf, on the
# processor clock, so it needs no hardware counters and works in a virtual machine).
# valgrind's instruction counts (bench/instructions.sh) say how much work each function does;
# this says how long it takes, which is not the same: a chain of dependent square roots and
# divisions costs more time than its instructions suggest, independent vector arithmetic less.
#
#   bench/profile.sh BENCH FILE MODE [SECONDS]
#
# BENCH is hairswing_peer_bench. It replays the 60 fps head-turn on FILE in MODE (arc, parent,
# vrm) through DrivenFrameDriver::Advance for about SECONDS (default 5), the driver transforms
# computed beforehand, so that nearly every sample falls in the solver. Prints the time per frame
# and each function's share of the samples (those above 0.5 %); the stress rigs run with
# whole-link checks, as in the peer table.
set -euo pipefail
bench=$1 file=$2 mode=$3 seconds=${4:-5}
command -v perf >/dev/null || { echo "profile: perf is not installed (scripts/setup --profile)" >&2; exit 2; }
extra=()
[[ $(basename "$file") == stress-* ]] && extra=(--segment-checks on)
serve=("$bench" serve "$file" "$mode" "${extra[@]}" --input driven)
# Frames for the asked duration, from a short replay.
ns=$(echo "replay 2000" | "${serve[@]}" | sed -n 's/.*"ns_per_frame": \([0-9.]*\).*/\1/p')
[[ -n $ns ]] || { echo "profile: $bench could not replay $file" >&2; exit 2; }
frames=$(awk -v s="$seconds" -v ns="$ns" 'BEGIN { n = int(s * 1e9 / ns); print n < 1000 ? 1000 : n }')
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if ! echo "replay $frames" | perf record -q -e cpu-clock -F 4999 -o "$tmp/perf.data" -- \
  "${serve[@]}" >"$tmp/out.txt" 2>"$tmp/err.txt"; then
  echo "profile: perf record failed (as a user other than root, kernel.perf_event_paranoid may" \
    "forbid it):" >&2
  cat "$tmp/err.txt" >&2
  exit 2
fi
line=$(sed -n 2p "$tmp/out.txt")
under=$(echo "$line" | sed -n 's/.*"ns_per_frame": \([0-9.]*\).*/\1/p')
echo "$(basename "$file") $mode: $frames frames, $under ns per frame while sampled ($ns in a" \
  "short run without the profiler; both move with the machine's load)"
echo
echo "| share of samples | function |"
echo "|---:|---|"
perf report -i "$tmp/perf.data" --stdio --no-children --sort sym --percent-limit 0.5 2>/dev/null |
  awk '/^ *[0-9.]+%/ {
    share = $1; $1 = ""; $2 = ""; sub(/^ +/, "");
    gsub(/\|/, "\\|"); printf "| %s | %s |\n", share, $0 }'
