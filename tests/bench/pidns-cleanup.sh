#!/bin/bash
# SPDX-License-Identifier: MIT
# Stale-run cleanup from another PID namespace, where the live run's pid does
# not exist: a whole bench run and 'bench --cleanup' there must leave the
# live run's testbed mount, loop device, cgroup and state file alone; the
# live run then ends normally and cleans up after itself.
. "$(dirname "$0")/harness.sh"
needs_root "for the testbed and the memory cgroup"
[ -e /dev/loop-control ] || skip "no loop devices"
command -v unshare >/dev/null || skip "no unshare(1)"
unshare --pid --fork --mount-proc true 2>/dev/null || skip "cannot make a PID namespace"
tmpdir
"$PAGECLIFF" bench --testbed ram:320m --mem-limit 96m --numjobs 1 --size 32m \
	--mode buffered --runtime 60 --time_based --interval 200ms -q >"$T/out" 2>"$T/err" &
PID=$!
at_exit 'kill -KILL $PID 2>/dev/null; wait $PID; "$PAGECLIFF" bench --cleanup 2>/dev/null'
wait_for $PID "$T/err" grep -q "memory cap:" "$T/err"
grep -q "memory cap:" "$T/err" || fail "bench did not reach its phases: $(cat "$T/err")"
cg=$(sed -n 's/^memory cap: .* (cgroup v[12] \(.*\))$/\1/p' "$T/err")
[ -d "$cg" ] || fail "no cgroup '$cg' while running"
mnt=$(sed -n 's/^testbed: .* mounted at \(.*\)$/\1/p' "$T/err")
alive() {
	grep -q " $mnt " /proc/mounts || fail "$1 unmounted the live run's testbed $mnt"
	[ -d "$cg" ] || fail "$1 removed the live run's cgroup $cg"
	losetup -a | grep -q "${mnt%/mnt}/ram/disk.img" || fail "$1 detached the live run's loop device"
	ls /run/pagecliff/bench-$PID*.state >/dev/null 2>&1 || fail "$1 removed the live run's state file"
}
alive "nothing"
unshare --pid --fork --mount-proc "$PAGECLIFF" bench --cleanup >"$T/c.out" 2>"$T/c.err" ||
	fail "--cleanup in a PID namespace: $(cat "$T/c.err")"
grep "removed what a killed run left:.*\(testbed-$PID\|pagecliff-$PID\)" "$T/c.err" &&
	fail "--cleanup in a PID namespace removed the live run's state"
alive "--cleanup in a PID namespace"
unshare --pid --fork --mount-proc "$PAGECLIFF" bench --testbed ram:320m --mem-limit 64m \
	--numjobs 1 --size 16m --mode buffered --runtime 1 -q >"$T/n.out" 2>"$T/n.err" ||
	fail "a run in a PID namespace: $(cat "$T/n.err")"
alive "a run in a PID namespace"
kill -INT $PID
wait $PID
rc=$?
[ $rc -eq 130 ] || fail "the live run exited $rc, want 130: $(cat "$T/err")"
grep -q "^  buffered: " "$T/out" || fail "the live run has no report"
check_nothing_left $PID
echo "PASS: cleanup from another PID namespace left a live run alone"
