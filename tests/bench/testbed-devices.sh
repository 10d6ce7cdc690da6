#!/bin/bash
# SPDX-License-Identifier: MIT
# --testbed ram:COUNTxSIZE: bad values and a COUNT x SIZE that does not fit in
# memory are refused in one line with nothing made; a run on ram:2xSIZE reads
# every byte from two directories, each its own loop device and XFS, with
# --numjobs threads per device; SIGINT in the middle of building the devices
# and SIGTERM in the middle of the run leave no loop device, mount, cgroup or
# state behind, and the loop devices and mounts of this run are gone; after
# SIGKILL, --cleanup detaches and unmounts both devices and says so.
. "$(dirname "$0")/harness.sh"
needs_root "for the testbed and the memory cgroup"
[ -e /dev/loop-control ] || skip "no loop devices"
command -v mkfs.xfs >/dev/null || skip "no mkfs.xfs (the devices here are 320 MiB XFS)"
tmpdir

# refused VALUE WANT: exit 2, one line containing WANT, nothing made.
refused() {
	"$PAGECLIFF" bench --testbed "$1" --numjobs 1 --size 64m -q >"$T/out" 2>"$T/err" &
	local p=$! rc
	wait $p
	rc=$?
	check_nothing_left $p
	drop_cleanup_lines "$T/err"
	[ $rc = 2 ] || fail "--testbed $1: exit $rc, want 2: $(cat "$T/err")"
	[ "$(wc -l <"$T/err")" = 1 ] && grep -qF -- "$2" "$T/err" ||
		fail "--testbed $1: want one line with '$2', got: $(cat "$T/err")"
}
refused ram:0x1g "COUNT is a whole number from 1 to 16"
refused ram:17x1g "COUNT is a whole number from 1 to 16"
refused ram:2x1m "a size per device from 64 MiB"
refused ram:axb "COUNT is a whole number"
refused ram:16x100t "MiB of tmpfs, more than 80% of the"

# Run $1's testbed folder, as a pattern: its id is the pid, "-N" added when
# another PID namespace's run of the same pid has that name.
tb() { echo "/run/pagecliff/testbed-$1(-[0-9]+)?"; }

# This run's loop devices (by their backing files) and mounts.
ours() {
	{ losetup -a 2>/dev/null; cat /proc/mounts; } | grep -E "$(tb "$1")/"
}

# nothing_of PID WHAT: run PID left no cgroup, state, loop device or mount.
nothing_of() {
	check_nothing_left "$1"
	[ -z "$(ours "$1")" ] || fail "$2 left: $(ours "$1")"
}

# A run reading 2 devices x 2 threads x 64 MiB, JSON report.
"$PAGECLIFF" bench --testbed ram:2x320m --mem-limit 256m --numjobs 2 --size 64m \
	--mode direct,buffered --output-format json -o "$T/r1.json" -q 2>"$T/err1" &
pid=$!
seen=0
while kill -0 $pid 2>/dev/null; do
	n=$(grep -cE "$(tb $pid)/mnt[01] xfs" /proc/mounts)
	[ "$n" -gt "$seen" ] && seen=$n
	sleep 0.05
done
wait $pid || fail "run on ram:2x320m failed: $(cat "$T/err1")"
[ "$seen" = 2 ] || fail "saw $seen XFS mounts of the run at once, want 2"
python3 - "$T/r1.json" <<'PY' || fail "report: see above"
import json, sys
r = json.load(open(sys.argv[1]))
j = r["job"]
assert j["threads"] == 4, j
assert len(j["directories"]) == 2 and j["directories"][0].endswith("/mnt0") \
    and j["directories"][1].endswith("/mnt1"), j["directories"]
assert j["testbed"].startswith("2 devices, each xfs"), j["testbed"]
loops = j["testbed"].split("(")[1].rstrip(")").split()
assert len(loops) == 2 and loops[0] != loops[1], loops
for m in r["modes"]:
    assert m["error"] == 0 and m["bytes"] == 4 * (64 << 20), (m["mode"], m["bytes"])
PY
nothing_of $pid "run $pid"
echo "ram:2x320m: 2 XFS mounts, 4 threads, every byte read, nothing left"

# SIGINT while the devices are being built (8 of them: several seconds).
"$PAGECLIFF" bench --testbed ram:8x320m --mem-limit 256m --numjobs 1 --size 64m \
	--mode direct -q >"$T/out2" 2>"$T/err2" &
pid=$!
for _ in $(seq 600); do
	grep -qE "$(tb $pid)/mnt0 " /proc/mounts && break
	kill -0 $pid 2>/dev/null || fail "bench ended before its first device: $(cat "$T/err2")"
	sleep 0.02
done
kill -INT $pid
wait $pid
rc=$?
[ $rc = 130 ] || fail "SIGINT in setup: exit $rc, want 130: $(cat "$T/err2")"
grep -q "^testbed: " "$T/err2" && echo "note: the devices were all built before the signal"
nothing_of $pid "SIGINT in setup"
echo "SIGINT while building the devices: exit 130, nothing left"

# SIGTERM in the middle of the run.
"$PAGECLIFF" bench --testbed ram:2x320m --mem-limit 256m --numjobs 1 --size 64m \
	--mode buffered --runtime 60 --time_based --interval 200ms -q >"$T/out3" 2>"$T/err3" &
pid=$!
wait_for $pid "$T/err3" grep -q "^memory cap:" "$T/err3"
sleep 1
[ "$(ours $pid | grep -c ' xfs ')" = 2 ] || fail "not 2 XFS mounts while running: $(ours $pid)"
kill -TERM $pid
wait $pid
rc=$?
[ $rc = 143 ] || fail "SIGTERM in the run: exit $rc, want 143: $(cat "$T/err3")"
grep -q "^interrupted" "$T/out3" || fail "SIGTERM: the report does not say it was interrupted"
nothing_of $pid "SIGTERM in the run"
echo "SIGTERM in the run: exit 143, report, nothing left"

# SIGKILL in the middle of the run: the next run's --cleanup undoes both
# devices from the state file (each loop device checked against its own
# backing file) and says so.
"$PAGECLIFF" bench --testbed ram:2x320m --mem-limit 256m --numjobs 1 --size 64m \
	--mode buffered --runtime 60 --time_based -q >"$T/out4" 2>"$T/err4" &
pid=$!
wait_for $pid "$T/err4" grep -q "^memory cap:" "$T/err4"
loops=$(sed -n 's/^testbed: 2 devices, .* (\(.*\))$/\1/p' "$T/err4")
[ "$(echo "$loops" | wc -w)" = 2 ] || fail "not 2 loop devices named: $(cat "$T/err4")"
for l in $loops; do
	losetup -a 2>/dev/null | grep -qE "^$l: .*$(tb $pid)/ram/disk[01].img" ||
		fail "$l is not bound to the run's backing file: $(losetup -a 2>&1 | grep "^$l:")"
done
kill -KILL $pid
wait $pid 2>/dev/null
"$PAGECLIFF" bench --cleanup 2>"$T/clean4" || fail "--cleanup failed: $(cat "$T/clean4")"
for l in $loops; do
	grep -q "^removed what a killed run left: loop $l$" "$T/clean4" ||
		fail "--cleanup did not say it detached $l: $(cat "$T/clean4")"
done
for m in mnt0 mnt1; do
	grep -qE "^removed what a killed run left: mount $(tb $pid)/$m$" "$T/clean4" ||
		fail "--cleanup did not say it unmounted $m: $(cat "$T/clean4")"
done
nothing_of $pid "SIGKILL, then --cleanup,"
echo "PASS: ram:COUNTxSIZE refused when bad, built, read, and undone on SIGINT, SIGTERM and SIGKILL + --cleanup"
