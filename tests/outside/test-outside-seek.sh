#!/bin/sh
# SPDX-License-Identifier: MIT
# `pagecliff attach` to a random reader: it reads a 4 MiB hot set
# once, then 4 KiB every 20 MiB after forward lseeks, over and over.  Forward seeks over
# uncached ranges are no sequential run: the hot set stays cached.
. "$(dirname "$0")/harness.sh"
mkfile "$dir/f" 256
# One try: 2 when the hot set was dropped (reclaim, or the watcher).
attempt() {
	"$OUTSIDE_PROG" hot "$dir/f" 4 &
	attach_to $! "the reader failed"
	kept=$(cached "$dir/f" 0 $((4 * MIB)))
	[ "$kept" -eq $((4 * MIB)) ] || return 2
}
warm_tries attempt
[ "$kept" -eq $((4 * MIB)) ] || fail "the hot set was dropped: $((kept / 4096)) of 1024 pages left"
echo "PASS: the 4 MiB hot set stays cached after attach"
