#!/bin/bash
# SPDX-License-Identifier: MIT
# The watcher's own CPU on a host where nothing streams: idle processes
# holding many open files, followed by `pagecliff attach PID`, `attach
# --cgroup` and `attach --all` (in a PID namespace of its own, where "all"
# is these processes; with the BPF program, and scanning with
# PAGECLIFF_NO_BPF=1).  For each count of descriptors, the watcher's CPU
# seconds (utime + stime, /proc/PID/stat) over SECS seconds as a share of
# one core, and over the same span less its first FIRST seconds (the first
# look reads every descriptor once).
#
#   sudo bench/guard-idle.sh [BUILD_DIR]            (default build)
#
# Settings by environment: COUNTS (descriptors, "1000 10000 50000"), PROCS
# (processes they are spread over in the cgroup and --all cases, 100),
# SECS (30), FIRST (5), WAYS ("pid cgroup all all-scan").
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
PAGECLIFF=$build/cli/pagecliff
COUNTS=${COUNTS:-"1000 10000 50000"}
PROCS=${PROCS:-100}
SECS=${SECS:-30}
FIRST=${FIRST:-5}
WAYS=${WAYS:-"pid cgroup all all-scan"}
[ "$(id -u)" = 0 ] || { echo "needs root (cgroups, namespaces)" >&2; exit 77; }
[ -x "$PAGECLIFF" ] || { echo "missing $PAGECLIFF: build first (ninja -C $build)" >&2; exit 2; }
command -v python3 >/dev/null || { echo "needs python3" >&2; exit 77; }
ulimit -n 1048576 2>/dev/null || ulimit -n "$(ulimit -Hn)"
tmp=$(mktemp -d /var/tmp/guard-idle.XXXXXX)
cg=
holders=
# stop_holders: the holders' parent and every child it forked
stop_holders() {
	[ -f "$tmp/pids" ] && kill -KILL $(cat "$tmp/pids") 2>/dev/null
	[ -n "$holders" ] && kill -KILL $holders 2>/dev/null
	wait 2>/dev/null
	holders=
	rm -f "$tmp/pids"
}
cleanup() {
	stop_holders
	[ -n "$cg" ] && rmdir "$cg" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
for root_cg in /sys/fs/cgroup/unified /sys/fs/cgroup/memory /sys/fs/cgroup; do
	[ -w "$root_cg/cgroup.procs" ] && { cg=$root_cg/pagecliff-guard-idle-$$; mkdir "$cg"; break; }
done

# holders N P [CGROUP]: P processes holding N open files in all, idle; their
# pids in $tmp/pids, the parent's in $holders.
holders() {
	rm -f "$tmp/pids"
	python3 - "$1" "$2" "$tmp" "${3:-}" >/dev/null 2>&1 <<'PY' &
import os, sys, time
n, p, d, cg = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4]
os.makedirs(d + "/files", exist_ok=True)
per = max(1, n // p)
kids = []
for k in range(p):
    pid = os.fork()
    if pid == 0:
        if cg:
            open(cg + "/cgroup.procs", "w").write(str(os.getpid()))
        fds = [os.open("%s/files/f%d" % (d, k * per + i), os.O_CREAT | os.O_RDWR, 0o644)
               for i in range(per)]
        time.sleep(3600)
        os._exit(0)
    kids.append(pid)
with open(d + "/pids.tmp", "w") as f:
    f.write(" ".join(map(str, kids)) + "\n")
os.rename(d + "/pids.tmp", d + "/pids")
try:
    time.sleep(3600)
finally:
    for k in kids:
        os.kill(k, 9)
PY
	holders=$!
	while [ ! -f "$tmp/pids" ]; do sleep 0.1; done
	sleep 2	# every child has opened its files
}

# cpu PID: its utime + stime in clock ticks
cpu() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
hz=$(getconf CLK_TCK)

# measure PID: "TOTAL% STEADY%" of one core, sampled over SECS
measure() {
	local a b c
	a=$(cpu "$1")
	sleep "$FIRST"
	b=$(cpu "$1")
	sleep $((SECS - FIRST))
	c=$(cpu "$1")
	awk -v a="$a" -v b="$b" -v c="$c" -v hz="$hz" -v s="$SECS" -v f="$FIRST" \
		'BEGIN { printf "%.2f %.2f", 100 * (c - a) / hz / s, 100 * (c - b) / hz / (s - f) }'
}

printf "%-9s %8s %6s %9s %9s\n" way fds procs "cpu %" "steady %"
for n in $COUNTS; do
	for way in $WAYS; do
		case $way in
		pid)
			# a process holds at most the hard RLIMIT_NOFILE (20000 here)
			procs=$(((n + 18999) / 19000))
			holders "$n" $procs
			pids=$(cat "$tmp/pids")
			"$PAGECLIFF" attach $pids >/dev/null 2>&1 & at=$! ;;
		cgroup)
			[ -n "$cg" ] || continue
			holders "$n" "$PROCS" "$cg"
			"$PAGECLIFF" attach --cgroup "$cg" >/dev/null 2>&1 & at=$!
			procs=$PROCS ;;
		all | all-scan)
			# the holders and the guard in one PID namespace: "all" is them
			env=
			[ $way = all-scan ] && env=PAGECLIFF_NO_BPF=1
			echo "$n $PROCS" >"$tmp/ns-args"
			unshare --pid --fork --mount-proc env $env sh -c '
				python3 -c "
import os, sys, time
n, p = map(int, open(sys.argv[1]).read().split())
per = max(1, n // p)
for k in range(p):
    if os.fork() == 0:
        fds = [os.open(\"%s/files/f%d\" % (sys.argv[2], k * per + i), os.O_CREAT | os.O_RDWR, 0o644) for i in range(per)]
        time.sleep(3600)
time.sleep(3600)" "$2/ns-args" "$2" &
				sleep 3
				exec "$1" attach --all 2>/dev/null' sh "$PAGECLIFF" "$tmp" >/dev/null 2>&1 & holders=$!
			mkdir -p "$tmp/files"
			sleep 4
			at=$(pgrep -n -f "pagecliff attach --all" || true)
			[ -n "$at" ] || { echo "$way: the guard did not start" >&2; continue; }
			procs=$PROCS ;;
		esac
		r=$(measure "$at")
		kill -INT "$at" 2>/dev/null
		wait "$at" 2>/dev/null || true
		stop_holders
		printf "%-9s %8s %6s %9s %9s\n" "$way" "$n" "$procs" ${r}
	done
done
