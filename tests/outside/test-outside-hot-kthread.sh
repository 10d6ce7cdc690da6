#!/bin/sh
# SPDX-License-Identifier: MIT
# `pagecliff attach --all` by kernel events, a file filled by a kernel
# thread: reading a loop device fills its backing file's page cache from the
# loop worker, not from a process, so the guard looks for the file's inode
# among the descriptors of the processes and names the one holding it (a
# sleeping process with the file open) in --stats.  In a PID namespace.
. "$(dirname "$0")/harness.sh"
. "$(dirname "$0")/hot-harness.sh"
needs_root "to follow every process of the host"
command -v unshare >/dev/null || skip "no unshare (util-linux)"
command -v losetup >/dev/null || skip "no losetup (util-linux)"
mkfile "$dir/back" 64
ino=$(stat -c %i "$dir/back") || fail "stat $dir/back"
loop_attach loop "$dir/back"
unshare --pid --fork --mount-proc sh -c '
	exec 7<"$2/back"; sleep 30 & s=$!; exec 7<&-
	echo $s >"$2/holder"
	"$1" attach --all --for 4s --stats="$2/stats" 2>"$2/err" & a=$!
	sleep 1
	dd if="$3" of=/dev/null bs=1M iflag=direct status=none || exit 3
	wait $a || exit 4
	kill $s' sh "$PAGECLIFF" "$dir" "$loop"
rc=$?
[ $rc -ne 3 ] || fail "reading $loop failed"
[ $rc -eq 0 ] || fail "attach --all failed: $(cat "$dir/err")"
need_kernel_events "$dir/stats"
h=$(cat "$dir/holder")
grep -qx "pagecliff: attach --all: process $h fills the page cache with inode $ino (its descriptors)" "$dir/stats" ||
	fail "the holder (pid $h) of the loop's backing file (inode $ino) was not named: $(cat "$dir/stats")"
echo "PASS: a file filled by the loop worker led to the process holding it"
