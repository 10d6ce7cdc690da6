#!/bin/sh
# SPDX-License-Identifier: MIT
# A writer's --stats line under the shim says what happened to the cache,
# measured: on a tmpfs mounted for the test (no writeback, nothing can be
# evicted) "no writeback" and 0 bytes dropped, and all of the file still
# cached; on the test folder's own file system the bytes dropped equal what
# of the file is not cached afterwards.  Reclaim (DAMON here) can take pages
# behind the shim's back, making the difference larger: retried, 3 times.
set -u
: "${PAGECLIFF:?}" "${SHIM_PAGESTAT:?}"
MiB=1048576
SIZE=$((48 * MiB))
. "$(dirname "$0")/../harness.sh"
needs_root "to mount a tmpfs"
make_tmpdir dir "${TMPDIR:-/var/tmp}"
mnt=$dir/mnt
cleanup() { umount "$mnt" 2>/dev/null; rm -rf "$dir"; }
at_exit cleanup
mkdir "$mnt" && mount -t tmpfs -o size=96m tmpfs "$mnt" ||
	{ echo "SKIP: cannot mount a tmpfs"; exit 77; }

# write DIR: 48 MiB with dd under the shim; prints the file's stats line
write() {
	rm -f "$1/f" "$dir/stats"
	"$PAGECLIFF" run --stats="$dir/stats" -- \
		dd if=/dev/zero of="$1/f" bs=1M count=48 status=none || { echo "FAIL: dd failed"; exit 1; }
	grep "^pagecliff: $1/f: " "$dir/stats" || { echo "FAIL: no stats line: $(cat "$dir/stats")"; exit 1; }
}

line=$(write "$mnt")
cached=$("$SHIM_PAGESTAT" cached "$mnt/f")
case $line in
*" no writeback (a file system in memory), 0 bytes dropped, "*) ;;
*) echo "FAIL: tmpfs: the line does not say no writeback and 0 dropped: '$line'"; exit 1 ;;
esac
[ "$cached" -eq $SIZE ] || { echo "FAIL: tmpfs: $cached bytes of $SIZE cached after"; exit 1; }
echo "tmpfs: ${line#*mode }"

# One try: 2 when more left the cache than the shim dropped (reclaim took some).
attempt() {
	line=$(write "$dir")
	left=$((SIZE - $("$SHIM_PAGESTAT" cached "$dir/f")))
	dropped=$(echo "$line" | sed -n 's/.*, \([0-9]*\) bytes dropped, .*/\1/p')
	[ -n "$dropped" ] || fail "no count of bytes dropped: '$line'"
	[ "$dropped" -le "$left" ] || fail "says $dropped bytes dropped, $left left the cache: '$line'"
	[ "$dropped" -eq "$left" ] || { echo "$dropped dropped, $left left the cache"; return 2; }
}
warm_tries attempt
[ "$dropped" -eq "$left" ] || { echo "FAIL: the count and the cache differ in 3 runs of 3"; exit 1; }
echo "$(stat -f -c %T "$dir"): ${line#*mode }"
echo "PASS: the writer's stats count what left the cache"
