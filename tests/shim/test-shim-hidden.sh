#!/bin/sh
# SPDX-License-Identifier: MIT
# Residency hidden: a user who may not write a file gets EPERM from
# cachestat(2) and "all resident" from mincore(2), so the shim cannot tell
# the pages others had cached from those the program brought in.  Root warms
# a 96 MiB file; `nobody` reads all of it under `pagecliff run` (cat, and dd
# with 4 KiB reads; modes auto and dropbehind); every warm page must stay,
# and the --stats line must say what was done: read with RWF_DONTCACHE
# (where the file system takes it) or left alone, nothing dropped.
set -u
: "${PAGECLIFF:?}" "${SHIM_PAGESTAT:?}"
MiB=1048576
. "$(dirname "$0")/../harness.sh"
needs_root "to read as nobody"
command -v setpriv >/dev/null || { echo "SKIP: no setpriv (util-linux)"; exit 77; }
make_tmpdir dir "${TMPDIR:-/var/tmp}"
chmod 755 "$dir"
f=$dir/f
seq 1 20000000 | head -c $((96 * MiB)) > "$f" || exit 1
chmod 644 "$f"
sync "$f"	# written back: dirty pages would stay whatever the shim did
nobody() { setpriv --reuid=nobody --regid=nogroup --clear-groups "$@"; }
"$SHIM_PAGESTAT" cached "$f" >/dev/null || exit $?

# One attempt: warm all, run as nobody, check.  0 kept, 1 failed, 2 warm pages
# lost (reclaim or DAMON may take some behind everyone's back: retried).
attempt() {
	mode=$1
	prog=$2
	for try in 1 2 3; do
		cat "$f" > /dev/null
		before=$("$SHIM_PAGESTAT" cached "$f")
		[ "$before" -eq $((96 * MiB)) ] && break
	done
	[ "$before" -eq $((96 * MiB)) ] || { echo "SKIP: cannot warm the file ($before bytes)"; exit 77; }
	rm -f "$dir/stats"
	# shellcheck disable=SC2086
	nobody "$PAGECLIFF" run --mode "$mode" --stats -- $prog > /dev/null 2> "$dir/stats" ||
		{ echo "FAIL: $mode: ${prog%% *} failed: $(cat "$dir/stats")"; return 1; }
	after=$("$SHIM_PAGESTAT" cached "$f")
	line=$(grep "^pagecliff: $f: " "$dir/stats")
	[ "$after" -eq "$before" ] ||
		{ echo "$mode: ${prog%% *}: $before bytes cached before, $after after"; return 2; }
	case $line in
	*"mode dontcache (residency hidden: nothing dropped),"*" 0 bytes dropped,"*) ;;
	*"mode none (residency hidden: left alone),"*" 0 bytes dropped,"*) ;;
	*) echo "FAIL: $mode: ${prog%% *}: the stats line does not say residency was hidden: '$line'"
	   return 1 ;;
	esac
	[ "$mode" != dropbehind ] || case $line in
		*"mode none (residency hidden: left alone),"*) ;;
		*) echo "FAIL: dropbehind asked, yet not left alone: '$line'"; return 1 ;;
	esac
	echo "$mode: ${prog%% *}: all $after bytes stay cached; ${line#*mode }"
	return 0
}

for mode in auto dropbehind; do
	for prog in "cat $f" "dd if=$f bs=4k status=none"; do
		warm_tries attempt "$mode" "$prog"
		rc=$?
		[ $rc -eq 0 ] || { [ $rc -eq 2 ] && echo "FAIL: $mode: ${prog%% *}: warm pages lost in 3 runs of 3"; exit 1; }
	done
done
echo "PASS: a user who cannot see residency drops nothing others had cached"
