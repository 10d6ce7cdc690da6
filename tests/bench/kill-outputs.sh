#!/bin/bash
# SPDX-License-Identifier: MIT
# A run killed (SIGKILL) before its report leaves the -o, --timeline and
# --plot files it made, empty; 'pagecliff bench --cleanup' removes them
# (the run's journal names each with its device and inode) and says so, and
# removes nothing bench did not make: an -o file that was there before the
# run stays byte for byte, and so does a file the user put in place of one
# bench made.  Before, --cleanup kept the empty files.
. "$(dirname "$0")/harness.sh"
needs_root "for --cleanup of what root's runs made"
tmpdir
T=$(realpath "$T")

# run_killed DIR OUTPUT-OPTIONS...: a bench run on DIR, SIGKILLed once its data
# is laid out, then --cleanup; its lines in $T/clean
run_killed() {
	local dir=$1
	shift
	mkdir "$dir" || exit 1
	bench_start "$dir" laid_out --size 8m -m buffered --time_based --runtime 60 \
		--interval 200ms "$@"
	"${BEFORE_KILL:-true}"
	kill -KILL $PID
	wait $PID 2>/dev/null
	"$PAGECLIFF" bench --cleanup 2>"$T/clean" || fail "--cleanup: exit $?: $(cat "$T/clean")"
	check_nothing_left $PID
}

# The three outputs bench made, empty when killed: removed, each named.
run_killed "$T/a" -o "$T/report.txt" --timeline "$T/timeline.csv" --plot "$T/chart.svg"
for f in report.txt timeline.csv chart.svg; do
	[ ! -e "$T/$f" ] || fail "--cleanup kept the killed run's $f ($(stat -c %s "$T/$f") bytes)"
	grep -qxF "removed what a killed run left: output $T/$f" "$T/clean" ||
		fail "--cleanup did not name $f: $(cat "$T/clean")"
done

# An -o file of the user's, there before the run: kept, byte for byte.
echo "the user's own report" >"$T/mine.txt"
run_killed "$T/b" -o "$T/mine.txt"
[ "$(cat "$T/mine.txt")" = "the user's own report" ] ||
	fail "the user's -o file changed: $(head -c 200 "$T/mine.txt")"
grep -q "mine.txt" "$T/clean" && fail "--cleanup named the user's file: $(cat "$T/clean")"

# A file the user put in place of the report bench made: kept.
replace() {
	[ -e "$T/swapped.txt" ] || fail "bench did not make swapped.txt (test broken)"
	rm "$T/swapped.txt" && echo "put in its place" >"$T/swapped.txt"
}
BEFORE_KILL=replace run_killed "$T/c" -o "$T/swapped.txt"
[ "$(cat "$T/swapped.txt")" = "put in its place" ] || fail "the file put in the report's place changed"
grep -q "swapped.txt" "$T/clean" && fail "--cleanup named the file put in its place: $(cat "$T/clean")"

echo "PASS: a killed run's own outputs removed by --cleanup, the user's kept"
