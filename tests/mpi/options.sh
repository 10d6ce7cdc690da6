#!/bin/bash
# SPDX-License-Identifier: MIT
# A bad command line is refused by every rank, with one line printed once
# (by rank 0) and exit 2; a directory missing on one rank only is named with
# that rank and its host, still in one line; --help is printed once.
. "$(dirname "$0")/lib.sh"
tmpdir
mkdir -p "$T/d0" "$T/d1"

# refused N WANT ARGS...: on N ranks, exit 2, the one line of output is WANT
refused() {
	local n=$1 want=$2 rc
	shift 2
	timeout -k 5 60 mpirun -q --oversubscribe -np "$n" "$PAGECLIFF_MPI" "$@" >"$T/out" 2>&1
	rc=$?
	[ $rc = 2 ] || fail "$*: exit $rc, want 2: $(cat "$T/out")"
	[ "$(wc -l <"$T/out")" = 1 ] || fail "$*: not one line: $(cat "$T/out")"
	[ "$(cat "$T/out")" = "$want" ] || fail "$*: said '$(cat "$T/out")', want '$want'"
	find "$T" -name pagecliff-bench | grep -q . && fail "$*: made a bench folder"
	echo "np $n $*: $(cat "$T/out")"
}

refused 3 "pagecliff: unknown option '--bogus'; see 'pagecliff bench --help'" --bogus
refused 2 "pagecliff: bad --size '32x': a size from 4096 bytes, in fio units (4k, 1m, 20g)" \
	-d "$T/d{rank}" --size 32x
refused 3 "pagecliff: rank 2 ($(hostname)): cannot use directory '$T/d2': No such file or directory" \
	-d "$T/d{rank}" --size 32m

timeout -k 5 60 mpirun -q --oversubscribe -np 3 "$PAGECLIFF_MPI" --help >"$T/out" 2>&1 ||
	fail "--help: exit $?"
[ "$(grep -c '^usage: ' "$T/out")" = 1 ] || fail "--help not printed once: $(cat "$T/out")"
grep -q -- "--stonewall" "$T/out" || fail "--help does not name --stonewall"
echo "ok"
