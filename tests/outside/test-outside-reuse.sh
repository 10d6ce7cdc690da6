#!/bin/sh
# SPDX-License-Identifier: MIT
# A program closes a file half-way and opens another on the same descriptor
# number: the watcher notices (mount id and inode), finishes the first file
# and follows the second; each has its own --stats line and both stay within
# the budget.
. "$(dirname "$0")/harness.sh"
two_files reuse || fail "reuse failed (not the same number?): $(cat "$dir/out")"
grep -qx "$dir/b: $((256 * MIB)) bytes fd 3" "$dir/out" || fail "output: $(cat "$dir/out")"
grep -q "^pagecliff: $dir/a: .* mode dropbehind (outside" "$dir/stats" || fail "no line for a: $(cat "$dir/stats")"
grep -q "^pagecliff: $dir/b: .* mode dropbehind (outside" "$dir/stats" || fail "no line for b: $(cat "$dir/stats")"
at_most "$dir/a"
at_most "$dir/b"
c=$(cached "$dir/a" 0 $((128 * MIB)))
[ "$c" -le $((16 * MIB)) ] || fail "a's first half: $((c / MIB)) MiB cached"
echo "PASS: a reused descriptor number is a new stream (cached after:$report)"
