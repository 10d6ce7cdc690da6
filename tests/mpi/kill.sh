#!/bin/bash
# SPDX-License-Identifier: MIT
# One rank killed (SIGKILL) mid-phase: every rank stops within a bounded
# time and mpirun exits non-zero; the other ranks removed their testbeds
# (mount, loop device), memory cgroups and state as on a signal; what the
# killed rank could not remove, 'pagecliff bench --cleanup' finds and
# removes, as after any killed bench.
. "$(dirname "$0")/harness.sh"
needs_root "for the testbeds and the memory cgroups"
[ -e /dev/loop-control ] || skip "no loop devices"
tmpdir
# mpirun sends SIGTERM this long after a rank died, and SIGKILL as long
# after that (default 1 s): time for the ranks' teardown on a loaded machine
export OMPI_MCA_odls_base_sigkill_timeout=5

start=$(date +%s)
WAIT_FOR='^memory cap:'
start_3 --testbed ram:192m --mem-limit 64m --size 32m -m buffered --time_based --runtime 120s \
	--interval 250ms -q --no-trace
sleep 1.5
kill_rank 1 KILL
took=$(($(date +%s) - start))
# mpirun is gone; its children are reaped by whoever inherits them
for p in $RANKS; do
	for _ in $(seq 100); do
		[ -e "/proc/$p" ] && [ "$(awk '{print $3}' "/proc/$p/stat" 2>/dev/null)" != Z ] ||
			break
		sleep 0.1
	done
	[ -e "/proc/$p" ] && [ "$(awk '{print $3}' "/proc/$p/stat" 2>/dev/null)" != Z ] &&
		fail "rank pid $p still runs 10 s after mpirun: $(ps -o pid,stat,cmd -p "$p")"
done
[ "$(grep -c 'interrupted by signal 15; cleaned up' "$T/err")" = 2 ] ||
	fail "not both other ranks stopped on the signal and cleaned up: $(cat "$T/err")"
for p in $RANKS; do
	[ "$p" = "$VICTIM" ] || check_nothing_left "$p"
done
# the report, from rank 0: what each rank measured, who went silent
grep -q "^failed: rank 1 ($(hostname)) sent nothing for " "$T/out" ||
	fail "the report does not name the killed rank: $(head -20 "$T/out")"
for r in 0 1 2; do
	grep -q "^== rank $r on " "$T/out" || fail "no section for rank $r"
done
# (a bench run of another test may have removed the killed rank's remains)
"$PAGECLIFF" bench --cleanup 2>"$T/clean" || fail "--cleanup: $(cat "$T/clean")"
check_nothing_left "$VICTIM"
echo "rank 1 killed: mpirun exit $RC after ${took} s in all; the others cleaned up; --cleanup removed the killed rank's"
