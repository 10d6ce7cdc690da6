#!/bin/bash
# SPDX-License-Identifier: MIT
# A rank that fails before its first phase (here: two ranks given the same
# directory, so one finds it in use) says bye while rank 0 waits in the
# phase's start round: rank 0 must answer it, so that every rank ends at
# once with a non-zero status (it used to wait out the 34 s of patience and
# leave without MPI_Finalize), and nothing is left in the directory.
. "$(dirname "$0")/lib.sh"
tmpdir
mkdir -p "$T/d"
start=$(date +%s)
mpirun_np 2 80 -d "$T/d" --size 32m -m buffered -q --no-trace >"$T/out" 2>"$T/err"
rc=$?
secs=$(($(date +%s) - start))
[ $rc = 124 ] && fail "mpirun hung: $(tail -5 "$T/err")"
[ $rc != 0 ] || fail "mpirun exited 0 with two ranks in one directory"
grep -q "is in use by another pagecliff bench run" "$T/err" ||
	fail "no rank said the directory is in use: $(head -3 "$T/err")"
[ "$secs" -lt 20 ] || fail "the ranks took $secs s to end after one failed at its start"
left=$(find "$T/d" -mindepth 1 -not -name bench.lock -not -name pagecliff-bench)
[ -z "$left" ] || fail "left in the directory: $left"
echo "one rank refused the directory: mpirun exit $rc after $secs s, nothing left"
