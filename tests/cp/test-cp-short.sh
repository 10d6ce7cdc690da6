#!/bin/bash
# SPDX-License-Identifier: MIT
# A source shorter than its size says is copied as far as it goes, exit 0,
# as cp(1) does: /proc files (size 0), a /sys file (size 4096, no blocks:
# it looks sparse) and, as root, a file truncated while cp reads it, in
# every mode, dense and sparse.  The truncation is made at cp's first read
# by a fanotify permission watcher, so the timing is always the same.
set -u
. "$(dirname "$0")/harness.sh"
make_tmpdir dir
W_PID=""
at_exit '[ -n "$W_PID" ] && kill $W_PID 2>/dev/null'
cd "$dir" || exit 1

"$pc" cp /proc/self/status status 2>err || fail "/proc/self/status: exit $? '$(cat err)'"
head -c 5 status | grep -q '^Name:' && [ "$(tail -c 1 status | od -An -c | tr -d ' ')" = '\n' ] ||
	fail "/proc/self/status: copied '$(head -c 40 status)'"
# cmp -s takes a size of 0 for a difference: compare what cat reads.
"$pc" cp /proc/version version && cat /proc/version | cmp -s - version ||
	fail "/proc/version: copied '$(cat version)'"
s=/sys/devices/system/cpu/online
[ -r $s ] && [ "$(stat -c %s $s)" -gt "$(wc -c <$s)" ] || skip "no /sys file shorter than its size"
modes=$("$pc" cp --list-modes) && [ -n "$modes" ] || fail "cp --list-modes: exit $?"
for m in $modes; do
	"$pc" cp --mode $m $s online.$m 2>err || fail "$m: $s: exit $? '$(cat err)'"
	cat $s | cmp -s - online.$m || fail "$m: $s: copied '$(cat online.$m)'"
done

[ "$(id -u)" = 0 ] || { echo "not root: no fanotify watcher, truncation during the copy not tried"; exit 0; }
# The watcher: truncates $1 to $2 bytes at the first read, lets every read
# go, touches $3 when it truncated; gone after 20 s without a read.
watch() { exec python3 "$TESTDIR/fanwatch.py" truncate "$@"; }
head -c 8M /dev/urandom >dense.orig
truncate -s 8M sparse.orig
head -c 1M /dev/urandom | dd of=sparse.orig conv=notrunc status=none
head -c 1M /dev/urandom | dd of=sparse.orig bs=1M seek=6 conv=notrunc status=none
# Truncated inside data: dense at 3 MiB + 5, sparse in its first extent.
# (Truncated inside a hole, cp(1) and pagecliff cp both keep the old size.)
for f in dense:3145733 sparse:524291; do
	at=${f#*:} f=${f%:*}
	for m in $modes; do
		rm -f src && cp --sparse=always $f.orig src
		evict src
		rm -f truncated
		coproc W { watch src $at truncated; }
		read -r -t 10 line <&"${W[0]}"
		[ "$line" = ready ] || { kill "$W_PID"; skip "no fanotify permission events: '$line'"; }
		"$pc" cp --mode $m src copy 2>err; rc=$?
		kill "$W_PID"; wait "$W_PID" 2>/dev/null; W_PID=""
		[ -e truncated ] || fail "$f $m: the watcher saw no read"
		[ $rc = 0 ] && [ ! -s err ] || fail "$f $m, truncated during the copy: exit $rc '$(cat err)'"
		same src copy "$f $m truncated during the copy"
		[ "$(stat -c %s copy)" = $at ] || fail "$f $m: size $(stat -c %s copy)"
	done
done
echo "cp copies /proc and /sys files and a file truncated while read as far as they go"
