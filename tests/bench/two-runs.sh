#!/bin/bash
# SPDX-License-Identifier: MIT
# Two runs in one directory: while the first holds DIR/pagecliff-bench/, a
# second refuses with one line naming the first (pid, start time), exits 2,
# and touches nothing: the first's files keep their bytes, inode and mtime.
# The first then ends normally and removes what it made.
. "$(dirname "$0")/harness.sh"
tmpdir
"$PAGECLIFF" bench -d "$T" --size 8m --mode buffered --runtime 60 --time_based \
	--interval 100ms -q -o "$T/first.txt" 2>"$T/first.err" &
PID=$!
at_exit 'kill -KILL $PID 2>/dev/null'
wait_for $PID "$T/first.err" grep -q "laid out" "$T/first.err"
grep -q "laid out" "$T/first.err" || fail "first run did not lay out: $(cat "$T/first.err")"
state() { (cd "$T/pagecliff-bench" && stat -c '%n %i %s %Y' * && sha256sum job0.dat); }
before=$(state)
"$PAGECLIFF" bench -d "$T" --size 8m --mode buffered --runtime 1 -q \
	>"$T/out" 2>"$T/err"
rc=$?
drop_cleanup_lines "$T/err"
[ $rc -eq 2 ] || fail "second run exited $rc, want 2: $(cat "$T/err")"
[ "$(wc -l <"$T/err")" -eq 1 ] || fail "second run said $(wc -l <"$T/err") lines: $(cat "$T/err")"
grep -q "^pagecliff: error: '$T' is in use by another pagecliff bench run (pid $PID, started 20[0-9-]* [0-9:]* UTC): wait for it to end or choose another --directory$" \
	"$T/err" || fail "second run said: $(cat "$T/err")"
[ ! -s "$T/out" ] || fail "second run wrote a report: $(cat "$T/out")"
[ "$(state)" = "$before" ] || fail "second run touched the first's files: $before / $(state)"
# Interrupt only once the phase is reading (more than the 8 MiB file read
# through, /proc/PID/io), so the report has a phase to show however slow the
# build (ThreadSanitizer) or the machine.
for _ in $(seq 600); do
	r=$(awk '/^rchar:/ { print $2 }' /proc/$PID/io 2>/dev/null)
	[ "${r:-0}" -gt $((32 << 20)) ] && break
	sleep 0.1
done
kill -INT $PID
wait $PID
rc=$?
[ $rc -eq 130 ] || fail "first run exited $rc, want 130: $(cat "$T/first.err")"
grep -q "^  buffered: " "$T/first.txt" || fail "first run has no report"
[ ! -e "$T/pagecliff-bench" ] || fail "first run left $(ls -A "$T/pagecliff-bench")"
echo "PASS: a second run in a busy directory refused with exit 2, the first untouched"
