#!/bin/bash
# SPDX-License-Identifier: MIT
# One rank on --directory killed (SIGKILL) mid-phase: the others remove
# their data sets as on a signal, and 'pagecliff bench --cleanup' removes
# what the killed rank's journal says it made (its data file, bench.made,
# bench.lock) and nothing else: a user's file in its folder stays.
. "$(dirname "$0")/harness.sh"
needs_root "for the state journal and --cleanup"
tmpdir
export OMPI_MCA_odls_base_sigkill_timeout=5
for r in 0 1 2; do mkdir -p "$T/d$r"; done

# shellcheck disable=SC2034  # read by start_3
WAIT_FOR='^laid out '
start_3 -d "$T/d{rank}" --size 16m -m buffered --time_based --runtime 120s --interval 250ms \
	-q --no-trace
F=$T/d1/pagecliff-bench
echo "the user's own notes" >"$F/notes.txt"
sleep 1
[ -e "$F/bench.made" ] || fail "rank 1 has no bench.made (test broken)"
kill_rank 1 KILL
for r in 0 2; do
	[ -z "$(ls -A "$T/d$r")" ] || fail "rank $r left: $(find "$T/d$r" -mindepth 1)"
done
"$PAGECLIFF" bench --cleanup 2>"$T/clean" || fail "--cleanup: exit $?: $(cat "$T/clean")"
cat "$T/clean"
[ "$(ls -A "$F")" = notes.txt ] || fail "left in the killed rank's folder: $(ls -A "$F")"
[ "$(cat "$F/notes.txt")" = "the user's own notes" ] || fail "the user's file changed"
check_nothing_left "$VICTIM"
echo "rank 1 killed: mpirun exit $RC; --cleanup removed its data set and kept the user's file"
