#!/bin/sh
# SPDX-License-Identifier: MIT
# A writeback error under the shim reaches the program as it does without it.
# XFS on a loop device whose image lives in a 96 MiB tmpfs: writes of 160 MiB
# are accepted into the cache, then writeback fails when the tmpfs is full.
# The shim starts writeback early and waits on it, so it must neither swallow
# the error (the program's fsync sees EIO or ENOSPC, or a later write fails)
# nor invent one for a file that fits.  Limit: once the device is full every
# later batch fails too, so this cannot tell whether the shim's own waits used
# the program's description (tests/write/test-flusher.c's error case does).
set -u
: "${PAGECLIFF:?}"
. "$(dirname "$0")/../harness.sh"
needs_root "for tmpfs, a loop device and a mount"
command -v mkfs.xfs >/dev/null || skip "no mkfs.xfs"
make_tmpdir dir "${TMPDIR:-/var/tmp}"

# The writer: 1 MiB writes, then fsync; prints what the kernel said.
writer='
import errno, os, sys
fd = os.open(sys.argv[1], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
buf = b"w" * (1 << 20)
n = 0
try:
    for _ in range(int(sys.argv[2])):
        os.write(fd, buf)
        n += 1
except OSError as e:
    print("write", errno.errorcode[e.errno])
    sys.exit(0)
try:
    os.fsync(fd)
    print("fsync ok", n)
except OSError as e:
    print("fsync", errno.errorcode[e.errno])
'

# A file that fits: no error, with or without the shim, and the same bytes.
thin_xfs "$dir/mnt" 1024
plain=$(python3 -c "$writer" "$dir/mnt/f" 160) || fail "plain writer"
sum=$(sha256sum < "$dir/mnt/f")
thin_xfs "$dir/mnt" 1024
shim=$("$PAGECLIFF" run --min-size 8m -- python3 -c "$writer" "$dir/mnt/f" 160) ||
	fail "writer under the shim"
[ "$plain" = "fsync ok 160" ] || fail "plain, file fits: $plain"
[ "$shim" = "$plain" ] || fail "file fits: shim says '$shim', plain '$plain'"
[ "$(sha256sum < "$dir/mnt/f")" = "$sum" ] || fail "file fits: bytes differ under the shim"

# A file that does not: the error reaches the program in both cases.
for how in plain shim; do
	thin_xfs "$dir/mnt" 96
	if [ $how = plain ]; then
		out=$(python3 -c "$writer" "$dir/mnt/f" 160)
	else
		out=$("$PAGECLIFF" run --min-size 8m -- python3 -c "$writer" "$dir/mnt/f" 160)
	fi
	echo "$how, device full: $out"
	case $out in
	"fsync EIO" | "fsync ENOSPC" | "write EIO" | "write ENOSPC") ;;
	*) fail "$how: the writeback error did not reach the program: '$out'" ;;
	esac
done
echo "ok: writeback errors reach the program under the shim"
