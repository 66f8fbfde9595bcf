#!/usr/bin/env bash
# Side-by-side solver benchmark: tdoku's run_benchmark and `arena bench`, each
# pinned to its own core, run at the same time, then with the cores swapped,
# REPEAT times; prints the median puzzles/s of each, the ratio of the
# medians arena/tdoku, and the median of the ratios of each pair of runs
# (made at the same time, or one right after the other), which a machine
# whose speed drifts between runs moves less. Both count solutions up to
# two (the uniqueness check).
#
# usage: scripts/bench-vs-tdoku.sh TDOKU_RUN_BENCHMARK ARENA_BINARY SECONDS REPEAT FILE...
# tdoku is built separately (github.com/t-dillon/tdoku, -O3 -march=native).
# CORES names the two cores to pin to (default "0 1"). SEQ=1 runs the two
# one after the other on the first of them instead, which is steadier on a
# virtual machine whose cores may share a physical one.
set -euo pipefail
if [ $# -lt 5 ]; then
	echo "usage: $0 TDOKU_RUN_BENCHMARK ARENA_BINARY SECONDS REPEAT FILE..." >&2
	exit 2
fi
tdoku=$1 arena=$2 secs=$3 repeat=$4
shift 4
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
median() { sort -g | awk '{v[NR]=$1} END {print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }
printf '%-36s %10s %10s %7s %7s\n' file tdoku/s arena/s ratio pairs
for f in "$@"; do
	: >"$tmp/t" ; : >"$tmp/a"
	for ((i = 0; i < repeat; i++)); do
		read -r c0 c1 <<<"${CORES:-0 1}"
		for pair in "$c0 $c1" "$c1 $c0"; do
			set -- $pair
			if [ "${SEQ:-}" = 1 ]; then
				set -- "$c0" "$c0"
				taskset -c "$1" "$tdoku" -s tdoku -t "$secs" -w 1 -c 1 "$f" | awk -F, '{print $(NF-3)}' >>"$tmp/t"
			else
				taskset -c "$1" "$tdoku" -s tdoku -t "$secs" -w 1 -c 1 "$f" | awk -F, '{print $(NF-3)}' >>"$tmp/t" &
			fi
			taskset -c "$2" "$arena" bench -t "$secs" "$f" | awk 'NR==2 {print $3}' >>"$tmp/a"
			wait
		done
	done
	t=$(median <"$tmp/t") a=$(median <"$tmp/a")
	p=$(paste -d' ' "$tmp/a" "$tmp/t" | awk '{printf "%.6f\n", $1 / $2}' | median)
	printf '%-36s %10.0f %10.0f %6.2fx %6.2fx\n' "$(basename "$f")" "$t" "$a" "$(echo "$a / $t" | bc -l)" "$p"
done
echo "$(lscpu | sed -n 's/^Model name: *//p'), $(date -u +%F), ${repeat}x2 runs of ${secs}s each, median"
