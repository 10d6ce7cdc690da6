#!/bin/bash
# SPDX-License-Identifier: MIT
# Where the CPU goes, per read mode: `perf record -g` of the whole system
# while pagecliff cat reads the data set in each mode on the RAM testbed (or
# DIR), cold, in a memory cgroup; prints each mode's top kernel and user
# symbols (self time) and the share of samples under direct reclaim,
# kswapd, the copy to user space and page allocation.
#
# usage: sudo bench/profile.sh [ram | DIR]
# env: SIZE per thread (4g), JOBS (cores), CAP (1g), MODES, TOP (12),
#      PAGECLIFF, KEEP (folder to keep perf.data files in)
set -u
cd "$(dirname "$0")/.." || exit 1

MODES=${MODES:-buffered dontcache dropbehind direct}
TOP=${TOP:-12}
NAME=profile.sh
. bench/lib.sh
command -v perf >/dev/null || die "perf is not installed (apt-get install linux-perf)"
prepare "${1:-ram}"

cats() {
	local c="" f
	for f in "${FILES[@]}"; do
		c="$c $PC cat --copy --mode $1 $f >/dev/null &"
	done
	echo "$c wait"
}

# breakdown SCRIPT: who the samples belong to (the readers, the loop
# device's or other kernel workers, kswapd, idle) and, of the readers', the
# share spent under reclaim, copying to user space, allocating pages and in
# io_uring.  A sample counts once per category its call chain touches.
breakdown() {
	awk '
	function flush() {
		if (!n) return
		total++
		if (comm ~ /^pagecliff/) {
			reader++
			if (rec) r_rec++
			if (cpy) r_cpy++
			if (alc) r_alc++
			if (uri) r_uri++
		} else if (comm ~ /^kswapd/) ksw++
		else if (comm ~ /^kworker|^loop/) kw++
		else if (comm ~ /^swapper/) idle++
		n = rec = cpy = alc = uri = 0
	}
	/^$/ { flush(); next }
	{
		if (!n) comm = $1
		n++
		if (/shrink_node|shrink_lruvec|try_to_free/) rec = 1
		if (/copy_page_to_iter|_copy_to_user|copy_to_user/) cpy = 1
		if (/__alloc_pages|alloc_pages_noprof|folio_alloc/) alc = 1
		if (/io_uring|io_issue_sqe/) uri = 1
	}
	function pct(a, b) { return b ? 100 * a / b : 0 }
	END {
		flush()
		printf "samples: readers %.0f%%, kernel workers (loop) %.0f%%, kswapd %.0f%%, idle %.0f%%\n",
			pct(reader, total), pct(kw, total), pct(ksw, total), pct(idle, total)
		printf "of the readers: reclaim %.1f%%, copy to user %.1f%%, page allocation %.1f%%, io_uring %.1f%%\n",
			pct(r_rec, reader), pct(r_cpy, reader), pct(r_alc, reader), pct(r_uri, reader)
	}' "$1"
}

echo "# bench/profile.sh ${1:-ram}: $JOBS x $SIZE, pagecliff cat --copy, cap $CAP, $(uname -r)"
for m in $MODES; do
	cold "${FILES[@]}"
	perf record -q -g -a -F 999 -o "$W/perf.$m" -- sh -c "$(cg_script "$(cats "$m")")" 2>/dev/null ||
		die "perf record failed for $m"
	perf script -i "$W/perf.$m" -F comm,ip,sym 2>/dev/null >"$W/script.$m"
	echo
	echo "## $m"
	breakdown "$W/script.$m"
	perf report -i "$W/perf.$m" --no-children --sort sym --stdio 2>/dev/null |
		grep -E '^ +[0-9.]+%' | head -n "$TOP"
	[ -n "${KEEP:-}" ] && cp "$W/perf.$m" "$W/script.$m" "$KEEP/"
done
