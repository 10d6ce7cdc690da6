#!/bin/sh
# SPDX-License-Identifier: MIT
# Targets killed mid-stream and the watcher stopped mid-stream: run passes a
# SIGKILL death on (137) and a SIGTERM sent to run reaches the program (143);
# nothing of pagecliff is left running and the files stay within the budget.
# attach stopped by SIGINT exits 0 at once and the program copies on, exact.
. "$(dirname "$0")/harness.sh"
P=${OUTSIDE_STATIC:-$OUTSIDE_PROG}
mkfile "$dir/src" 256

# child_of PID: the program run started.
child_of() {
	for i in $(seq 200); do
		c=$(cat /proc/$1/task/*/children 2>/dev/null | tr -s ' ' '\n' | head -1)
		[ -n "$c" ] && [ "$(pos_of "$c" 3)" -gt $((32 * MIB)) ] && { echo "$c"; return; }
		sleep 0.02
	done
	fail "run started no program"
}
for sig in KILL TERM; do
	rm -f "$dir/dst"
	"$PAGECLIFF" run --via outside -- "$P" copy "$dir/src" "$dir/dst" 64 >/dev/null & run=$!
	bg=$run
	c=$(child_of $run)
	if [ $sig = KILL ]; then kill -KILL "$c"; want=137; else kill -TERM $run; want=143; fi
	wait $run; rc=$?
	[ $rc -eq $want ] || fail "SIG$sig: run exited $rc, not $want"
	kill -0 $run 2>/dev/null && fail "SIG$sig: run is still there"
	at_most "$dir/src"
	at_most "$dir/dst"
done

rm -f "$dir/dst"
# 32 MiB/s, 8 s: the copy must outlive attach's start and stop even on a
# loaded machine (at 96 MiB/s, 2.7 s, it ended first once under ASan)
"$P" copy "$dir/src" "$dir/dst" 32 >/dev/null & cp=$!
bg=$cp
sleep 1
"$PAGECLIFF" attach $cp & at=$!
bg="$cp $at"
sleep 0.5
kill -INT $at
wait $at; rc=$?
[ $rc -eq 0 ] || fail "attach stopped by SIGINT exited $rc"
kill -0 $cp 2>/dev/null || fail "the copy did not outlive attach"
wait $cp || fail "the copy failed after attach stopped"
cmp -s "$dir/src" "$dir/dst" || fail "the copy differs"
echo "PASS: killed targets and a stopped watcher leave nothing behind (cached after:$report)"
