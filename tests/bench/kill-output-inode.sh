#!/bin/bash
# SPDX-License-Identifier: MIT
# A run killed (SIGKILL) with -o FILE on a fresh ext4, FILE then replaced by
# a user's file that ext4 gave the removed report's inode number: 'pagecliff
# bench --cleanup' keeps the user's file byte for byte (the run's journal
# records the report's birth time and generation beside its device and
# inode), with 256-byte inodes (birth time and generation) and with 128-byte
# ones (the generation alone).  Not replaced, the report is removed; a record
# whose birth time is not the file's keeps it; a record of the older format
# (device and inode alone) is still undone.  Before, --cleanup removed the
# user's file: it matched the report's device and inode.
. "$(dirname "$0")/harness.sh"
needs_root "for --cleanup of what root's runs made"
tmpdir
T=$(realpath "$T")

# killed DATA-DIR OUTPUT: a bench run on DATA-DIR writing its report to
# OUTPUT, SIGKILLed once its data is laid out; sets PID and STATE (its
# journal).  cleanup: --cleanup, its lines in $T/clean.  (Another root run's
# sweep may undo the journal first: each part below says what that voids.)
killed() {
	mkdir "$1" || exit 1
	bench_start "$1" laid_out --size 8m -m buffered --time_based --runtime 60 \
		--interval 200ms -o "$2"
	STATE=/run/pagecliff/bench-$PID.state
	kill -KILL $PID
	wait $PID 2>/dev/null
}
cleanup() {
	"$PAGECLIFF" bench --cleanup 2>"$T/clean" || fail "--cleanup: exit $?: $(cat "$T/clean")"
	cat "$T/clean"
	# another run's sweep that holds the journal this instant undoes it
	for _ in $(seq 100); do
		[ -e "$STATE" ] || break
		sleep 0.05
	done
	check_nothing_left $PID
}

# record LABEL OUTPUT BTIME: the journal's line for OUTPUT has its device,
# inode, a birth time matching the pattern BTIME and a generation (unless
# the journal is gone already).
record() {
	grep -Eq "^output [0-9]+ [0-9]+ $3 [0-9]+ $2\$" "$STATE" 2>/dev/null || [ ! -e "$STATE" ] ||
		fail "$1: not the record wanted: $(cat "$STATE")"
}

# Not replaced: the report the run made is removed.
loopfs "$T/r" ext4 64M -I 256
mkdir "$T/r/gone"
killed "$T/d-gone" "$T/r/gone/report.txt"
record "not replaced" "$T/r/gone/report.txt" "[0-9]+\.[0-9]{9}"
cleanup
[ ! -e "$T/r/gone/report.txt" ] || fail "--cleanup kept the killed run's report"
grep -qxF "removed what a killed run left: output $T/r/gone/report.txt" "$T/clean" ||
	echo "(another run's sweep removed the report first)"
echo "not replaced: the killed run's report removed"

# reused FS LABEL BTIME: on the fresh ext4 FS, the report replaced by a
# user's file with its inode number: ext4 gives a new file the first free
# inode, which the removal has just freed (else the filler files take the
# ones before it).  BTIME is the record's birth time field (a pattern).  When
# another run's sweep removes the report before the user's file is in place,
# the try is void and made again.
reused() {
	local fs=$1 try ino i out sum
	for try in 1 2 3; do
		mkdir "$fs/$try"
		out=$fs/$try/report.txt
		killed "$T/d-${fs##*/}-$try" "$out"
		record "$2" "$out" "$3"
		ino=$(stat -c %i "$out" 2>/dev/null) || continue
		rm "$out" 2>/dev/null || continue
		for i in $(seq 200); do
			echo "the user's report, made at try $i" >"$out"
			[ "$(stat -c %i "$out")" = "$ino" ] && break
			mv "$out" "$fs/$try/filler$i"
		done
		[ "$(stat -c %i "$out")" = "$ino" ] || fail "$2: no new file got inode $ino (test broken)"
		rm -f "$fs/$try"/filler*
		cp "$out" "$T/user.txt"
		cleanup
		cmp -s "$out" "$T/user.txt" ||
			fail "$2: the user's file on the report's inode number $ino was removed or changed"
		grep -qF "$out" "$T/clean" && fail "$2: --cleanup named the user's file: $(cat "$T/clean")"
		echo "$2: the user's file on the report's inode $ino stayed"
		return
	done
	fail "$2: other runs' sweeps removed the report three times"
}
reused "$T/r" "ext4" "[0-9]+\.[0-9]{9}"
loopfs "$T/r128" ext4 64M -I 128
reused "$T/r128" "ext4, no birth time" -

# A record whose birth time is a second off the report's (the generation as
# it was): the report is not the file recorded, so it stays.  Void when
# another run's sweep undid the journal before it was changed.
mkdir "$T/r/btime"
out=$T/r/btime/report.txt
killed "$T/d-btime" "$out"
if awk '$1 == "output" && $4 != "-" { split($4, t, "."); $4 = t[1] + 1 "." t[2] } 1' \
	"$STATE" >"$T/btime.state" 2>/dev/null && [ -e "$out" ]; then
	cmp -s "$T/btime.state" "$STATE" && fail "birth time: the journal not changed (test broken)"
	cat "$T/btime.state" >"$STATE"
	cleanup
	if [ -e "$out" ]; then
		echo "birth time: the report, born a second before its record says, stayed"
	elif grep -qxF "removed what a killed run left: output $out" "$T/clean"; then
		fail "birth time: the report, born a second before its record says, was removed"
	fi			# else another run's sweep read the journal first
fi

# A journal of the older format ("output DEV:INO PATH") of a run that is
# gone (a pid above pid_max): the file it names, still that device and
# inode, is removed.
out=$T/r/v1-report.txt
echo "a v1 report" >"$out"
STATE=/run/pagecliff/bench-$(($(cat /proc/sys/kernel/pid_max) + 1))-$$.state
mkdir -p /run/pagecliff
at_exit "rm -f '$STATE'"
at_exit "rm -f '/run/pagecliff/v1-$$.tmp'"
echo "output $(stat -c %d:%i "$out") $out" >"/run/pagecliff/v1-$$.tmp"
# in place whole, and only now: other tests' checks take it for a leftover
mv "/run/pagecliff/v1-$$.tmp" "$STATE"
"$PAGECLIFF" bench --cleanup 2>"$T/clean" || fail "--cleanup: exit $?: $(cat "$T/clean")"
cat "$T/clean"
[ ! -e "$out" ] || fail "v1: the output of an older journal's record stayed"
[ ! -e "$STATE" ] || fail "v1: the older journal stayed"
echo "v1: an output recorded by device and inode alone removed"

echo "PASS: --cleanup removed a killed run's report, and kept a user's file on its inode number"
