#!/bin/sh
# SPDX-License-Identifier: MIT
# `pagecliff attach --all` finds a reader that opened its 256 MiB file
# before the guard started through kernel events: the BPF program's
# per-inode count of pages added to the page cache names the reader, no
# descriptor of any process is scanned, and the file ends within the budget.
# With HOT_SOURCE=scan (test-outside-hot-scan.sh) PAGECLIFF_NO_BPF is set and
# the guard must say it scans, and find the reader all the same.  In a PID
# namespace of its own: "all" is this test's processes.
. "$(dirname "$0")/harness.sh"
. "$(dirname "$0")/hot-harness.sh"
[ "$(id -u)" = 0 ] || skip "following every process of the host needs root"
command -v unshare >/dev/null || skip "no unshare (util-linux)"
mode=${HOT_SOURCE:-bpf}
mkfile "$dir/src" 256
ino=$(stat -c %i "$dir/src") || fail "stat $dir/src"
# The reader opens the file, reads 24 MiB of it, and only then the guard starts.
[ "$mode" = scan ] && export PAGECLIFF_NO_BPF=1
unshare --pid --fork --mount-proc sh -c '
	"$3" read "$2/src" 64 >"$2/out" & r=$!
	echo $r >"$2/reader"
	i=0
	until [ "$(sed -n "s/^pos:[[:space:]]*//p" /proc/$r/fdinfo/3 2>/dev/null || echo 0)" -ge 25165824 ]; do
		i=$((i + 1)); [ $i -lt 2000 ] || exit 5
		sleep 0.005
	done
	"$1" attach --all --for 6s --stats="$2/stats" 2>"$2/err" || exit 4
	wait $r || exit 3' sh "$PAGECLIFF" "$dir" "$OUTSIDE_PROG"
rc=$?
[ $rc -ne 5 ] || fail "the reader did not get to 24 MiB"
[ $rc -ne 4 ] || fail "attach --all failed: $(cat "$dir/err")"
[ $rc -eq 0 ] || fail "the reader failed ($rc)"
r=$(cat "$dir/reader")
grep -qx "$dir/src: $((256 * MIB)) bytes fd 3" "$dir/out" || fail "read: $(cat "$dir/out")"
if [ "$mode" = bpf ]; then
	need_kernel_events "$dir/stats"
	grep -qx "pagecliff: attach --all: process $r fills the page cache with inode $ino (kernel events)" "$dir/stats" ||
		fail "the reader (pid $r, inode $ino) was not named by kernel events: $(cat "$dir/stats")"
else
	[ "$(sed -n 's/^pagecliff: attach --all: candidates //p' "$dir/stats")" = "by scanning every process's descriptors (no kernel events: PAGECLIFF_NO_BPF is set)" ] ||
		fail "no start line saying it scans: $(cat "$dir/stats")"
	! grep -q "fills the page cache" "$dir/stats" || fail "kernel events named a process: $(cat "$dir/stats")"
fi
grep -q "^pagecliff: $dir/src: .* mode dropbehind (outside, pid $r)" "$dir/stats" ||
	fail "the reader was not followed: $(cat "$dir/stats")"
at_most "$dir/src"
echo "PASS: attach --all found a running reader by $mode (cached after:$report)"
