#!/bin/sh
# SPDX-License-Identifier: MIT
# `pagecliff run --via outside` on a pread reader (its position never moves:
# it is followed by the page cache's residency) of a file whose first 16 MiB
# were cached before: those stay cached; what it reads past them is dropped.
. "$(dirname "$0")/harness.sh"
mkfile "$dir/f" 256
# One try: 2 when the prefix was lost.
attempt() {
	"$SHIM_PAGESTAT" evict "$dir/f" || fail "evict"
	warm "$dir/f" 0 $((16 * MIB)) head -c $((16 * MIB)) "$dir/f" > /dev/null
	"$PAGECLIFF" run --via outside --stats="$dir/stats" -- "$OUTSIDE_PROG" pread "$dir/f" 256 \
		> "$dir/out" 2>"$dir/err" || fail "the reader failed: $(cat "$dir/err")"
	kept=$(cached "$dir/f" 0 $((16 * MIB)))
	[ "$kept" -eq $((16 * MIB)) ] || return 2
}
warm_tries attempt
[ "$kept" -eq $((16 * MIB)) ] || fail "the prefix cached before was dropped: $((kept / MIB)) of 16 MiB left"
grep -q "$dir/f: $((256 * MIB)) bytes" "$dir/out" || fail "the reader said: $(cat "$dir/out")"
grep -q "^pagecliff: $dir/f: .* mode dropbehind (outside" "$dir/stats" || fail "not followed: $(cat "$dir/stats")"
at_most "$dir/f"
echo "PASS: the 16 MiB cached before stay cached ($report)"
