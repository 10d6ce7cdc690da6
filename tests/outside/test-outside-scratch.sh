#!/bin/sh
# SPDX-License-Identifier: MIT
# Scratch files (created and unlinked, written, read back: restic's
# temporary packs): their pages die with the last close, dirty or not, so
# the watcher leaves a deleted file's last budget's worth alone.  One of 48
# MiB gets no writeback at all (plainly it never reaches the disk); one of
# 320 MiB is written back behind the writer except its last 64 MiB.  Both
# read back right.
. "$(dirname "$0")/harness.sh"
"$PAGECLIFF" run --via outside --stats="$dir/stats" -- "$OUTSIDE_PROG" scratch "$dir/s1" 48 128 \
	>"$dir/out" || fail "the small scratch file failed: $(cat "$dir/out")"
grep -qx "scratch: 48 MiB written and read back, 0 wrong" "$dir/out" || fail "output: $(cat "$dir/out")"
line=$(grep "^pagecliff: $dir/s1 (deleted): " "$dir/stats") || fail "not followed: $(cat "$dir/stats")"
wb=$(echo "$line" | sed -n 's/.*, \([0-9]*\) bytes written back early,.*/\1/p')
[ "$wb" = 0 ] || fail "$wb bytes of a 48 MiB deleted file were written back: $line"
"$PAGECLIFF" run --via outside --stats="$dir/stats2" -- "$OUTSIDE_PROG" scratch "$dir/s2" 320 256 \
	>"$dir/out" || fail "the large scratch file failed: $(cat "$dir/out")"
grep -qx "scratch: 320 MiB written and read back, 0 wrong" "$dir/out" || fail "output: $(cat "$dir/out")"
# the position writer's line, and the kernel view's where it took over
line=$(grep "^pagecliff: $dir/s2 (deleted): " "$dir/stats2") || fail "not followed: $(cat "$dir/stats2")"
wb2=$(echo "$line" | sed -n 's/.*, \([0-9]*\) bytes written back early,.*/\1/p' |
	awk '{ s += $1 } END { print s + 0 }')
[ -n "$wb2" ] && [ "$wb2" -ge $((192 * MIB)) ] && [ "$wb2" -le $((256 * MIB)) ] ||
	fail "$((wb2 / MIB)) MiB of a 320 MiB deleted file written back (192 to 256 expected): $line"
echo "PASS: 48 MiB scratch file: nothing written back; 320 MiB: $((wb2 / MIB)) MiB written back behind"
