#!/bin/sh
# SPDX-License-Identifier: MIT
# The shim's direct reads side by side (issue 33): one cold file read by
# cat, sha256sum and dd (1 MiB blocks) plainly, under `pagecliff run --mode
# dropbehind` (what the shim did to a cold file before) and under
# `pagecliff run` (auto: O_DIRECT ahead of the program), with `dd
# iflag=direct` and fio (io_uring, O_DIRECT, 8 x 1 MiB in flight) as the
# device's own O_DIRECT pace.  Each run in a fresh memory cgroup capped at
# CAP (the test rig's shim-cgrun), the file evicted first, the ways of a
# reader interleaved, REPS rounds, medians: seconds, MB/s, CPU seconds (user
# + system of the process and its threads, io_uring's workers included), the
# cgroup's peak page cache, what of the file is cached after, and, in one
# more run per way, the fadvise calls made (perf's count of the
# syscalls:sys_enter_fadvise64 tracepoint; "-" without perf) and whether the
# output's sha256 is the plain run's.
#
#   sudo bench/shim-direct.sh [BUILD_DIR]       (default build)
#
# Settings by environment: CAP (256m), FILE_MIB (1024), REPS (3), DIR (where
# the file goes, default /var/tmp: the disk under test).
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
CAP=${CAP:-256m}
NFILES=1
FILE_MIB=${FILE_MIB:-1024}
REPS=${REPS:-3}
. "$root/bench/lib-cgrun.sh"
rig_tools "$build" /usr/bin/time
random_files "$work/src"
f=$work/src/f0
ref=$(sha256sum < "$f" | cut -c1-16)

# cmd JOB WAY: the command line of reader JOB read WAY.
cmd() {
	case $2 in
	plain) pre= ;;
	dropbehind) pre="$PAGECLIFF run --mode dropbehind --" ;;
	auto) pre="$PAGECLIFF run --" ;;
	esac
	case $1 in
	cat) echo "$pre cat $f" ;;
	sha256sum) echo "$pre sha256sum $f" ;;
	dd) echo "$pre dd if=$f bs=1M status=none" ;;
	dd-direct) echo "dd if=$f bs=1M iflag=direct status=none" ;;
	fio) echo "fio --name=read --filename=$f --rw=read --bs=1M --direct=1 --ioengine=io_uring" \
		  "--iodepth=8 --readonly --output=/dev/null" ;;
	esac
}

# one JOB WAY: a timed run; prints "secs cpu peak after".
one() {
	"$PAGESTAT" evict "$f"
	# shellcheck disable=SC2046
	"$CGRUN" "$CAP" "$work/rep" /usr/bin/time -f '%U %S' -o "$work/time" \
		$(cmd "$1" "$2") > /dev/null
	echo "$(awk '/^seconds/ { print $2 }' "$work/rep")" \
	     "$(awk '{ print $1 + $2 }' "$work/time")" \
	     "$(awk '/^peak_cache/ { print $2 }' "$work/rep")" "$("$PAGESTAT" cached "$f")"
}

# check JOB WAY: "fadvise-calls sha256-prefix" of one more run.
check() {
	"$PAGESTAT" evict "$f"
	sum=-
	# shellcheck disable=SC2046
	case $1 in
	cat | dd) sum=$($(cmd "$1" "$2") | sha256sum | cut -c1-16) ;;
	sha256sum) sum=$($(cmd "$1" "$2") | cut -c1-16) ;;
	esac
	"$PAGESTAT" evict "$f"
	n=-
	# shellcheck disable=SC2046
	if perf stat -x, -o "$work/perf" -e syscalls:sys_enter_fadvise64 -- $(cmd "$1" "$2") \
	   > /dev/null 2>&1; then
		n=$(sed -n 's/^\([0-9][0-9]*\),.*/\1/p' "$work/perf")
	fi
	echo "${n:--} $sum"
}

ways() {
	case $1 in
	dd-direct | fio) echo plain ;;
	*) echo plain dropbehind auto ;;
	esac
}

jobs="cat sha256sum dd dd-direct fio"
echo "one file of $FILE_MIB MiB in ${DIR:-/var/tmp}, memory cgroup capped at $CAP; $REPS interleaved runs a way,"
echo "medians; kernel $(uname -r), $(nproc) CPUs; $(date -u '+%Y-%m-%d %H:%M') UTC"
r=1
while [ $r -le "$REPS" ]; do
	for job in $jobs; do
		for way in $(ways $job); do
			one $job $way >> "$work/res.$job.$way"
		done
	done
	r=$((r + 1))
done
want=$ref
printf '\n| reader | how | seconds | MB/s | CPU s | peak page cache MiB | cached after MiB | fadvise calls | same bytes |\n'
printf '|---|---|---|---|---|---|---|---|---|\n'
for job in $jobs; do
	for way in $(ways $job); do
		res=$work/res.$job.$way
		secs=$(col "$res" 1)
		set -- $(check $job $way)
		case $2 in
		-) same=- ;;
		"$want") same=yes ;;
		*) same=no ;;
		esac
		printf '| %s | %s | %s | %.0f | %s | %d | %d | %s | %s |\n' "$job" "$way" "$secs" \
			"$(echo "$FILE_MIB $secs" | awk '{ print $1 * 1048576 / $2 / 1e6 }')" \
			"$(col "$res" 2)" $(($(col "$res" 3) >> 20)) $(($(col "$res" 4) >> 20)) "$1" "$same"
	done
done
