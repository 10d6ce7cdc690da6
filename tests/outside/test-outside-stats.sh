#!/bin/sh
# SPDX-License-Identifier: MIT
# The --stats line of a watched writer counts each byte once: a 256 MiB copy
# has at most 256 MiB written and at most 256 MiB written back early.
. "$(dirname "$0")/harness.sh"
mkfile "$dir/src" 256
"$PAGECLIFF" run --via outside --stats="$dir/stats" -- "$OUTSIDE_PROG" copy "$dir/src" "$dir/dst" 512 \
	>/dev/null 2>"$dir/err" || fail "the copy failed: $(cat "$dir/err")"
cmp -s "$dir/src" "$dir/dst" || fail "the copy differs"
line=$(grep "^pagecliff: $dir/dst: " "$dir/stats") || fail "no line for dst: $(cat "$dir/stats")"
w=$(echo "$line" | sed -n 's/.*: \([0-9]*\) bytes written,.*/\1/p')
e=$(echo "$line" | sed -n 's/.*, \([0-9]*\) bytes written back early,.*/\1/p')
[ -n "$w" ] && [ -n "$e" ] || fail "cannot parse: $line"
[ "$w" -le $((256 * MIB)) ] || fail "$w bytes written counted for a 256 MiB file"
[ "$e" -le $((256 * MIB)) ] || fail "$e bytes written back early counted for a 256 MiB file"
[ "$e" -gt 0 ] || fail "nothing written back early: $line"
echo "PASS: $w bytes written, $e written back early"
