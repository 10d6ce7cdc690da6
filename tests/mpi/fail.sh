#!/bin/bash
# SPDX-License-Identifier: MIT
# One rank fails mid-phase (SIGTERM to it alone, as a rank hitting an error
# stops): it tells rank 0, every rank's phase stops, all exit and mpirun
# exits non-zero, rank 0's report names the failed rank and host (and only
# it), and no rank leaves its data set behind.
. "$(dirname "$0")/harness.sh"
tmpdir
for r in 0 1 2; do mkdir -p "$T/d$r"; done

WAIT_FOR='^laid out '
start_3 -d "$T/d{rank}" --size 32m -m buffered,direct --time_based --runtime 60s \
	--interval 250ms -q --no-trace
sleep 2
kill_rank 2 TERM
grep -qx "failed: rank 2 ($(hostname)) failed or was interrupted; every rank's phase was stopped" \
	"$T/out" || fail "the report does not name rank 2: $(head -12 "$T/out")"
[ "$(grep -c '^failed: ' "$T/out")" = 2 ] ||
	fail "not just rank 2 said to have failed: $(grep '^failed: ' "$T/out")"
grep -q "^direct " "$T/out" && fail "the direct phase ran after a rank failed"
for r in 0 1 2; do
	left=$(find "$T/d$r" -mindepth 1 -not -name bench.lock -not -name pagecliff-bench)
	[ -z "$left" ] || fail "rank $r left: $left"
done
echo "rank 2 failed: mpirun exit $RC, the report names it, nothing left"
