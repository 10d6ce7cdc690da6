#!/bin/sh
# SPDX-License-Identifier: MIT
# attach refuses in one line, exit 1: a process of another user (as nobody,
# to one of root's), a process that is gone; bad command lines (a bad
# process id among them) exit 2.  The target is not touched.
. "$(dirname "$0")/harness.sh"
needs_root "to attach as nobody to root's process"
sleep 30 & victim=$!
bg=$victim
setpriv --reuid=nobody --regid=nogroup --clear-groups "$PAGECLIFF" attach $victim 2>"$dir/err"
rc=$?
[ $rc -eq 1 ] || fail "as nobody: exit $rc, not 1"
[ "$(wc -l < "$dir/err")" -eq 1 ] || fail "not one line: $(cat "$dir/err")"
grep -qxF "pagecliff: error: cannot attach to process $victim: it belongs to user root: not permitted (run as root or with CAP_SYS_PTRACE)" "$dir/err" ||
	fail "as nobody: $(cat "$dir/err")"
kill -0 $victim || fail "the target is gone"
true & gone=$!
wait $gone
"$PAGECLIFF" attach $gone 2>"$dir/err"; rc=$?
[ $rc -eq 1 ] && grep -qxF "pagecliff: error: cannot attach to process $gone: no such process" "$dir/err" ||
	fail "gone: $rc $(cat "$dir/err")"
"$PAGECLIFF" attach 12x 2>"$dir/err"; [ $? -eq 2 ] &&
	grep -qxF "pagecliff: bad process id '12x': a number from 1 to $(($(cat /proc/sys/kernel/pid_max) - 1))" "$dir/err" ||
	fail "bad id: $(cat "$dir/err")"
"$PAGECLIFF" attach 2>/dev/null; [ $? -eq 2 ] || fail "nothing to attach to: not 2"
"$PAGECLIFF" attach --all $victim 2>/dev/null; [ $? -eq 2 ] || fail "--all with PIDs: not 2"
"$PAGECLIFF" attach --for 3q $victim 2>/dev/null; [ $? -eq 2 ] || fail "bad --for: not 2"
echo "PASS: refusals in one line"
