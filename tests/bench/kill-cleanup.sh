#!/bin/bash
# SPDX-License-Identifier: MIT
# A run on --directory killed (SIGKILL) while it lays out its data set and
# while a phase reads it: 'pagecliff bench --cleanup' removes what the run's
# journal says it made (data files, bench.made, bench.lock, the folder when
# it is left empty) and nothing else: a user's file in the folder, and a
# file the user put in place of one of bench's, stay byte for byte, also
# when ext4 gives that file the inode number of bench's (bench.made records
# the birth time and generation too; a v1 journal, without them, is still
# read).  A --keep run's data set stays recorded, and the next run reuses it.
. "$(dirname "$0")/harness.sh"
needs_root "for --cleanup of what root's runs made"
tmpdir

# Whether the run is laying out job0.dat.
laying_out() { [ -s "$F/job0.dat" ]; }

# kill_run: SIGKILL the run and reap it.  cleanup: --cleanup, its lines in
# $T/clean.  killed: both.  (Another root run's sweep may remove the remains
# first: the result is the same.)
kill_run() {
	[ -e "$F/bench.made" ] || fail "the run has no bench.made yet (test broken)"
	kill -KILL $PID
	wait $PID 2>/dev/null
}
cleanup() {
	"$PAGECLIFF" bench --cleanup 2>"$T/clean" || fail "--cleanup: exit $?: $(cat "$T/clean")"
	cat "$T/clean"
	check_nothing_left $PID
}
killed() { kill_run; cleanup; }

# Mid-layout: 2 x 512 MiB, killed once the first file is being written.
mkdir "$T/a"
F=$T/a/pagecliff-bench
bench_start "$T/a" laying_out --numjobs 2 --size 512m -m buffered
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
bench_start "$T/b" laid_out --numjobs 2 --size 16m -m buffered \
	--time_based --runtime 60 --interval 200ms
sleep 0.5
rm "$F/job1.dat"
echo "the user's job1.dat" >"$F/job1.dat"
sum=$(sha256sum <"$F/job1.dat")
killed
[ "$(ls -A "$F")" = job1.dat ] || fail "mid-phase: left in the folder: $(ls -A "$F")"
[ "$(sha256sum <"$F/job1.dat")" = "$sum" ] || fail "mid-phase: the user's job1.dat changed"
[ "$(cat "$T/b/mine.txt")" = "beside the folder" ] || fail "mid-phase: the user's mine.txt changed"

# Mid-phase, then the user replaces job1.dat with a file that has its inode
# number: ext4 gives a new file the first free inode, which the removal has
# just freed (else the filler files take the ones before it).  On a fresh
# ext4 with 256-byte inodes (birth time and generation) and with 128-byte
# ones (no birth time: the generation alone tells the files apart).  When
# another run's sweep gives the folder back before the file is in place,
# the try is void and made again.  reused DIR LABEL BTIME: BTIME is the
# journal's birth time field for job1.dat (a pattern).
reused() {
	local dir=$1 try ino i
	for try in 1 2 3; do
		mkdir "$dir/$try"
		F=$dir/$try/pagecliff-bench
		bench_start "$dir/$try" laid_out --numjobs 2 --size 8m -m buffered --time_based \
			--runtime 60 --interval 200ms
		kill_run
		grep -Eq "^[0-9]+ [0-9]+ $3 [0-9]+ job1.dat\$" "$F/bench.made" 2>/dev/null ||
			[ ! -e "$F/bench.made" ] ||
			fail "reused ($2): not the identity wanted: $(cat "$F/bench.made")"
		ino=$(stat -c %i "$F/job1.dat" 2>/dev/null) || continue
		rm "$F/job1.dat" 2>/dev/null || continue
		for i in $(seq 200); do
			echo "the user's job1.dat, made at try $i" >"$F/job1.dat" 2>/dev/null ||
				continue 2
			[ "$(stat -c %i "$F/job1.dat")" = "$ino" ] && break
			mv "$F/job1.dat" "$F/filler$i"
		done
		[ "$(stat -c %i "$F/job1.dat")" = "$ino" ] ||
			fail "reused ($2): no new file got inode $ino (test broken)"
		rm -f "$F"/filler*
		sum=$(sha256sum <"$F/job1.dat")
		cleanup
		[ "$(ls -A "$F")" = job1.dat ] || fail "reused ($2): left in the folder: $(ls -A "$F")"
		[ "$(sha256sum <"$F/job1.dat")" = "$sum" ] ||
			fail "reused ($2): the user's job1.dat (bench's inode number) changed"
		echo "reused ($2): the user's job1.dat on inode $ino stayed"
		return
	done
	fail "reused ($2): other runs' sweeps took the folder three times"
}
loopfs "$T/r" ext4 64M -I 256
reused "$T/r" "ext4" "[0-9]+\.[0-9]{9}"
loopfs "$T/r128" ext4 64M -I 128
reused "$T/r128" "ext4, no birth time" -

# journal JOURNAL-EDIT: a run on the ext4 of reused() killed mid-phase, its
# bench.made rewritten in place (the journal's own inode) through the
# function JOURNAL-EDIT, then --cleanup.  Returns 1 when another run's sweep
# gave the folder back first (the part is void).
journal() {
	mkdir "$T/r/$1"
	F=$T/r/$1/pagecliff-bench
	bench_start "$T/r/$1" laid_out --size 8m -m buffered --time_based --runtime 60 --interval 200ms
	kill_run
	"$1" <"$F/bench.made" >"$T/$1.made" 2>/dev/null || return 1
	cmp -s "$T/$1.made" "$F/bench.made" && fail "$1: bench.made not changed (test broken)"
	cat "$T/$1.made" >"$F/bench.made" || return 1
	cleanup
}

# A journal of format v1 (device, inode and name, as bench wrote before the
# birth time and generation) is still bench's: --cleanup gives it all back.
v1() {
	local n id
	echo "pagecliff-bench made v1"
	for n in bench.made . bench.lock job0.dat; do
		id=$(stat -c "%d %i" "$F/$n") || return 1
		echo "$id $n"
	done
}
if journal v1; then
	[ ! -e "$F" ] || fail "v1: the folder stayed: $(ls -A "$F")"
	echo "v1: a journal without birth time and generation is still cleaned up"
fi

# A record whose birth time is not the file's: the file is not the one bench
# made (one second off, the generation as it was), so it stays.
btime() {
	awk '$5 == "job0.dat" && $3 != "-" { split($3, t, "."); $3 = t[1] + 1 "." t[2] } 1'
}
if journal btime; then
	[ "$(ls -A "$F")" = job0.dat ] || fail "birth time: left in the folder: $(ls -A "$F")"
	echo "birth time: job0.dat, born a second before its record says, stayed"
fi

# Mid-phase with nothing of the user's inside: the folder goes too.
mkdir "$T/c"
echo "beside the folder" >"$T/c/mine.txt"
F=$T/c/pagecliff-bench
bench_start "$T/c" laid_out --size 8m -m buffered --time_based --runtime 60 \
	--interval 200ms
killed
[ ! -e "$F" ] || fail "the folder stayed: $(ls -A "$F")"
[ "$(ls -A "$T/c")" = mine.txt ] || fail "left in the directory: $(ls -A "$T/c")"

# --keep: the data set stays recorded for the next run, only the lock goes.
mkdir "$T/k"
F=$T/k/pagecliff-bench
bench_start "$T/k" laid_out --size 8m -m buffered --time_based --runtime 60 --interval 200ms --keep
killed
[ "$(ls "$F")" = "bench.made
job0.dat" ] || fail "--keep: not the data set and its record: $(ls -A "$F")"
"$PAGECLIFF" bench -d "$T/k" --size 8m -m buffered --runtime 1 -q --no-trace -o /dev/null \
	2>"$T/err" || fail "--keep: the next run: $(cat "$T/err")"
grep -q "laying out" "$T/err" && fail "--keep: the kept data set was not reused"
[ ! -e "$F" ] || fail "--keep: the next run (no --keep) left $(ls -A "$F")"
echo "PASS: killed mid-layout and mid-phase, --cleanup removed bench's files and only those" \
	"(also a user's file on a reused inode number; a v1 journal)"
