#!/bin/sh
# SPDX-License-Identifier: MIT
# `pagecliff attach` to a database-style program: it reads and rewrites a
# fully cached 64 MiB file in place with pread/pwrite (its position never
# moves) and grows it by 4 KiB every 50 ms.  That is no appender: the pages
# cached before stay cached, none of its dirty pages is written back by the
# watcher, and its bytes are exact.
. "$(dirname "$0")/harness.sh"
mkfile "$dir/db" 64
sum=$(md5sum < "$dir/db")
# One try: warm the file, attach; 2 when warm pages were lost.
attempt() {
	warm "$dir/db" 0 $((64 * MIB)) cat "$dir/db" > /dev/null
	"$OUTSIDE_PROG" db "$dir/db" 3 > "$dir/out" &
	attach_to $! "the program failed (its appended blocks differ)"
	kept=$(cached "$dir/db" 0 $((64 * MIB)))
	[ "$kept" -eq $((64 * MIB)) ] || return 2
}
warm_tries attempt
[ "$kept" -eq $((64 * MIB)) ] || fail "pages cached before were dropped: $((kept / MIB)) of 64 MiB left"
[ "$(head -c $((64 * MIB)) "$dir/db" | md5sum)" = "$sum" ] || fail "the first 64 MiB changed"
grep -q "blocks appended" "$dir/out" || fail "the program said: $(cat "$dir/out")"
echo "PASS: 64 of 64 MiB still cached after attach ($(cat "$dir/out"))"
