#!/bin/sh
# SPDX-License-Identifier: MIT
# `pagecliff attach` to a random reader: it reads a 4 MiB hot set
# once, then 4 KiB every 20 MiB after forward lseeks, over and over.  Forward seeks over
# uncached ranges are no sequential run: the hot set stays cached.
. "$(dirname "$0")/lib.sh"
mkfile "$dir/f" 256
for try in 1 2 3; do
	"$OUTSIDE_PROG" hot "$dir/f" 4 & rd=$!
	bg=$rd
	sleep 0.5
	"$PAGECLIFF" attach --stats="$dir/stats" $rd 2>"$dir/err"; rc=$?
	wait $rd || fail "the reader failed"
	bg=
	[ $rc -eq 0 ] || fail "attach exited $rc: $(cat "$dir/err")"
	kept=$(cached "$dir/f" 0 $((4 * MIB)))
	[ "$kept" -eq $((4 * MIB)) ] && break
done
[ "$kept" -eq $((4 * MIB)) ] || fail "the hot set was dropped: $((kept / 4096)) of 1024 pages left"
echo "PASS: the 4 MiB hot set stays cached after attach"
