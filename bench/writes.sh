#!/bin/bash
# SPDX-License-Identifier: MIT
# The write benchmark of docs/PERFORMANCE.md ("Writes and copies"): JOBS
# files of SIZE written, and the same files copied, by fio 3.33, the
# pagecliff write modes (bench --rw write) and four ways to copy, interleaved,
# REPS times, every run in the same memory cgroup of CAP.  Every writer ends
# with a flush that is timed: fio end_fsync=1, bench's fdatasync per file,
# `sync FILE...` after each copy (cp then sync is the baseline; the others get
# the same sync, which costs them nothing when they left nothing dirty).
#
# The write modes run with bench's zero-copy API: it fills each buffer the
# stream lends once and reuses it, as fio reuses its buffer; no memcpy per
# write on either side.
#
# Sources (the data set bench lays out) live on the RAM testbed of
# bench/lib.sh; everything is written to a second XFS on a loop device over a
# tmpfs of its own, so no copy can share blocks (cp(1) 9.x and pagecliff cp
# would clone on the reflink testbed and measure nothing).
#
# Per contender: median GB/s (bytes / wall time including the flush, with
# min-max), CPU seconds per GiB of the process (user + system) and of the
# whole system, peak memory of the cgroup, peak bytes of the written files
# in the page cache (polled with fincore every 50 ms), and what is left
# cached after the run of the destination and of the source.  Then the
# ratios of the targets.
#
# usage: sudo bench/writes.sh [ram | DIR]
# env: REPS (3), SIZE per file (4g), JOBS (2), CAP (1g), ONLY (regex of
#      contender names), PAGECLIFF (the binary)
set -u
cd "$(dirname "$0")/.." || exit 1

REPS=${REPS:-3}
ONLY=${ONLY:-.}
JOBS=${JOBS:-2}
NAME=writes.sh
. bench/lib.sh
command -v fio >/dev/null || die "fio is not installed (apt-get install fio)"
command -v nocache >/dev/null || die "nocache is not installed (apt-get install nocache)"
prepare "${1:-ram}"

# The write side: XFS on a loop device over a tmpfs of our own (in $W, so
# lib.sh's cleanup removes the folder; the mount and loop go in ours).
OUTMNT=
cleanup_out() {
	if [ -n "$OUTMNT" ]; then
		umount "$OUTMNT" 2>/dev/null || umount -l "$OUTMNT"
		umount "$W/oram" 2>/dev/null
	fi
	cleanup
}
trap cleanup_out EXIT
mkdir "$W/oram" "$W/out"
mount -t tmpfs -o size=$((JOBS * size_b + (1 << 30))) pagecliff-writes "$W/oram" || die "cannot mount tmpfs"
OUTMNT=$W/out
truncate -s $((JOBS * size_b + (768 << 20))) "$W/oram/out.img"
mkfs.xfs -q -f "$W/oram/out.img" >/dev/null || die "mkfs.xfs failed"
mount -o loop "$W/oram/out.img" "$OUTMNT" || die "cannot mount the write side"
O=$OUTMNT

# Where each contender's files go, to measure and remove them.
fio_out() { local i; for ((i = 0; i < JOBS; i++)); do echo "$O/w/f$i"; done; }
bench_out() { local i; for ((i = 0; i < JOBS; i++)); do echo "$O/w/pagecliff-bench/job$i.dat"; done; }
copy_out() { local f; for f in "${FILES[@]}"; do echo "$O/c/$(basename "$f")"; done; }

fio_job() {	# fio options...: one job per file, each ending in fdatasync
	local args=(--rw=write --bs=1m --size="$SIZE" --end_fsync=1 --output=/dev/null "$@") f
	for f in $(fio_out); do args+=(--name="j${#args[@]}" --filename="$f"); done
	echo "mkdir -p $O/w && fio ${args[*]}"
}

bench_write() {	# mode
	echo "mkdir -p $O/w && $PC bench --rw write --directory $O/w --numjobs $JOBS --size $SIZE --bs 1m --mode $1 --api zerocopy --quiet -o /dev/null"
}

copy_job() {	# copy command (gets the sources, then the folder), then sync of the copies
	echo "mkdir -p $O/c && $1 ${FILES[*]} $O/c/ && sync $(copy_out | tr '\n' ' ')"
}

dd_job() {
	local c="mkdir -p $O/c" f
	for f in "${FILES[@]}"; do
		c="$c && dd if=$f of=$O/c/$(basename "$f") bs=1M oflag=direct status=none"
	done
	echo "$c && sync $(copy_out | tr '\n' ' ')"
}

CONTENDERS=(
	"fio-write-buffered|fio|$(fio_job --ioengine=psync)"
	"fio-write-direct|fio|$(fio_job --ioengine=psync --direct=1)"
	"fio-uring-direct-qd16|fio|$(fio_job --ioengine=io_uring --direct=1 --iodepth=16)"
)
modes=$("$PC" bench --list-modes) && [ -n "$modes" ] || die "$PC bench --list-modes: exit $?"
for m in $modes; do
	CONTENDERS+=("bench-write-$m|bench|$(bench_write $m)")
done
CONTENDERS+=(
	"cp+sync|copy|$(copy_job cp)"
	"dd-oflag-direct+sync|copy|$(dd_job)"
	"nocache-cp+sync|copy|$(copy_job "nocache cp")"
	"pagecliff-cp+sync|copy|$(copy_job "$PC cp")"
)

# Peak memory of the cgroup: reset before a run, read after.
peak_reset() {
	[ -e "$CG/memory.max_usage_in_bytes" ] && echo 0 >"$CG/memory.max_usage_in_bytes"
	[ -e "$CG/memory.peak" ] && echo 0 >"$CG/memory.peak" 2>/dev/null
	return 0
}
peak_read() {
	if [ -e "$CG/memory.max_usage_in_bytes" ]; then
		cat "$CG/memory.max_usage_in_bytes"
	elif [ -e "$CG/memory.peak" ]; then
		cat "$CG/memory.peak"
	else
		echo nan
	fi
}

# What of the run's outputs ($outs, those that exist yet) is cached.
# shellcheck disable=SC2086
cached_outs() { cached_bytes $(for f in $outs; do [ -e "$f" ] && echo "$f"; done) /dev/null 2>/dev/null; }

# run NAME KIND COMMAND: one run in the cgroup; appends a row to $W/raw.tsv.
run_one() {
	local name=$1 kind=$2 cmd=$3 peak=0 c b0 b1 t0 t1 rc outs src dst
	case $kind in
	fio) outs=$(fio_out) ;;
	bench) outs=$(bench_out) ;;
	copy) outs=$(copy_out) ;;
	esac
	rm -rf "$O/w" "$O/c"
	cold "${FILES[@]}"
	peak_reset
	b0=$(busy_ticks)
	timed_run "$cmd" cached_outs
	b1=$(busy_ticks)
	[ $rc = 0 ] || { echo "bench/writes.sh: $name failed (exit $rc)" >&2; return; }
	read -r u s <"$W/time"
	# bench removes its files at the end: what it left cached is 0 by then,
	# so its "after" is its last fincore sample (unknown when it has none).
	# shellcheck disable=SC2086
	dst=$(cached_bytes $(for f in $outs; do [ -e "$f" ] && echo "$f"; done) /dev/null 2>/dev/null)
	[ "$kind" = bench ] && dst=nan
	src=nan
	[ "$kind" = copy ] && src=$(cached_bytes "${FILES[@]}")
	printf "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n" "$name" "$(echo "$t1 - $t0" | bc)" \
		"$(echo "$u + $s" | bc)" $((b1 - b0)) "$(peak_read)" "$peak" "$dst" "$src" \
		$((JOBS * size_b)) >>"$W/raw.tsv"
	rm -rf "$O/w" "$O/c"
}

echo "# bench/writes.sh ${1:-ram}: $JOBS files x $SIZE, 1 MiB writes, cap $CAP, $REPS reps, $(uname -r), $(nproc) CPUs"
# Memory freed a while ago is slow to touch again on VMs with free page
# reporting (docs/MACHINES.md): one throw-away buffered write backs the cap first.
sh -c "$(cg_script "$(fio_job --ioengine=psync)")" && rm -rf "$O/w"
for ((r = 1; r <= REPS; r++)); do
	for c in "${CONTENDERS[@]}"; do
		name=${c%%|*}
		rest=${c#*|}
		[[ $name =~ $ONLY ]] || continue
		printf "\rrep %d/%d %-30s" "$r" "$REPS" "$name" >&2
		run_one "$name" "${rest%%|*}" "${rest#*|}"
	done
done
printf "\r%60s\r" "" >&2
[ -n "${OUT:-}" ] && cp "$W/raw.tsv" "$OUT"
python3 - "$W/raw.tsv" "$(getconf CLK_TCK)" "$JOBS" <<'PY'
import statistics as st, sys
rows, hz, jobs = {}, float(sys.argv[2]), int(sys.argv[3])
for line in open(sys.argv[1]):
    n, wall, cpu, busy, cgpeak, peak, dst, src, b = line.split("\t")
    gib = int(b) / 2**30
    f = lambda v: float(v) if v not in ("nan", "") else float("nan")
    rows.setdefault(n, []).append(dict(gbps=int(b) / float(wall) / 1e9, cpu=float(cpu) / gib,
        sys=int(busy) / hz / gib, cg=f(cgpeak) / 2**20, peak=int(peak) / 2**20 / jobs,
        dst=f(dst) / 2**20, src=f(src) / 2**20))
med = lambda n, k: st.median(r[k] for r in rows[n])
def show(v):
    return "   -" if v != v else "%4.0f" % v
print("%-24s %6s %13s %8s %8s %9s %9s %8s %8s" % ("contender", "GB/s", "(min-max)", "proc s/", "sys s/",
      "cg peak", "cache pk", "left dst", "left src"))
print("%-24s %6s %13s %8s %8s %9s %9s %8s %8s" % ("", "median", "", "GiB", "GiB", "MiB", "MiB/file",
      "MiB", "MiB"))
for n in rows:
    g = [r["gbps"] for r in rows[n]]
    print("%-24s %6.2f  (%4.2f-%4.2f) %8.2f %8.2f %9.0f %9s %8s %8s" % (n, med(n, "gbps"), min(g), max(g),
          med(n, "cpu"), med(n, "sys"), med(n, "cg"), show(med(n, "peak")), show(med(n, "dst")),
          show(med(n, "src"))))
def ratio(a, b, k="gbps"):
    if a in rows and b in rows:
        print("%-48s %.2f" % ("%s / %s (%s)" % (a, b, k), med(a, k) / med(b, k)))
print()
ratio("bench-write-auto", "fio-write-direct")
ratio("bench-write-auto", "fio-write-direct", "cpu")
ratio("bench-write-auto", "fio-uring-direct-qd16")
ratio("pagecliff-cp+sync", "cp+sync")
ratio("pagecliff-cp+sync", "dd-oflag-direct+sync")
ratio("pagecliff-cp+sync", "nocache-cp+sync")
PY
