#!/bin/bash
# SPDX-License-Identifier: MIT
# Kills at random moments of `pagecliff bench --testbed ram --mem-limit`:
# while the testbed is made, while the data is laid out, while a phase runs,
# while the report is written.  After SIGINT or SIGTERM nothing remains
# (cgroup, mount, loop device, tmpfs file, state, temporary folder); after
# SIGKILL the next run removes what was left and says so.
. "$(dirname "$0")/../bench/harness.sh"
needs_root "for the testbed and the memory cgroup"
[ -e /dev/loop-control ] || skip "no loop devices"
tmpdir

# Whether process $1 runs pagecliff and has a handler for signal $2 (SigCgt
# in its status; before the exec it is the shell's).
caught() {
	local mask
	[ "$(readlink "/proc/$1/exe")" = "$(readlink -f "$PAGECLIFF")" ] || return 1
	mask=$(sed -n 's/^SigCgt:[[:space:]]*//p' "/proc/$1/status" 2>/dev/null)
	[ -n "$mask" ] && (((0x$mask >> ($2 - 1)) & 1))
}

# Nine kills, three of each signal; three in the sanitized builds' quick runs.
runs=9
[ "${PAGECLIFF_TEST_QUICK:-}" = 1 ] && runs=3
RUNS=${KILL_RUNS:-$runs}
RANDOM=${KILL_SEED:-$$}
sigs=(INT TERM KILL)
for ((i = 0; i < RUNS; i++)); do
	sig=${sigs[i % 3]}
	# The run takes over 4 s here: 0 to 3.5 s hits every stage.
	ms=$((RANDOM % 3500))
	delay=$(printf "%d.%03d" $((ms / 1000)) $((ms % 1000)))
	"$PAGECLIFF" bench --testbed ram:640m --mem-limit 128m --numjobs 1 --size 192m \
		--mode buffered,direct --runtime 2 --time_based --interval 200ms -q \
		>"$T/out" 2>"$T/err" &
	pid=$!
	# A background job of a script starts with SIGINT ignored, until bench
	# sets its handler: a signal before that is lost (seen under TSan at
	# 2 ms), so the delay counts from the handler
	for ((w = 0; w < 500; w++)); do
		caught $pid "$(kill -l INT)" || ! kill -0 $pid 2>/dev/null && break
		sleep 0.01
	done
	sleep "$delay"
	kill -"$sig" $pid 2>/dev/null
	wait $pid
	rc=$?
	if [ "$sig" = KILL ]; then
		"$PAGECLIFF" bench --cleanup 2>"$T/clean" || fail "--cleanup after SIGKILL at ${delay}s failed: $(cat "$T/clean")"
		if grep -q "/run/pagecliff/testbed-$pid" /proc/mounts; then
			fail "--cleanup left the testbed of run $pid mounted"
		fi
		[ $rc = 137 ] || fail "SIGKILL at ${delay}s: exit $rc, so the run had ended: make it longer"
	elif [ $rc != $((128 + $(kill -l $sig))) ]; then
		fail "SIG$sig at ${delay}s: exit $rc: $(tail -3 "$T/err")"
	fi
	check_nothing_left $pid
	echo "SIG$sig at ${delay}s: exit $rc, nothing left"
done
echo "PASS: $RUNS kills at random moments left nothing behind"
