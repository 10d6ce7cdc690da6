#!/bin/bash
# SPDX-License-Identifier: MIT
# A run on --directory killed (SIGKILL) while it lays out its data set and
# while a phase reads it: 'pagecliff bench --cleanup' removes what the run's
# journal says it made (data files, bench.made, bench.lock, the folder when
# it is left empty) and nothing else: a user's file in the folder, and a
# file the user put in place of one of bench's, stay byte for byte.  A
# --keep run's data set stays recorded, and the next run reuses it.
. "$(dirname "$0")/lib.sh"
needs_root "for --cleanup of what root's runs made"
tmpdir

# Whether the run is laying out job0.dat; whether it has laid out its data.
laying_out() { [ -s "$F/job0.dat" ]; }
laid_out() { grep -q "^laid out" "$T/err"; }

# start DIR READY ARGS...: bench in the background on DIR until the
# function READY succeeds; sets PID.
start() {
	local dir=$1 until=$2
	shift 2
	"$PAGECLIFF" bench -d "$dir" -q --no-trace "$@" >"$T/out" 2>"$T/err" &
	PID=$!
	for _ in $(seq 600); do
		"$until" && return
		kill -0 $PID 2>/dev/null || fail "bench ended early: $(cat "$T/err")"
		sleep 0.02
	done
	kill -KILL $PID
	fail "bench did not get there ($until): $(cat "$T/err")"
}

# killed: SIGKILL the run, then --cleanup; its lines in $T/clean.  (Another
# root run's sweep may remove the remains first: the result is the same.)
killed() {
	[ -e "$F/bench.made" ] || fail "the run has no bench.made yet (test broken)"
	kill -KILL $PID
	wait $PID 2>/dev/null
	"$PAGECLIFF" bench --cleanup 2>"$T/clean" || fail "--cleanup: exit $?: $(cat "$T/clean")"
	cat "$T/clean"
	check_nothing_left $PID
}

# Mid-layout: 2 x 512 MiB, killed once the first file is being written.
mkdir "$T/a"
F=$T/a/pagecliff-bench
start "$T/a" laying_out --numjobs 2 --size 512m -m buffered
echo "the user's own notes" >"$F/notes.txt"
sum=$(sha256sum <"$F/notes.txt")
size=$(stat -c %s "$F/job0.dat")
killed
[ "$(ls -A "$F")" = notes.txt ] || fail "mid-layout: left in the folder: $(ls -A "$F")"
[ "$(sha256sum <"$F/notes.txt")" = "$sum" ] || fail "mid-layout: the user's file changed"
echo "mid-layout (job0.dat at $size bytes or more): bench's files removed, the user's kept"

# Mid-phase: the data set laid out and being read; the user has replaced
# job1.dat with a file of their own (another inode) meanwhile.
mkdir "$T/b"
echo "beside the folder" >"$T/b/mine.txt"
F=$T/b/pagecliff-bench
start "$T/b" laid_out --numjobs 2 --size 16m -m buffered \
	--time_based --runtime 60 --interval 200ms
sleep 0.5
rm "$F/job1.dat"
echo "the user's job1.dat" >"$F/job1.dat"
sum=$(sha256sum <"$F/job1.dat")
killed
[ "$(ls -A "$F")" = job1.dat ] || fail "mid-phase: left in the folder: $(ls -A "$F")"
[ "$(sha256sum <"$F/job1.dat")" = "$sum" ] || fail "mid-phase: the user's job1.dat changed"
[ "$(cat "$T/b/mine.txt")" = "beside the folder" ] || fail "mid-phase: the user's mine.txt changed"

# Mid-phase with nothing of the user's inside: the folder goes too.
mkdir "$T/c"
echo "beside the folder" >"$T/c/mine.txt"
F=$T/c/pagecliff-bench
start "$T/c" laid_out --size 8m -m buffered --time_based --runtime 60 \
	--interval 200ms
killed
[ ! -e "$F" ] || fail "the folder stayed: $(ls -A "$F")"
[ "$(ls -A "$T/c")" = mine.txt ] || fail "left in the directory: $(ls -A "$T/c")"

# --keep: the data set stays recorded for the next run, only the lock goes.
mkdir "$T/k"
F=$T/k/pagecliff-bench
start "$T/k" laid_out --size 8m -m buffered --time_based --runtime 60 --interval 200ms --keep
killed
[ "$(ls "$F")" = "bench.made
job0.dat" ] || fail "--keep: not the data set and its record: $(ls -A "$F")"
"$PAGECLIFF" bench -d "$T/k" --size 8m -m buffered --runtime 1 -q --no-trace -o /dev/null \
	2>"$T/err" || fail "--keep: the next run: $(cat "$T/err")"
grep -q "laying out" "$T/err" && fail "--keep: the kept data set was not reused"
[ ! -e "$F" ] || fail "--keep: the next run (no --keep) left $(ls -A "$F")"
echo "PASS: killed mid-layout and mid-phase, --cleanup removed bench's files and only those"
