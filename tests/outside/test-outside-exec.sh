#!/bin/sh
# SPDX-License-Identifier: MIT
# A program reads half a file, then executes another program that reads the
# rest on the same descriptor (it survives the exec): the watcher notices the
# exec (--stats says so), ends the old program's stream there and follows
# the descriptor afresh; each program has its own --stats line, the bytes
# are all read and the file stays within the budget.
. "$(dirname "$0")/harness.sh"
mkfile "$dir/a" 256
"$PAGECLIFF" run --via outside --stats="$dir/stats" -- "${OUTSIDE_STATIC:-$OUTSIDE_PROG}" \
	exec "$dir/a" 200 >"$dir/out" || fail "the program failed: $(cat "$dir/out")"
grep -qx "$dir/a: $((128 * MIB)) bytes fd 3" "$dir/out" || fail "output: $(cat "$dir/out")"
grep -qx "rest: $((128 * MIB)) bytes fd 3" "$dir/out" || fail "output: $(cat "$dir/out")"
grep -q "^pagecliff: pid [0-9]* executed [^ ]*/outside-prog[^ ]*: its streams are followed afresh" "$dir/stats" ||
	fail "the exec was not noticed: $(cat "$dir/stats")"
n=$(grep -c "^pagecliff: $dir/a: .* mode dropbehind (outside" "$dir/stats")
[ "$n" -eq 2 ] || fail "$n --stats lines for a, not one per program: $(cat "$dir/stats")"
at_most "$dir/a"
echo "PASS: an exec ends the old program's streams (cached after:$report)"
