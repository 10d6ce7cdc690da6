#!/bin/sh
# SPDX-License-Identifier: MIT
# One watcher, two streams: a writer rewriting a file in place (the
# flusher's case) on a file system whose device writes 8 MiB/s (a blkio
# throttle on a loop device of the test's own), and a reader of another
# file at 256 MiB/s.  Each of the writer's batches takes a second to write
# back; the watcher asks cachestat(2) at each look which finished instead of
# waiting for them, so the reader is looked at on its own pace: its file
# never holds much more than the budget cached while it runs.  The bytes
# written are checked, the file within the budget after.
. "$(dirname "$0")/harness.sh"
needs_root "(a loop device, a blkio throttle)"
THROTTLE=/sys/fs/cgroup/blkio/blkio.throttle.write_bps_device
[ -w "$THROTTLE" ] || skip "no cgroup v1 blkio throttle to slow a device with"
loopfs "$dir/fs" ext4 384M
mkfile "$dir/r" 512
mkfile "$dir/w-src" 128
head -c $((128 * MIB)) /dev/zero > "$dir/fs/w" && sync || fail "cannot make the file to rewrite"
"$SHIM_PAGESTAT" evict "$dir/fs/w" || fail "evict"
dev=$(lsblk -ndo MAJ:MIN "$LOOPFS_DEV" | tr -d ' ')
echo "$dev 8388608" > "$THROTTLE" || skip "the blkio throttle refused $dev"
at_exit "echo '$dev 0' > '$THROTTLE'"
mkfifo "$dir/fifo" || fail "mkfifo"
"$PAGECLIFF" run --via outside --stats="$dir/stats" -- sh -c "
	'$OUTSIDE_PROG' copy '$dir/w-src' '$dir/fifo' 32 >/dev/null &
	dd if='$dir/fifo' of='$dir/fs/w' bs=1M iflag=fullblock conv=notrunc status=none &
	'$OUTSIDE_PROG' read '$dir/r' 256 >'$dir/out' &
	wait" & run=$!
bg=$run
peak=0
while kill -0 $run 2>/dev/null; do
	c=$(cached "$dir/r")
	[ "$c" -gt "$peak" ] && peak=$c
	grep -q bytes "$dir/out" 2>/dev/null && break	# the reader is done
	sleep 0.02
done
wait $run || fail "the programs failed"
bg=
cmp -s "$dir/w-src" "$dir/fs/w" || fail "the rewritten file differs"
grep -qx "$dir/r: $((512 * MIB)) bytes fd 3" "$dir/out" || fail "the reader said: $(cat "$dir/out")"
grep -q "^pagecliff: $dir/fs/w: .* mode writebehind (outside" "$dir/stats" ||
	fail "the writer was not followed: $(cat "$dir/stats")"
[ "$peak" -le $((96 * MIB)) ] ||
	fail "the reader's file held $((peak / MIB)) MiB cached while the writer's writeback was slow (at most 96: the budget and a readahead)"
at_most "$dir/r"
echo "PASS: the reader's file peaked at $((peak / MIB)) MiB beside a writer on an 8 MiB/s device (cached after:$report)"
