#!/bin/sh
# SPDX-License-Identifier: MIT
# The host guard's own CPU with many idle processes: 500 sleeping processes
# with 20 open files each, `attach --all` by kernel events and by scanning
# (PAGECLIFF_NO_BPF), three rounds interleaved.  The guard's user+system time
# is read from /proc/PID/stat from 0.5 s to 2.5 s after its start (the start,
# when the scan opens a pidfd per process, left out): four 0.5 s intervals.
# By kernel events it must cost at most a quarter of scanning (a ratio: no
# absolute time).  Prints both medians in ms per interval.
. "$(dirname "$0")/harness.sh"
. "$(dirname "$0")/hot-harness.sh"
[ "$(id -u)" = 0 ] || skip "following every process of the host needs root"
command -v unshare >/dev/null || skip "no unshare (util-linux)"
command -v bash >/dev/null || skip "no bash (to open 20 descriptors past 9)"
NPROC=${HOT_CPU_PROCS:-500}
for i in $(seq 10 29); do echo "$i" >"$dir/f$i"; done
# round.sh DIR PAGECLIFF MODE: the clock ticks one guard used in its window.
cat >"$dir/round.sh" <<'ROUND'
d=$1 pagecliff=$2 mode=$3
if [ "$mode" = scan ]; then export PAGECLIFF_NO_BPF=1; else unset PAGECLIFF_NO_BPF; fi
"$pagecliff" attach --all --for 3s --stats="$d/stats-$mode" 2>>"$d/err" & a=$!
sleep 0.5
t0=$(awk '{ print $14 + $15 }' /proc/$a/stat)
sleep 2
t1=$(awk '{ print $14 + $15 }' /proc/$a/stat)
wait $a || exit 4
echo $((t1 - t0))
ROUND
unshare --pid --fork --mount-proc bash -c '
	d=$1
	for i in $(seq 10 29); do eval "exec $i<\"$d/f$i\""; done
	for i in $(seq '"$NPROC"'); do sleep 300 & done
	for i in $(seq 10 29); do eval "exec $i<&-"; done
	sleep 1
	for r in 1 2 3; do
		for m in bpf scan; do
			t=$(sh "$d/round.sh" "$d" "$2" $m) || exit 4
			echo "$m $t" >>"$d/ticks"
		done
	done
	kill $(jobs -p) 2>/dev/null' bash "$dir" "$PAGECLIFF"
rc=$?
[ $rc -eq 0 ] || fail "attach --all failed ($rc): $(cat "$dir/err" 2>/dev/null)"
need_kernel_events "$dir/stats-bpf"
grep -q "candidates by scanning" "$dir/stats-scan" || fail "the scan run did not scan: $(cat "$dir/stats-scan")"
hz=$(getconf CLK_TCK)
# median MODE: the middle of the three runs' ticks.
median() { awk -v m="$1" '$1 == m { print $2 }' "$dir/ticks" | sort -n | sed -n 2p; }
b=$(median bpf) s=$(median scan)
ms() { awk -v t="$1" -v hz="$hz" 'BEGIN { printf "%.1f", t * 1000 / hz / 4 }'; }
echo "guard CPU per 0.5 s interval, $NPROC idle processes x 20 files, medians of 3:" \
	"kernel events $(ms "$b") ms, scanning $(ms "$s") ms (ticks: $(tr '\n' ' ' <"$dir/ticks"))"
[ "$s" -gt 0 ] || fail "scanning used no measurable CPU: the measure cannot tell"
[ $((b * 4)) -le "$s" ] || fail "kernel events cost more than a quarter of scanning"
echo "PASS: the guard by kernel events costs $b ticks against $s scanning"
