#!/bin/sh
# SPDX-License-Identifier: MIT
# Pages cached before the program opened the file stay cached: warm two
# ranges of a 96 MiB file, read all of it through `pagecliff run` (cat, and
# dd with 4 KiB reads), and both ranges must still be fully cached while
# nothing else of the file is.
set -u
: "${PAGECLIFF:?}" "${SHIM_PAGESTAT:?}"
MiB=1048576
. "$(dirname "$0")/../harness.sh"
make_tmpdir dir "${TMPDIR:-/var/tmp}"
f=$dir/f
seq 1 20000000 | head -c $((96 * MiB)) > "$f" || exit 1
"$SHIM_PAGESTAT" cached "$f" >/dev/null || exit $?

# One attempt: warm, run, check.  Returns 0 kept, 1 failed, 2 warm pages lost.
attempt() {
	prog=$1
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
	"$PAGECLIFF" run -- $prog > /dev/null || { echo "FAIL: $prog failed"; return 1; }
	a2=$("$SHIM_PAGESTAT" cached "$f" 0 $((4 * MiB)))
	b2=$("$SHIM_PAGESTAT" cached "$f" $((40 * MiB)) $((12 * MiB)))
	all=$("$SHIM_PAGESTAT" cached "$f")
	[ "$a2" -eq "$a" ] && [ "$b2" -eq "$b" ] ||
		{ echo "${prog%% *}: warm ranges lost pages ($a -> $a2, $b -> $b2)"; return 2; }
	[ "$all" -le $((before + 2 * MiB)) ] ||
		{ echo "FAIL: ${prog%% *}: $all bytes cached after, $before before"; return 1; }
	echo "${prog%% *}: warm ranges kept ($a2 + $b2 bytes), $all bytes cached in all, $before before"
	return 0
}

# Warm pages can be evicted behind the shim's back while the program runs:
# DAMON's pageout scheme here (docs/MACHINES.md) works on physical regions, so a
# fresh page in a region judged idle goes too, and a loaded machine
# reclaims.  Such losses (1 page, or 64) happen in a loaded suite; the
# dropper itself keeps exactly the warm pages with 4 KiB reads
# (tests/lib/test-dropper-4k.c checks its decisions, not the cache).  So a
# loss is retried; a dropper that drops warm pages loses them every time.
for prog in "cat $f" "dd if=$f bs=4k status=none"; do
	warm_tries attempt "$prog"
	rc=$?
	[ $rc -eq 0 ] || { [ $rc -eq 2 ] && echo "FAIL: ${prog%% *}: warm pages lost in 3 runs of 3"; exit 1; }
done
echo "PASS: pages cached before stay cached, the rest is dropped"
