#!/bin/sh
# SPDX-License-Identifier: MIT
# A device with a large read_ahead_kb (256 MiB) and a file with a few pages
# cached before: the kernel's read-ahead runs far ahead of the reader, and the
# pages it brings in must not pass for pages cached before.  The shim drops
# them (they were not cached before the program ran) and its stats keep only
# the 64 KiB that were.  A loop device of the test's own, removed at exit.
set -u
: "${PAGECLIFF:?}" "${SHIM_PAGESTAT:?}"
. "$(dirname "$0")/../harness.sh"
needs_root "for a loop device"
command -v mkfs.ext4 >/dev/null || { echo "SKIP: no mkfs.ext4"; exit 77; }
make_tmpdir dir "${TMPDIR:-/var/tmp}"
loopfs "$dir/mnt" ext4 600M
# The loop device keeps its read_ahead_kb after it is detached and bound
# again (a later test's testbed would read 256 MiB ahead): put it back.
ra=/sys/class/bdi/$(mountpoint -d "$dir/mnt")/read_ahead_kb
at_exit "echo $(cat "$ra") > '$ra'"
echo 262144 > "$ra" || fail "read_ahead_kb"
f=$dir/mnt/f
head -c 384M /dev/urandom > "$f" || fail "cannot write $f"
# DAMON (docs/MACHINES.md) may page the 64 KiB out as soon as it is read: tries.
warm64k() {
	"$SHIM_PAGESTAT" evict "$f" || exit 1
	"$SHIM_PAGESTAT" warm "$f" 0 65536 || exit 1
	before=$("$SHIM_PAGESTAT" cached "$f")
	[ "$before" -eq 65536 ] || return 2
}
warm_tries warm64k
[ "$before" -eq 65536 ] || fail "could not cache exactly 64 KiB in three tries: $before"
"$PAGECLIFF" run --stats="$dir/stats" -- cat "$f" > /dev/null || fail "cat under the shim"
after=$("$SHIM_PAGESTAT" cached "$f")
# the shim's line (as root the kernel view beside it may add its own)
kept=$(grep -v "kernel view" "$dir/stats" | sed -n 's/.* \([0-9]*\) bytes kept cached.*/\1/p')
[ -n "$kept" ] || fail "no stats line: $(cat "$dir/stats")"
[ "$kept" -le 65536 ] || fail "stats: $kept bytes kept cached, 65536 were cached before"
[ "$after" -le $((64 << 20)) ] || fail "$((after >> 20)) MiB of 384 left cached"
echo "PASS: read-ahead of 256 MiB: $kept bytes kept (64 KiB cached before), $((after >> 20)) MiB left"
