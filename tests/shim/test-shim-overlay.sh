#!/bin/sh
# SPDX-License-Identifier: MIT
# Writers on overlayfs are written behind like on any file system: the shim
# works through the upper (real) file, which it finds from mountinfo and
# opens read-only (preload/overlay.c).  On an overlay of the test's own:
# dd and cp of 64 MiB to a new file, and dd over a file of the lower layer
# (copied up before): the same bytes, at most 16 MiB of the upper file
# left cached (all 64 MiB where the shim misses the upper file), and a
# numeric "bytes dropped" of at least half.  The fd the shim holds is out of the program's way: the
# next file the program opens gets the number it gets without the shim.
# With the upper layer on an XFS that runs out of room under writeback, a
# file opened after the writer exited still gets the error at its fsync,
# with the shim as without it.  Limit (as in test-shim-wberror.sh): once the
# device is full every later writeback fails anew, so this shows that the
# error reaches a later opener, not that the shim's description marked
# nothing seen; that rests on the flusher never waiting through it
# (PCL_FLUSHER_QUIET: it polls cachestat).
set -u
: "${PAGECLIFF:?}" "${SHIM_PAGESTAT:?}" "${PAGECLIFF_PRELOAD_SO:?}"
. "$(dirname "$0")/../harness.sh"
needs_root "to mount an overlay"
make_tmpdir dir "${TMPDIR:-/var/tmp}"
MAX_LEFT=$((16 << 20))
SIZE=$((64 << 20))

# overlay BASE: lower, upper and work under BASE, mounted on $dir/m (and
# unmounted at exit before BASE is).
overlay() {
	umount "$dir/m" 2>/dev/null
	at_exit 'umount "$dir/m" 2>/dev/null'
	rm -rf "$1/l" "$1/u" "$1/w"
	mkdir -p "$1/l" "$1/u" "$1/w" "$dir/m" || exit 1
	[ -n "${2:-}" ] && { head -c $SIZE /dev/urandom > "$1/l/old" || exit 1; }
	mount -t overlay overlay -o "lowerdir=$1/l,upperdir=$1/u,workdir=$1/w" "$dir/m" 2>"$dir/err" ||
		{ echo "SKIP: cannot mount an overlay: $(cat "$dir/err")"; exit 77; }
}

head -c $SIZE /dev/urandom > "$dir/src" || exit 1
# case NAME FILE CMD...: run CMD under the shim, FILE its output on the overlay.
case_() {
	name=$1 file=$2
	shift 2
	"$SHIM_PAGESTAT" evict "$dir/src" || exit 1
	rm -f "$dir/stats"
	"$PAGECLIFF" run --stats="$dir/stats" -- "$@" || fail "$name under the shim"
	left=$("$SHIM_PAGESTAT" cached "$dir/b/u/$file") || exit 1
	line=$(grep "^pagecliff: $dir/m/$file:" "$dir/stats") ||
		fail "$name: no stats line: $(cat "$dir/stats")"
	dropped=$(echo "$line" | sed -n 's/.*written back early, \([0-9][0-9]*\|unknown\) bytes dropped.*/\1/p')
	echo "$name: $((left >> 20)) MiB of the upper file left cached, $dropped bytes dropped"
	cmp -s "$dir/src" "$dir/m/$file" || fail "$name: the bytes differ"
	[ "$left" -le $MAX_LEFT ] || fail "$name: $((left >> 20)) MiB left cached: $line"
	case $dropped in
	'' | unknown) fail "$name: no count of bytes dropped: $line" ;;
	esac
	[ "$dropped" -ge $((SIZE / 2)) ] || fail "$name: only $dropped bytes dropped: $line"
}

mkdir "$dir/b" || exit 1
overlay "$dir/b"
case_ dd-new new dd if="$dir/src" of="$dir/m/new" bs=1M status=none
case_ cp-new cp cp "$dir/src" "$dir/m/cp"
# A lower file copied up (by touch) keeps the lower inode's number in the
# overlay: the shim must still find its upper file.  Copy-up leaves the
# upper file cached, and cached pages are kept: evict them first.
overlay "$dir/b" with-lower
touch "$dir/m/old" && "$SHIM_PAGESTAT" evict "$dir/b/u/old" || exit 1
[ "$(stat -c %i "$dir/m/old")" != "$(stat -c %i "$dir/b/u/old")" ] ||
	fail "copied-up file: the overlay shows the upper inode number; the case means nothing"
case_ dd-copied-up old dd if="$dir/src" of="$dir/m/old" bs=1M conv=notrunc status=none

# The program's fd numbers are its own.
fds='
import os, sys
fd = os.open(sys.argv[1], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
for _ in range(64):
    os.write(fd, b"f" * (1 << 20))
print(fd, os.open("/dev/null", os.O_RDONLY))
'
plain=$(python3 -c "$fds" "$dir/m/fds") || fail "plain python"
shim=$("$PAGECLIFF" run -- python3 -c "$fds" "$dir/m/fds") || fail "python under the shim"
[ "$shim" = "$plain" ] || fail "fd numbers: '$shim' under the shim, '$plain' plain"
echo "fd numbers: $plain, the same under the shim"

# The upper layer on XFS over a loop device whose image lives in a 96 MiB
# tmpfs: 160 MiB written, then writeback fails; a file opened later sees it.
command -v mkfs.xfs >/dev/null || { echo "SKIP: no mkfs.xfs for the error case"; exit 77; }
later='
import errno, os, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
try:
    os.fsync(fd)
    print("fsync ok")
except OSError as e:
    print("fsync", errno.errorcode[e.errno])
'
for how in plain shim; do
	umount "$dir/m" 2>/dev/null
	thin_xfs "$dir/x" 96
	overlay "$dir/x"
	if [ $how = plain ]; then
		dd if=/dev/zero of="$dir/m/f" bs=1M count=160 status=none 2>/dev/null
	else
		"$PAGECLIFF" run -- dd if=/dev/zero of="$dir/m/f" bs=1M count=160 status=none 2>/dev/null
	fi
	out=$(python3 -c "$later" "$dir/m/f")
	echo "$how, upper layer full, fsync of a file opened later: $out"
	eval "$how=\$out"
done
[ "$shim" = "$plain" ] || fail "a file opened later: '$shim' under the shim, '$plain' plain"
[ "$plain" != "fsync ok" ] || fail "the device did not fail: the error case meant nothing"
echo "PASS: writers on overlayfs are written behind, errors and fd numbers as without the shim"
