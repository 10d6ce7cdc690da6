#!/bin/sh
# SPDX-License-Identifier: MIT
# `pagecliff attach` holds no description of a followed file between its
# looks: a file system can be unmounted right after the program that copied
# a file on it exits, while attach still runs (it follows a second process).
# Its last work on the closed files (the reader's last stretch dropped, the
# writer's last batch written back) opens them for a moment: umount is
# retried for at most 2 s.  Five times on a loop-mounted XFS: every umount
# succeeds within that and the copy is exact.
. "$(dirname "$0")/harness.sh"
needs_root "for a loop device and mounts"
command -v mkfs.xfs >/dev/null || skip "mkfs.xfs is not installed"
mnt="$dir/mnt" at=
mkdir "$mnt"
truncate -s 512M "$dir/img"
loop_attach loop "$dir/img"
stop_and_unmount() {
	[ -n "$at" ] && kill "$at" 2>/dev/null
	mountpoint -q "$mnt" && umount "$mnt"
}
at_exit stop_and_unmount	# before the loop device goes
mkfs.xfs -q -f "$loop" >/dev/null 2>&1 || fail "mkfs.xfs"
busy=0
for i in 1 2 3 4 5; do
	mount -t xfs "$loop" "$mnt" || fail "mount (round $i)"
	rm -f "$mnt/g"
	mkfile "$mnt/f" 96
	# 64 MiB/s: attach (a BPF load) must see the copier before it ends,
	# also on a loaded machine; 384 was a quarter of a second
	"$OUTSIDE_PROG" copy "$mnt/f" "$mnt/g" 64 >"$dir/out" & rd=$!
	sleep 30 & other=$!
	"$PAGECLIFF" attach --stats="$dir/stats" $rd $other 2>"$dir/err" & at=$!
	wait $rd || fail "the copier failed (round $i)"
	n=0
	until umount "$mnt" 2>"$dir/uerr"; do
		n=$((n + 1))
		[ $n -le 40 ] || { busy=$((busy + 1)); break; }
		sleep 0.05
	done
	[ $n -eq 0 ] || echo "round $i: busy for $n tries of 50 ms"
	kill $other; wait $other 2>/dev/null
	wait $at; rc=$?
	mountpoint -q "$mnt" && { umount "$mnt" || fail "cannot unmount even after attach ended"; }
	at=
	[ $rc -eq 0 ] || fail "attach exited $rc: $(cat "$dir/err")"
	mount -t xfs "$loop" "$mnt" || fail "mount again (round $i)"
	cmp -s "$mnt/f" "$mnt/g" || fail "the copy differs (round $i)"
	grep -q "^pagecliff: $mnt/f: .* mode dropbehind (outside" "$dir/stats" &&
		grep -q "^pagecliff: $mnt/g: .* mode writebehind (outside" "$dir/stats" ||
		fail "not followed (round $i): $(cat "$dir/stats")"
	umount "$mnt" || fail "umount after the check (round $i)"
	: > "$dir/stats"
done
[ $busy -eq 0 ] || fail "umount found the file system busy for 2 s $busy times of 5: $(cat "$dir/uerr")"
echo "PASS: unmounted 5 of 5 times within 2 s of the copier's exit, attach still running"
