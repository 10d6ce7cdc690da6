#!/bin/bash
# SPDX-License-Identifier: MIT
# pagecliff cp on file systems the test makes: on XFS with reflink it shares
# the blocks (--stats says cloned, nothing enters the cache, the copy is
# exact and stays independent of its source); on a full tmpfs the error
# names the destination, says it is partial, and the next source is copied.
set -u
. "$(dirname "$0")/harness.sh"
needs_root "for a loop device and mounts"
command -v mkfs.xfs >/dev/null || skip "mkfs.xfs is not installed"
make_tmpdir work /tmp
xfs="$work/xfs" small="$work/small"
loopfs "$xfs" xfs 512M -f -m reflink=1
mkdir "$small"

head -c 67108867 /dev/urandom >"$xfs/src"
sync -f "$xfs/src"
evict "$xfs/src"
"$pc" cp --stats "$xfs/src" "$xfs/dst" 2>"$work/err" || fail "reflink cp: exit $?"
same "$xfs/src" "$xfs/dst" reflink
grep -q "cloned (FICLONE)" "$work/err" || fail "reflink: stats say '$(cat "$work/err")'"
evict "$xfs/src"
evict "$xfs/dst"
"$pc" cp --stats "$xfs/src" "$xfs/dst2" 2>"$work/err" || fail "reflink cp 2: exit $?"
grep -q "read:  page cache +0 pages" "$work/err" && grep -q "write: page cache +0 pages" "$work/err" ||
	fail "a clone touched the cache: '$(cat "$work/err")'"
printf changed | dd of="$xfs/dst" bs=1 seek=1000 conv=notrunc status=none
cmp -s "$xfs/src" "$xfs/dst" && fail "reflink: writing the copy changed the source"
[ "$(head -c 1000 "$xfs/src" | sha256sum)" = "$(head -c 1000 "$xfs/dst" | sha256sum)" ] ||
	fail "reflink: the copy's first bytes differ"

# Across file systems there is nothing to share: streamed, and says why.
"$pc" cp --stats "$xfs/src" "$work/streamed" 2>"$work/err" || fail "cross-fs: exit $?"
same "$xfs/src" "$work/streamed" cross-fs
grep -q "streamed (no shared blocks: FICLONE: " "$work/err" || fail "cross-fs: '$(cat "$work/err")'"

# ENOSPC: a 16 MiB tmpfs, a 64 MiB source.
mount_at_exit -t tmpfs -o size=16m pagecliff-cp-test "$small" || fail "mount tmpfs"
printf old >"$small/existing"
"$pc" cp "$xfs/src" "$small" 2>"$work/err"; rc=$?
[ $rc = 1 ] || fail "ENOSPC: exit $rc"
grep -q "error: writing '$small/src': No space left on device" "$work/err" ||
	fail "ENOSPC: '$(cat "$work/err")'"
grep -q "'$small/src' is partial: [0-9]* of 67108867 bytes copied$" "$work/err" ||
	fail "ENOSPC: partial not reported: '$(cat "$work/err")'"
[ -e "$small/src" ] || fail "ENOSPC: the partial file was removed"
rm -f "$small/src"
head -c 15M /dev/zero >"$small/fill" 2>/dev/null
"$pc" cp "$xfs/src" "$small/existing" 2>"$work/err"; rc=$?
[ $rc = 1 ] && grep -q "'$small/existing' is partial: .*(it existed before and was truncated)" "$work/err" ||
	fail "ENOSPC on an existing file: $rc '$(cat "$work/err")'"
echo "cp clones on XFS with reflink, streams across file systems, reports ENOSPC and partial files"
