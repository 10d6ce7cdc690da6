#!/bin/bash
# SPDX-License-Identifier: MIT
# The speed benchmark of docs/PERFORMANCE.md: the report's workload scaled
# down (one file per thread, threads = cores, 1 MiB reads, a data set several
# times the memory cap), read by fio 3.33 and by pagecliff in every mode and
# API, interleaved, REPS times, cold cache before every run, every run in the
# same memory cgroup.  Prints one row per contender: median GB/s (min-max),
# CPU seconds per GiB of the process, of the whole system and of kswapd, and
# the peak bytes of the data set in the page cache; then the ratios the
# targets are about, and every contender as a share of the limit measured in
# the same run: the raw block devices under the data set (fio O_DIRECT
# io_uring, read-only, as many readers as the contenders put on each device,
# per device the best of iodepth 8 and 32 from small and from huge pages, summed
# over the devices) and, on the RAM testbed, one thread reading each
# device's backing file out of tmpfs (dd, summed).  Each run starts with the
# data set out of the cache and
# the cgroup's cache full of a filler file (see cold() in bench/lib.sh).
#
# usage: sudo bench/run.sh [ram | DIR]
#   ram  (default) XFS on a loop device over tmpfs, made and removed here
#   DIR  a folder on a real disk (device-bound: CPU per byte is what differs)
# env: REPS (5), SIZE per thread (4g), JOBS (cores, in all), DEVICES (RAM
#      testbed devices, 1; JOBS / DEVICES threads each), CAP memory cap (1g),
#      ONLY (regex of contender names), PAGECLIFF (the binary), OUT (raw TSV),
#      CHART (an SVG bar chart of the medians), BASELINE (another build's
#      pagecliff binary, whose cat is run beside this one's)
set -u
cd "$(dirname "$0")/.." || exit 1

REPS=${REPS:-5}
ONLY=${ONLY:-.}
NAME=run.sh
. bench/lib.sh
command -v fio >/dev/null || die "fio is not installed (apt-get install fio)"
prepare "${1:-ram}"

fio_job() {	# fio options...: one job per file, the same files
	local args=(--readonly --rw=read --bs=1m --size="$SIZE" --output=/dev/null "$@")
	for f in "${FILES[@]}"; do args+=(--name="j${#args[@]}" --filename="$f"); done
	echo fio "${args[*]}"
}

cats() {	# pagecliff cat options: one process per file, in parallel
	local c="" f
	for f in "${FILES[@]}"; do c="$c $PC cat $* $f >/dev/null &"; done
	echo "$c wait"
}

bench_job() {	# mode api
	echo "$PC bench --directory $DIRLIST --numjobs $PER_DEV --size $SIZE --bs 1m --mode $1 --api $2 --runtime 600s --keep --quiet >/dev/null"
}

CONTENDERS=(
	"fio-sync-buffered|$(fio_job --ioengine=sync)"
	"fio-sync-buffered-mmapbuf|$(fio_job --ioengine=sync --iomem=mmap)"
	"fio-sync-direct|$(fio_job --ioengine=sync --direct=1)"
	"fio-uring-direct-qd16|$(fio_job --ioengine=io_uring --direct=1 --iodepth=16)"
)
# BASELINE: another build's pagecliff, read side by side as base-cat-*.
if [ -n "${BASELINE:-}" ]; then
	for m in direct auto; do
		CONTENDERS+=("base-cat-$m-copy|$(PC=$BASELINE cats --mode $m --copy)")
		CONTENDERS+=("base-cat-$m-zerocopy|$(PC=$BASELINE cats --mode $m)")
	done
fi
# The limits, run whatever ONLY says: each block device under DIRS, read-only
# (--readonly), as many bytes as its share of the data set; on the RAM
# testbed, one dd of each tmpfs file behind a loop device (the loop worker's
# copy, on one core).  With several devices each is measured alone (named
# limit-devN-*, limit-backingN-dd), and shares() sums them: the limit of the
# whole set when its devices do not contend.  fio's buffers are small pages,
# and a direct read from them is split at the device's max_segments (512 KiB
# on a loop device, 1016 KiB on the VM's virtio disk), which pagecliff's
# huge-page buffers avoid; so each depth runs again from hugetlb pages,
# registered as pagecliff's are (--iomem=shmhuge --fixedbufs, -huge),
# reserved here for the run and given back at exit.
LIMITS=()
per_dev_b=$((PER_DEV * size_b))
huge=
huge_pages=$((PER_DEV * 18))	# 32 x 1 MiB a reader at iodepth 32, 2 MiB pages, and slack
if reserve_huge $huge_pages; then
	huge=1
else
	echo "bench/run.sh: cannot reserve $huge_pages hugetlb pages (/proc/sys/vm/nr_hugepages): device limit from small pages only" >&2
fi
for ((i = 0; i < ${#DIRS[@]}; i++)); do
	tag=
	[ "${#DIRS[@]}" -gt 1 ] && tag=$i
	limit_dev=$(findmnt -no SOURCE -T "${DIRS[$i]}" 2>/dev/null | head -n1)
	if [ -b "$limit_dev" ] && ! err=$(dd if="$limit_dev" of=/dev/null bs=1M count=1 iflag=direct status=none 2>&1); then
		echo "bench/run.sh: cannot read $limit_dev (${err##*: }): no device limit" >&2
	elif [ -b "$limit_dev" ]; then
		limit_bytes=$per_dev_b
		dev_size=$(blockdev --getsize64 "$limit_dev")
		[ "$dev_size" -lt "$limit_bytes" ] && limit_bytes=$((dev_size >> 20 << 20))
		# as many readers as the contenders put on it, each on its own part
		per_job=$((limit_bytes / PER_DEV >> 20 << 20))
		limit_bytes=$((per_job * PER_DEV))
		for q in 8 32; do
			fio_dev="fio --readonly --name=dev --filename=$limit_dev --direct=1 --ioengine=io_uring --iodepth=$q --rw=read --bs=1m --numjobs=$PER_DEV --size=$per_job --offset_increment=$per_job --group_reporting --output=/dev/null"
			LIMITS+=("limit-dev$tag-uring-qd$q|$fio_dev|$limit_bytes")
			[ -n "$huge" ] && LIMITS+=("limit-dev$tag-uring-qd$q-huge|$fio_dev --iomem=shmhuge --fixedbufs|$limit_bytes")
		done
	else
		echo "bench/run.sh: '${DIRS[$i]}' is on ${limit_dev:-no device}, not a block device: no device limit" >&2
	fi
	if [ -n "${BACKINGS[$i]:-}" ]; then
		LIMITS+=("limit-backing$tag-dd|dd if=${BACKINGS[$i]} of=/dev/null bs=1M count=$((per_dev_b >> 20)) status=none|$per_dev_b")
	fi
done

modes=$("$PC" cat --list-modes) && [ -n "$modes" ] || die "$PC cat --list-modes: exit $?"
for m in $modes; do
	CONTENDERS+=("cat-$m-copy|$(cats --mode $m --copy)")
	CONTENDERS+=("cat-$m-zerocopy|$(cats --mode $m)")
	CONTENDERS+=("bench-$m-copy|$(bench_job $m copy)")
	CONTENDERS+=("bench-$m-zerocopy|$(bench_job $m zerocopy)")
done

# What of the data set is cached.
cached_files() { cached_bytes "${FILES[@]}"; }

# run NAME COMMAND [BYTES]: one cold run in the cgroup; appends a row to
# $W/raw.tsv (BYTES read, the data set's by default).
run_one() {
	local name=$1 cmd=$2 nbytes=${3:-$((JOBS * size_b))} peak=0 c b0 b1 k0 k1 t0 t1 rc
	cold "${FILES[@]}"
	b0=$(busy_ticks) k0=$(kswapd_ticks)
	timed_run "$cmd" cached_files
	b1=$(busy_ticks) k1=$(kswapd_ticks)
	[ $rc = 0 ] || { echo "bench/run.sh: $name failed (exit $rc)" >&2; return; }
	read -r u s <"$W/time"
	printf "%s\t%s\t%s\t%s\t%s\t%s\t%s\n" "$name" "$(echo "$t1 - $t0" | bc)" \
		"$(echo "$u + $s" | bc)" $((b1 - b0)) $((k1 - k0)) "$peak" \
		"$nbytes" >>"$W/raw.tsv"
}

echo "# bench/run.sh ${1:-ram}: $JOBS threads x $SIZE on $DEVICES device(s), 1 MiB reads, cap $CAP, $REPS reps, $(uname -r), $(nproc) CPUs"
for ((r = 1; r <= REPS; r++)); do
	for c in "${LIMITS[@]}"; do
		name=${c%%|*} rest=${c#*|}
		printf "\rrep %d/%d %-30s" "$r" "$REPS" "$name" >&2
		run_one "$name" "${rest%|*}" "${rest##*|}"
	done
	for c in "${CONTENDERS[@]}"; do
		name=${c%%|*}
		[[ $name =~ $ONLY ]] || continue
		printf "\rrep %d/%d %-30s" "$r" "$REPS" "$name" >&2
		run_one "$name" "${c#*|}"
	done
done
printf "\r%60s\r" "" >&2
[ -n "${OUT:-}" ] && cp "$W/raw.tsv" "$OUT"
python3 bench/summarize.py "$W/raw.tsv" "$(getconf CLK_TCK)" ${CHART:+"$CHART"}
shares "$W/raw.tsv"
