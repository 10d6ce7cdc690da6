#!/bin/sh
# SPDX-License-Identifier: MIT
# The watcher holds no descriptor of a file the program closed: a program
# that writes a file on a file system and then unmounts it, run with
# `pagecliff run --via outside`, is not told "target is busy".
. "$(dirname "$0")/lib.sh"
[ "$(id -u)" -eq 0 ] || skip "needs root to mount"
command -v mkfs.ext4 >/dev/null || skip "no mkfs.ext4"
mounted=
cleanup_mnt() {
	[ -z "$mounted" ] || umount "$dir/mnt" 2>/dev/null
	cleanup
}
trap cleanup_mnt EXIT
truncate -s 256M "$dir/img" && mkfs.ext4 -q -F "$dir/img" || fail "mkfs.ext4"
mkdir "$dir/mnt"
mount -o loop "$dir/img" "$dir/mnt" || skip "cannot loop-mount ext4"
mounted=1
"$PAGECLIFF" run --via outside -- sh -c \
	"dd if=/dev/urandom of='$dir/mnt/x' bs=1M count=96 status=none && umount '$dir/mnt'" \
	2>"$dir/err"; rc=$?
if [ $rc -ne 0 ]; then
	fail "the program's umount failed ($rc): $(cat "$dir/err")"
fi
mounted=
mountpoint -q "$dir/mnt" && { mounted=1; fail "still mounted"; }
echo "PASS: the program unmounted its file system under the watcher"
