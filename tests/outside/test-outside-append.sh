#!/bin/sh
# SPDX-License-Identifier: MIT
# A program appending to a file older than itself (a log): the pages of what
# was in the file before, cached before, stay cached; what it appends is
# written back and dropped.  A file it creates itself is cleaned whole
# (outside-static, outside-attach-dd).
. "$(dirname "$0")/harness.sh"
mkfile "$dir/src" 256
mkfile "$dir/log" 64
# One try: 2 when the log's old pages were lost.
attempt() {
	head -c $((64 * MIB)) "$dir/log" > "$dir/log.new" && mv "$dir/log.new" "$dir/log"
	sync
	sleep 1.1	# born a second before the program starts
	warm "$dir/log" 0 $((64 * MIB)) cat "$dir/log" > /dev/null
	"$PAGECLIFF" run --via outside --stats="$dir/stats" -- sh -c "cat '$dir/src' >> '$dir/log'" ||
		fail "the append failed"
	kept=$(cached "$dir/log" 0 $((64 * MIB)))
	[ "$kept" -eq $((64 * MIB)) ] || return 2
}
warm_tries attempt
[ "$kept" -eq $((64 * MIB)) ] || fail "the log's old pages were dropped: $((kept / MIB)) of 64 MiB left"
[ "$(stat -c %s "$dir/log")" -eq $((320 * MIB)) ] || fail "the log has $(stat -c %s "$dir/log") bytes"
c=$(cached "$dir/log" $((64 * MIB)) 0)
[ "$c" -le "$LIMIT" ] || fail "the appended part: $((c / MIB)) MiB cached"
grep -q "^pagecliff: $dir/log: .* mode writebehind (outside" "$dir/stats" || fail "stats: $(cat "$dir/stats")"
cmp -s -i 0:$((64 * MIB)) "$dir/src" "$dir/log" || fail "the appended bytes differ"
echo "PASS: old pages kept, appended part $((c / MIB)) MiB cached"
