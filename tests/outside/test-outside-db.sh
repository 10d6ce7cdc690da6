#!/bin/sh
# SPDX-License-Identifier: MIT
# `pagecliff attach` to a database-style program: it reads and rewrites a
# fully cached 64 MiB file in place with pread/pwrite (its position never
# moves) and grows it by 4 KiB every 50 ms.  That is no appender: the pages
# cached before stay cached, none of its dirty pages is written back by the
# watcher, and its bytes are exact.
. "$(dirname "$0")/lib.sh"
mkfile "$dir/db" 64
sum=$(md5sum < "$dir/db")
for try in 1 2 3; do
	for i in 1 2 3 4 5; do
		cat "$dir/db" > /dev/null
		[ "$(cached "$dir/db" 0 $((64 * MIB)))" -eq $((64 * MIB)) ] && break
	done
	"$OUTSIDE_PROG" db "$dir/db" 3 > "$dir/out" & db=$!
	bg=$db
	sleep 0.5
	"$PAGECLIFF" attach --stats="$dir/stats" $db 2>"$dir/err"; rc=$?
	wait $db || fail "the program failed (its appended blocks differ)"
	bg=
	[ $rc -eq 0 ] || fail "attach exited $rc: $(cat "$dir/err")"
	kept=$(cached "$dir/db" 0 $((64 * MIB)))
	[ "$kept" -eq $((64 * MIB)) ] && break
done
[ "$kept" -eq $((64 * MIB)) ] || fail "pages cached before were dropped: $((kept / MIB)) of 64 MiB left"
[ "$(head -c $((64 * MIB)) "$dir/db" | md5sum)" = "$sum" ] || fail "the first 64 MiB changed"
grep -q "blocks appended" "$dir/out" || fail "the program said: $(cat "$dir/out")"
echo "PASS: 64 of 64 MiB still cached after attach ($(cat "$dir/out"))"
