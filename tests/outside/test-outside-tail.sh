#!/bin/sh
# SPDX-License-Identifier: MIT
# A reader's last stretch read after the watcher's last look, on a file that
# looks warm ahead (its last 8 MiB were cached before): the reader reads
# 192 MiB paced, pauses, reads the other 64 MiB in one read(2) and exits.
# When its stream ends the watcher drops that stretch as far as its
# snapshots reach, and keeps what they saw cached: the stretch ends with at
# most one batch (8 MiB) cached, the last 8 MiB all.
. "$(dirname "$0")/harness.sh"
mkfile "$dir/f" 256
for try in 1 2; do
	"$SHIM_PAGESTAT" evict "$dir/f" || fail "evict"
	for i in 1 2 3 4 5; do
		dd if="$dir/f" of=/dev/null bs=1M skip=248 count=8 status=none || fail "cannot warm"
		[ "$(cached "$dir/f" $((248 * MIB)) $((8 * MIB)))" -eq $((8 * MIB)) ] && break
	done
	"$PAGECLIFF" run --via outside --stats="$dir/stats" -- "$OUTSIDE_PROG" burst "$dir/f" 192 \
		> "$dir/out" 2>"$dir/err" || fail "the reader failed: $(cat "$dir/err")"
	kept=$(cached "$dir/f" $((248 * MIB)) $((8 * MIB)))
	[ "$kept" -eq $((8 * MIB)) ] && break	# reclaim may take a warm page: again
done
grep -q "$dir/f: $((256 * MIB)) bytes" "$dir/out" || fail "the reader said: $(cat "$dir/out")"
grep -q "^pagecliff: $dir/f: .* mode dropbehind (outside" "$dir/stats" || fail "not followed: $(cat "$dir/stats")"
tail=$(cached "$dir/f" $((192 * MIB)) $((56 * MIB)))
[ "$tail" -le $((8 * MIB)) ] || fail "$((tail / MIB)) MiB of the last stretch stay cached (at most 8)"
[ "$kept" -eq $((8 * MIB)) ] || fail "the 8 MiB cached before were dropped: $((kept / MIB)) MiB left"
echo "PASS: the last stretch dropped at the end ($((tail / MIB)) MiB of 56 left), the warm 8 MiB kept"
