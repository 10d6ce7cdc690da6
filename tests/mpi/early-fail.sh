#!/bin/bash
# SPDX-License-Identifier: MIT
# A rank that fails before its first phase says bye while rank 0 waits in
# the phase's start round: rank 0 must answer it, so that every rank ends at
# once with a non-zero status (rather than wait out the 34 s of patience and
# leave without MPI_Finalize), and nothing is left in the directories.  The
# failure: two ranks' directories on one 16 MiB file system, 4 and 14 MiB
# ({rank} in --size); each rank's check finds room for its own, before any
# rank makes anything, and the second to lay out finds the file system full.
. "$(dirname "$0")/harness.sh"
needs_root "to mount a small tmpfs"
unshare -m true 2>/dev/null || skip "cannot make a mount namespace (unshare -m)"
tmpdir
mkdir -p "$T/fs"
start=$(date +%s)
# shellcheck disable=SC2016
unshare -m sh -c 'mount -t tmpfs -o size=16m pagecliff-test "$1/fs" && mkdir "$1/fs/d0" "$1/fs/d1" &&
	timeout -k 5 80 mpirun --oversubscribe -np 2 "$2" -d "$1/fs/d{rank}" --size "{rank}4m" \
		-m buffered -q --no-trace; rc=$?
	find "$1/fs" -mindepth 1 -not -name "d[01]" >"$1/left"; exit $rc' sh "$T" "$PAGECLIFF_MPI" \
	>"$T/out" 2>"$T/err"
rc=$?
secs=$(($(date +%s) - start))
[ $rc = 124 ] && fail "mpirun hung: $(tail -5 "$T/err")"
[ $rc != 0 ] || fail "mpirun exited 0 with no room for the data sets"
# full when it lays out, or (the other's written first) too full to start
grep -Eq "^pagecliff: error: (cannot write '$T/fs/d[01]/pagecliff-bench/job0.dat'|not enough space in '$T/fs/d[01]'): " \
	"$T/err" || fail "no rank said its data set has no room: $(head -3 "$T/err")"
[ "$secs" -lt 20 ] || fail "the ranks took $secs s to end after one failed at its start"
[ -s "$T/left" ] && fail "left in the directories: $(cat "$T/left")"
echo "a rank's layout failed: mpirun exit $rc after $secs s, nothing left"
