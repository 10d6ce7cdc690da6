#!/bin/bash
# SPDX-License-Identifier: MIT
# A full file system reaches the user as the kernel says it: for every
# --mode, cp to a 16 MiB tmpfs and to a 32 MiB ext4 says "error writing
# 'DST': No space left on device" (cp(1)'s words), exit 1, and the partial
# count it gives is the destination's size on disk, whatever was in flight.
# A 300 KiB file fills each first, so that a write finds less room than it
# asks for: a short write, then the errno of the retry (ENOSPC, not an EIO
# of cp's own).  bench's layout likewise: the file system fills as it opens
# its data file (a fanotify watcher, fanwatch.py), and it names ENOSPC,
# not the ENOENT of a file it could not find again.
set -u
. "$(dirname "$0")/harness.sh"
needs_root "for a loop device and mounts"
command -v mkfs.ext4 >/dev/null || skip "mkfs.ext4 is not installed"
make_tmpdir work /tmp
tmp="$work/tmpfs" ext="$work/ext4" W_PID=""
loopfs "$ext" ext4 32M -F
mkdir "$tmp"
mount_at_exit -t tmpfs -o size=16m pagecliff-cp-errno "$tmp" || fail "mount tmpfs"
at_exit '[ -n "$W_PID" ] && kill "$W_PID" 2>/dev/null && wait "$W_PID" 2>/dev/null'
head -c 67108867 /dev/urandom >"$work/src"

/bin/cp "$work/src" "$tmp/gnu" 2>"$work/gnu"
[ "$(cat "$work/gnu")" = "/bin/cp: error writing '$tmp/gnu': No space left on device" ] ||
	fail "cp(1) says '$(cat "$work/gnu")': not the message this test compares with"
rm -f "$tmp/gnu"
modes=$("$pc" cp --list-modes) && [ -n "$modes" ] || fail "cp --list-modes: exit $?"
for fs in "$tmp" "$ext"; do
	head -c 307200 /dev/urandom >"$fs/filler"
	for m in $modes; do
		d=$fs/copy.$m
		"$pc" cp --mode $m "$work/src" "$d" 2>"$work/err"; rc=$?
		[ $rc = 1 ] || fail "$m on $fs: exit $rc '$(cat "$work/err")'"
		[ "$(head -1 "$work/err")" = "pagecliff: error: writing '$d': No space left on device" ] ||
			fail "$m on $fs: '$(cat "$work/err")'"
		size=$(stat -c %s "$d")
		[ "$(sed -n 2p "$work/err")" = "pagecliff: warning: '$d' is partial: $size of 67108867 bytes copied" ] ||
			fail "$m on $fs: $size bytes on disk, said '$(sed -n 2p "$work/err")'"
		cmp -s -n "$size" "$work/src" "$d" || fail "$m on $fs: the partial copy is not a prefix"
		rm -f "$d"
	done
done
rm -f "$tmp"/*
coproc W { exec python3 "$TESTDIR/fanwatch.py" fill "$tmp" $((1536 * 1024)); }
read -r -t 10 line <&"${W[0]}"
[ "$line" = ready ] || skip "no fanotify permission events: '$line'"
timeout 60 "$pc" bench -d "$tmp" --size 8m --runtime 1 -q >"$work/out" 2>"$work/err"; rc=$?
kill "$W_PID"; wait "$W_PID" 2>/dev/null; W_PID=""
[ $rc = 1 ] && grep -qx "pagecliff: error: cannot write '$tmp/pagecliff-bench/job0.dat': No space left on device" "$work/err" ||
	fail "bench layout on a full file system: exit $rc '$(cat "$work/err")'"
echo "cp says ENOSPC in every mode on tmpfs and ext4, the partial count is what is on disk; so does bench's layout"
