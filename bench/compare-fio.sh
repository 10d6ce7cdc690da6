#!/bin/bash
# SPDX-License-Identifier: MIT
# Run the same job with fio and with `pagecliff bench` on the RAM testbed (or
# on DIR) and print bench's throughput as a ratio of fio's: buffered with the
# same buffer alignment (page-aligned, and fio's default malloc'ed buffer
# against bench at page offset 16), and direct with one read in flight and
# with io_uring at iodepth 8.  Runs alternate between the tools; medians.
#
# usage: sudo bench/compare-fio.sh [DIR]     (env: PAGECLIFF, REPS=3, RUNTIME=6,
#                                              NUMJOBS=2, SIZE=2g, CAP=1g)
# Never uses fio's `uncached`: fio 3.33 sets the wrong flag with it (docs/MACHINES.md).
set -u
PAGECLIFF=${PAGECLIFF:-$(dirname "$0")/../build/cli/pagecliff}
REPS=${REPS:-3} RUNTIME=${RUNTIME:-6} NUMJOBS=${NUMJOBS:-2} SIZE=${SIZE:-2g} CAP=${CAP:-1g}

die() { echo "compare-fio: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || die "needs root (testbed, memory cgroup, drop_caches)"
command -v fio >/dev/null || die "fio not found"
[ -x "$PAGECLIFF" ] || die "no pagecliff at $PAGECLIFF (set PAGECLIFF)"
W=$(mktemp -d /tmp/compare-fio.XXXXXX)
CG="" TB=""

cleanup() {
	[ -n "$CG" ] && [ -d "$CG" ] && { cat "$CG/cgroup.procs" 2>/dev/null | while read -r p; do
		echo "$p" >"$(dirname "$CG")/cgroup.procs"; done; rmdir "$CG"; }
	if [ -n "$TB" ]; then
		umount "$TB/mnt" 2>/dev/null
		[ -n "${LOOP:-}" ] && losetup -d "$LOOP" 2>/dev/null
		umount "$TB/ram" 2>/dev/null
		rm -rf "$TB"
	fi
	rm -rf "$W"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

bytes() { python3 -c "
import sys; s = sys.argv[1].lower(); u = {'k': 10, 'm': 20, 'g': 30, 't': 40}
print(int(s[:-1]) << u[s[-1]] if s[-1] in u else int(s))" "$1"; }

if [ $# -ge 1 ]; then
	DIR=$1
else
	# A testbed like bench's: XFS on a loop device over a file in its own tmpfs.
	TB=$(mktemp -d /tmp/compare-fio-tb.XXXXXX)
	need=$(( $(bytes "$SIZE") * NUMJOBS * 9 / 8 + (256 << 20) ))
	mkdir "$TB/ram" "$TB/mnt"
	mount -t tmpfs -o size=$((need + (16 << 20))) none "$TB/ram" || die "tmpfs"
	truncate -s $need "$TB/ram/img"
	LOOP=$(losetup -f --show "$TB/ram/img") || die "losetup"
	mkfs.xfs -q -f "$LOOP" && mount "$LOOP" "$TB/mnt" || die "mkfs/mount"
	DIR=$TB/mnt
fi

# The data set, made once by bench (fio then reads it read-only).
"$PAGECLIFF" bench -d "$DIR" --numjobs "$NUMJOBS" --size "$SIZE" --mode direct \
	--runtime 1 --keep -q -o /dev/null || die "cannot lay out the data set"

# The same memory cap for fio as bench's --mem-limit.
mem=$(sed -n 's/^[0-9]*:[^:]*memory[^:]*:\(.*\)$/\1/p' /proc/self/cgroup | head -1)
if [ -n "$mem" ]; then
	CG=/sys/fs/cgroup/memory$mem/compare-fio-$$
	mkdir "$CG" && echo "$(bytes "$CAP")" >"$CG/memory.limit_in_bytes" || die "cgroup v1"
else
	CG=/sys/fs/cgroup$(sed -n 's/^0::\(.*\)$/\1/p' /proc/self/cgroup)
	CG=$(dirname "$CG")/compare-fio-$$
	mkdir "$CG" && echo "$(bytes "$CAP")" >"$CG/memory.max" || die "cgroup v2"
fi

fio_gbps() {	# extra fio options...
	local files="" i
	for ((i = 0; i < NUMJOBS; i++)); do
		files="$files --name=j$i --filename=$DIR/pagecliff-bench/job$i.dat"
	done
	sync; echo 1 >/proc/sys/vm/drop_caches
	sh -c 'echo $$ >"$0/cgroup.procs" && exec "$@"' "$CG" \
		fio --readonly --rw=read --bs=1m --size="$SIZE" --runtime="$RUNTIME" \
		--time_based --group_reporting --output-format=json "$@" $files \
		>"$W/fio.json" || die "fio failed"
	python3 -c "import json; s = open('$W/fio.json').read(); j = json.loads(s[s.index('{'):]);
print('%.3f' % (j['jobs'][0]['read']['bw_bytes'] / 1e9))"
}

bench_gbps() {	# extra bench options...
	"$PAGECLIFF" bench -d "$DIR" --numjobs "$NUMJOBS" --size "$SIZE" --bs 1m \
		--mem-limit "$CAP" --runtime "$RUNTIME" --time_based --keep -q \
		--output-format json -o "$W/bench.json" "$@" 2>"$W/bench.err" ||
		die "bench failed: $(cat "$W/bench.err")"
	python3 -c "import json; j = json.load(open('$W/bench.json'));
print('%.3f' % j['modes'][0]['gbps_avg'])"
}

median() { tr ' ' '\n' | grep . | sort -g | awk '{a[NR] = $1} END {print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}'; }

compare() {	# label, fio options, --, bench options
	local label=$1 fopts=() bopts=() f="" b="" r
	shift
	while [ "$1" != "--" ]; do fopts+=("$1"); shift; done
	shift
	bopts=("$@")
	for ((r = 0; r < REPS; r++)); do	# alternate which tool goes first
		if ((r % 2)); then
			b="$b $(bench_gbps "${bopts[@]}")"
			f="$f $(fio_gbps "${fopts[@]}")"
		else
			f="$f $(fio_gbps "${fopts[@]}")"
			b="$b $(bench_gbps "${bopts[@]}")"
		fi
	done
	printf "%-38s fio %6.2f GB/s  bench %6.2f GB/s  ratio %.3f  (runs: fio%s; bench%s)\n" \
		"$label" "$(echo "$f" | median)" "$(echo "$b" | median)" \
		"$(echo "$(echo "$b" | median) / $(echo "$f" | median)" | bc -l)" "$f" "$b"
}

echo "job: $NUMJOBS threads x $SIZE, bs 1m, $RUNTIME s time-based, cap $CAP, $REPS runs each, dir $DIR"
echo "ratio = bench / fio, whole-run averages (GB/s = 1e9 bytes/s), medians of the runs"
# Memory freed a while ago is slow to touch again on VMs with free page
# reporting (docs/MACHINES.md): one throw-away buffered run backs the cap's worth first.
bench_gbps --mode buffered >/dev/null
# fio hints POSIX_FADV_SEQUENTIAL by default; the library's buffered mode does
# not, so fio runs without the hint for the same syscalls.
compare "buffered, page-aligned buffers" --ioengine=psync --iomem=mmap --fadvise_hint=0 -- \
	--mode buffered --mem-align 0
compare "buffered, buffers at page offset 16" --ioengine=psync --iomem=malloc --fadvise_hint=0 -- \
	--mode buffered --mem-align 16
# Direct: fio reads into its own buffer, so bench borrows the library's
# (zero-copy); the copy API would add a memcpy fio does not do.
compare "direct, one read in flight (psync)" --ioengine=psync --direct=1 -- \
	--mode direct --ioengine psync --api zerocopy
compare "direct, io_uring iodepth 8" --ioengine=io_uring --iodepth=8 --direct=1 -- \
	--mode direct --ioengine io_uring --iodepth 8 --api zerocopy
rm -rf "$DIR/pagecliff-bench/"job*.dat
rmdir "$DIR/pagecliff-bench" 2>/dev/null
exit 0
