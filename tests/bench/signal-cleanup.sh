#!/bin/bash
# SPDX-License-Identifier: MIT
# SIGINT and SIGTERM mid-run: the workers stop, the cgroup, mount, loop device
# and state file are gone, and the report of what was measured so far is
# printed; exit 128 + signal.  SIGKILL: the remains are found and removed by
# 'pagecliff bench --cleanup', which says what it removed.
. "$(dirname "$0")/harness.sh"
needs_root "for the testbed and the memory cgroup"
[ -e /dev/loop-control ] || skip "no loop devices"
tmpdir

# Start a long run in the background; wait until its phases run.
start() {
	"$PAGECLIFF" bench --testbed ram:768m --mem-limit 128m --numjobs 1 --size 256m \
		--runtime 60 --time_based --interval 200ms -q >"$T/out" 2>"$T/err" &
	PID=$!
	for _ in $(seq 150); do
		grep -q "memory cap:" "$T/err" && { sleep 1.5; return; }
		kill -0 $PID 2>/dev/null || fail "bench died early: $(cat "$T/err")"
		sleep 0.1
	done
	kill -KILL $PID
	fail "bench did not reach its phases: $(cat "$T/err")"
}

for sig in INT TERM; do
	start
	grep -q "/run/pagecliff/testbed-$PID" /proc/mounts || fail "no testbed mount while running"
	kill -$sig $PID
	wait $PID
	rc=$?
	want=$((128 + $(kill -l $sig)))
	[ $rc -eq $want ] || fail "SIG$sig: exit $rc, want $want: $(cat "$T/err")"
	grep -q "^verdict:" "$T/out" || fail "SIG$sig: no partial report: $(cat "$T/out")"
	grep -q "^  buffered: " "$T/out" || fail "SIG$sig: no buffered figures"
	grep -q "^interrupted" "$T/out" || fail "SIG$sig: report does not say it was interrupted"
	check_nothing_left $PID
	echo "SIG$sig: exit $rc, report printed, nothing left"
done

start
kill -KILL $PID
wait $PID 2>/dev/null
grep -q "/run/pagecliff/testbed-$PID" /proc/mounts || fail "SIGKILL left no mount to clean (test broken)"
"$PAGECLIFF" bench --cleanup 2>"$T/clean" || fail "--cleanup failed: $(cat "$T/clean")"
cat "$T/clean"
grep -q "removed what a killed run left: mount /run/pagecliff/testbed-$PID/mnt" "$T/clean" ||
	fail "--cleanup did not say it removed the mount"
grep -q "removed what a killed run left: cgroup .*pagecliff-$PID" "$T/clean" ||
	fail "--cleanup did not say it removed the cgroup"
check_nothing_left $PID
echo "PASS: SIGINT, SIGTERM cleaned up; SIGKILL remains removed by the next run"
