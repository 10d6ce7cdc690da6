#!/bin/sh
# SPDX-License-Identifier: MIT
# A program that forks: its child reads one file, it reads another.  The
# watcher follows the child as well: both files stay within the budget and
# each has a --stats line with its own process id.
. "$(dirname "$0")/harness.sh"
two_files fork || fail "fork failed: $(cat "$dir/out")"
grep -qx "$dir/a: $((256 * MIB)) bytes fd 3" "$dir/out" && grep -qx "$dir/b: $((256 * MIB)) bytes fd 3" "$dir/out" ||
	fail "output: $(cat "$dir/out")"
pa=$(sed -n "s|^pagecliff: $dir/a: .*(outside, pid \([0-9]*\)).*|\1|p" "$dir/stats")
pb=$(sed -n "s|^pagecliff: $dir/b: .*(outside, pid \([0-9]*\)).*|\1|p" "$dir/stats")
[ -n "$pa" ] && [ -n "$pb" ] && [ "$pa" != "$pb" ] || fail "stats: $(cat "$dir/stats")"
at_most "$dir/a"
at_most "$dir/b"
echo "PASS: parent and child followed (cached after:$report)"
