#!/bin/bash
# SPDX-License-Identifier: MIT
# The built-in job without root: it runs in a folder under $TMPDIR, says what
# it could not do (no testbed, no memory cap), still writes the chart, and
# leaves nothing in $TMPDIR.  Its first line is the summary, and the summary
# and the table agree on whether there is a cliff.
. "$(dirname "$0")/harness.sh"
command -v setpriv >/dev/null || skip "no setpriv to drop root"
if [ "$(id -u)" = 0 ]; then
	as_user() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
else
	as_user() { "$@"; }
fi
tmpdir
chmod 777 "$T"
cd "$T" || fail "cd"
TMPDIR=$T as_user "$PAGECLIFF" bench --size 32m --runtime 1 --time_based --interval 100ms \
	-q -o "$T/report.txt" 2>"$T/err"
rc=$?
[ $rc -eq 0 ] || fail "exit $rc: $(cat "$T/err")"
grep -q "^directory: $T\$" "$T/report.txt" || fail "not run in \$TMPDIR: $(grep directory "$T/report.txt")"
grep -q "^note: not root: no RAM testbed" "$T/report.txt" || fail "no note on the testbed"
grep -q "^note: no memory cap: cannot create a memory cgroup" "$T/report.txt" ||
	grep -q "^memory cap: 1.0 GiB" "$T/report.txt" || fail "no word on the memory cap"
grep -q "^  buffered: " "$T/report.txt" || fail "no verdict for buffered"
head -n 1 "$T/report.txt" | grep -q '^summary: ' || fail "first line: $(head -n 1 "$T/report.txt")"
cliffs=$(awk '$1 ~ /^(buffered|direct|auto)$/ && NF >= 12 && $(NF-1) == "yes"' "$T/report.txt" | wc -l)
if head -n 1 "$T/report.txt" | grep -q '^summary: cliff:'; then
	[ "$cliffs" -ge 1 ] || fail "summary says cliff, the table has none"
else
	[ "$cliffs" -eq 0 ] || fail "summary says no cliff, the table has $cliffs"
fi
[ -s "$T/pagecliff-bench.svg" ] || fail "no chart"
[ ! -e "$T/pagecliff-bench" ] || fail "data set left in \$TMPDIR: $(ls "$T/pagecliff-bench")"
head -n 1 "$T/report.txt"
sed -n '/^verdict:/,$p' "$T/report.txt"
echo "PASS: built-in job without root"
