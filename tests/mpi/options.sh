#!/bin/bash
# SPDX-License-Identifier: MIT
# A bad command line is refused by every rank, with one line printed once
# (by rank 0) and exit 2, before any rank makes anything; a fault of one
# rank's own (a missing directory, rank 0's too; a directory another rank on
# the host has; too little space; rank 0's report path) is named with that
# rank and its host, still in one line; --help is printed once; the word
# bench may come first, as in `pagecliff bench`.
. "$(dirname "$0")/harness.sh"
tmpdir
mkdir -p "$T/d0" "$T/d1"

# refused N WANT ARGS...: on N ranks, exit 2, the one line of output is WANT
# (a pattern: * stands for any text), no data folder made
refused() {
	local n=$1 want=$2 rc
	shift 2
	timeout -k 5 60 mpirun -q --oversubscribe -np "$n" "$PAGECLIFF_MPI" "$@" >"$T/all" 2>&1
	rc=$?
	# mpirun's own libevent may warn as the ranks' pipes close ("[warn]
	# Epoll MOD(1) on fd 23 failed ... Bad file descriptor", once in CI,
	# under load): the launcher's line, not the ranks'; every other line counts
	grep -v '^\[warn\] Epoll ' "$T/all" >"$T/out"
	[ $rc = 2 ] || fail "$*: exit $rc, want 2: $(cat "$T/out")"
	[ "$(wc -l <"$T/out")" = 1 ] || fail "$*: not one line: $(cat "$T/out")"
	# shellcheck disable=SC2053
	[[ "$(cat "$T/out")" == $want ]] || fail "$*: said '$(cat "$T/out")', want '$want'"
	find "$T" -name pagecliff-bench | grep -q . && fail "$*: made a bench folder"
	echo "np $n $*: $(cat "$T/out")"
}

refused 3 "pagecliff: unknown option '--bogus'; see 'pagecliff bench --help'" --bogus
refused 2 "pagecliff: bad --size '32x': a size from 4096 bytes, in fio units (4k, 1m, 20g)" \
	-d "$T/d{rank}" --size 32x
refused 3 "pagecliff: rank 2 ($(hostname)): cannot use directory '$T/d2': No such file or directory" \
	-d "$T/d{rank}" --size 32m
mkdir -p "$T/e1" "$T/e2"
refused 3 "pagecliff: rank 0 ($(hostname)): cannot use directory '$T/e0': No such file or directory" \
	-d "$T/e{rank}" --size 32m
refused 3 "pagecliff: rank 1 ($(hostname)): directory '$T/d0' is rank 0's too: each rank needs a directory of its own" \
	-d "$T/d0" --size 32m
refused 2 "pagecliff: error: rank 0 ($(hostname)): not enough space in '$T/d0': the data set needs 100.0 TiB more, * are free" \
	-d "$T/d{rank}" --size 100t
refused 2 "pagecliff: rank 0 ($(hostname)): cannot write report '$T/none/r.txt': No such file or directory" \
	-d "$T/d{rank}" --size 4m -o "$T/none/r.txt"
refused 2 "pagecliff: rank 0 ($(hostname)): cannot write timeline '$T/d1': Is a directory" \
	-d "$T/d{rank}" --size 4m --timeline "$T/d1"
refused 3 "pagecliff: unknown option '--bogus'; see 'pagecliff bench --help'" bench --bogus

timeout -k 5 60 mpirun -q --oversubscribe -np 3 "$PAGECLIFF_MPI" --help >"$T/out" 2>&1 ||
	fail "--help: exit $?"
[ "$(grep -c '^usage: ' "$T/out")" = 1 ] || fail "--help not printed once: $(cat "$T/out")"
grep -q -- "--stonewall" "$T/out" || fail "--help does not name --stonewall"

timeout -k 5 60 mpirun -q --oversubscribe -np 2 "$PAGECLIFF_MPI" bench --directory "$T/d{rank}" \
	--size 1m -m buffered -q --no-trace --output-format json -o "$T/run.json" >"$T/out" 2>&1 ||
	fail "bench first: exit $?: $(cat "$T/out")"
python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); assert d["ranks"] == 2, d["ranks"]' \
	"$T/run.json" || fail "bench first: no report of 2 ranks"
echo "ok"
