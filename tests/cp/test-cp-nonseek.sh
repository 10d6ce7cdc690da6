#!/bin/bash
# SPDX-License-Identifier: MIT
# cp to a destination that is not a regular file writes the holes of a
# sparse source as zeros, as cp(1) does: /dev/null, a FIFO, a pipe on
# standard output and (as root) a block device get every byte, exit 0.
# /dev/full is "error writing '/dev/full': No space left on device" in
# cp(1)'s words, exit 1, and a device is never said to be partial or
# truncated.
set -u
. "$(dirname "$0")/harness.sh"
make_tmpdir dir
cd "$dir" || exit 1

# 4 MiB with data at 1 MiB + 5 and a hole at the end; a dense file too.
truncate -s 4M sparse
head -c 12345 /dev/urandom | dd of=sparse bs=1 seek=1048581 conv=notrunc status=none
[ "$(stat -c %b sparse)" -lt 8192 ] || skip "this file system does not keep holes"
head -c 100000 /dev/urandom >dense
modes=$("$pc" cp --list-modes) && [ -n "$modes" ] || fail "cp --list-modes: exit $?"
for m in $modes; do
	"$pc" cp --mode $m sparse /dev/null 2>err || fail "$m sparse to /dev/null: exit $? '$(cat err)'"
	[ -s err ] && fail "$m sparse to /dev/null: '$(cat err)'"
	"$pc" cp --mode $m sparse /dev/stdout 2>err | cmp -s - sparse ||
		fail "$m sparse to a pipe on stdout: bytes differ '$(cat err)'"
	rm -f fifo && mkfifo fifo
	timeout 20 cat fifo >from-fifo &
	"$pc" cp --mode $m sparse fifo 2>err || fail "$m sparse to a FIFO: exit $? '$(cat err)'"
	wait
	same sparse from-fifo "$m sparse to a FIFO"
done
[ -p fifo ] || fail "the FIFO was replaced"

# A block device: zeros where the source has holes (the device is not zero).
if [ "$(id -u)" = 0 ]; then
	head -c 4M /dev/urandom >img
	loop_attach loop img
	"$pc" cp sparse "$loop" 2>err || fail "sparse to a block device: exit $? '$(cat err)'"
	sync
	cmp -s sparse "$loop" || fail "sparse to a block device: bytes differ"
fi

# /dev/full: cp(1)'s words, exit 1, nothing said about truncating a device.
/bin/cp dense /dev/full 2>gnu
[ "$(cat gnu)" = "/bin/cp: error writing '/dev/full': No space left on device" ] ||
	fail "cp(1) says '$(cat gnu)': not the message this test compares with"
for f in dense sparse; do
	"$pc" cp $f /dev/full 2>err; rc=$?
	[ $rc = 1 ] || fail "$f to /dev/full: exit $rc"
	[ "$(cat err)" = "pagecliff: error: $(sed 's|^/bin/cp: error ||' gnu)" ] ||
		fail "$f to /dev/full: '$(cat err)'"
done
echo "cp writes zeros to /dev/null, FIFOs, pipes and block devices; /dev/full is ENOSPC as cp(1)"
