#!/bin/sh
# SPDX-License-Identifier: MIT
# Pages cached before the program opened the file stay cached: warm two
# ranges of a 96 MiB file, read all of it through `pagecliff run` (cat, and
# dd with 4 KiB reads), and both ranges must still be fully cached while
# nothing else of the file is.
set -u
: "${PAGECLIFF:?}" "${SHIM_PAGESTAT:?}"
MiB=1048576
dir=$(mktemp -d "${TMPDIR:-/var/tmp}/pagecliff-shimtest-XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT
trap 'exit 1' INT TERM
f=$dir/f
seq 1 20000000 | head -c $((96 * MiB)) > "$f" || exit 1
"$SHIM_PAGESTAT" cached "$f" >/dev/null || exit $?

for prog in "cat $f" "dd if=$f bs=4k status=none"; do
	"$SHIM_PAGESTAT" evict "$f"
	# Warm [0, 4 MiB) and [40 MiB, 52 MiB) (not batch-aligned on purpose);
	# again if something else (a drop_caches elsewhere) evicted them.
	for try in 1 2 3; do
		dd if="$f" of=/dev/null bs=1M count=4 status=none
		dd if="$f" of=/dev/null bs=1M skip=40 count=12 status=none
		before=$("$SHIM_PAGESTAT" cached "$f")	# readahead warmed more
		a=$("$SHIM_PAGESTAT" cached "$f" 0 $((4 * MiB)))
		b=$("$SHIM_PAGESTAT" cached "$f" $((40 * MiB)) $((12 * MiB)))
		[ "$a" -eq $((4 * MiB)) ] && [ "$b" -eq $((12 * MiB)) ] && break
	done
	[ "$a" -eq $((4 * MiB)) ] && [ "$b" -eq $((12 * MiB)) ] ||
		{ echo "SKIP: cannot warm the ranges ($a, $b bytes cached)"; exit 77; }
	# shellcheck disable=SC2086
	"$PAGECLIFF" run -- $prog > /dev/null || { echo "FAIL: $prog failed"; exit 1; }
	a2=$("$SHIM_PAGESTAT" cached "$f" 0 $((4 * MiB)))
	b2=$("$SHIM_PAGESTAT" cached "$f" $((40 * MiB)) $((12 * MiB)))
	all=$("$SHIM_PAGESTAT" cached "$f")
	[ "$a2" -eq "$a" ] && [ "$b2" -eq "$b" ] ||
		{ echo "FAIL: ${prog%% *}: warm ranges lost pages ($a -> $a2, $b -> $b2)"; exit 1; }
	[ "$all" -le $((before + 2 * MiB)) ] ||
		{ echo "FAIL: ${prog%% *}: $all bytes cached after, $before before"; exit 1; }
	echo "${prog%% *}: warm ranges kept ($a2 + $b2 bytes), $all bytes cached in all, $before before"
done
echo "PASS: pages cached before stay cached, the rest is dropped"
