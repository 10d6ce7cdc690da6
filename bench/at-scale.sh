#!/bin/bash
# SPDX-License-Identifier: MIT
# The report's comparison on a many-core machine, from a self-contained build:
# buffered, direct, auto and dontcache, 4 threads per device, one file each,
# 1 MiB reads, a data set 4 times a memory cgroup's cap.  The devices are
# bench's RAM testbed with several devices (--testbed ram:NxSIZE: XFS, or
# ext4 without mkfs.xfs, each on its own loop device over one tmpfs), one
# device per 8 CPUs, at most 16.  Needs only a static pagecliff, bash,
# coreutils and mkfs.xfs or mkfs.ext4: nothing is installed.  bench undoes
# everything it made at exit, on errors and signals too.
#
# Build and carry (on the build machine; liburing-dev has liburing.a):
#   meson setup build-static -Ddefault_library=static -Dprefer_static=true \
#         -Dc_link_args=-static && ninja -C build-static cli/pagecliff
#   scp bench/at-scale.sh build-static/cli/pagecliff HOST:
# then on HOST:  sudo ./at-scale.sh OUTDIR
#
# Writes into OUTDIR (default ./at-scale-HOST-DATE): report.json (bench's
# report), timeline.csv (every interval), chart.svg, machine.txt, bench.log
# and the command.  Finishes inside 8 minutes: each mode is cut at AT_SCALE_TIME and
# the whole run at AT_SCALE_LIMIT (bench reports what it measured so far).
# env: PAGECLIFF (default ./pagecliff beside the script, else the build's),
#      AT_SCALE_DEVICES (CPUs / 8, 1-16), AT_SCALE_SIZE per thread (4g, cut to
#      fit memory), AT_SCALE_TIME per mode (75s), AT_SCALE_LIMIT (450 s),
#      AT_SCALE_TIME_BASED (non-empty: each mode reads its files again until
#      AT_SCALE_TIME ends, bench's --time_based).
set -u

die() { echo "bench/at-scale.sh: $*" >&2; exit 1; }
here=$(cd "$(dirname "$0")" && pwd)
PC=${PAGECLIFF:-}
if [ -z "$PC" ]; then
	for c in "$here/pagecliff" "$here/../build-static/cli/pagecliff" "$here/../build/cli/pagecliff"; do
		[ -x "$c" ] && { PC=$c; break; }
	done
fi
[ -n "$PC" ] && [ -x "$PC" ] || die "no pagecliff beside the script: carry a static build (see its header)"
[ "$(id -u)" = 0 ] || die "needs root: bench makes loop devices, mounts and a memory cgroup"
[ -e /dev/loop-control ] || [ -d /sys/module/loop ] || die "no loop devices: the loop module is not loaded (modprobe loop)"
MKFS=
command -v mkfs.xfs >/dev/null && MKFS="mkfs.xfs -q -f"
[ -z "$MKFS" ] && command -v mkfs.ext4 >/dev/null && MKFS="mkfs.ext4 -q -F -E nodiscard"
[ -n "$MKFS" ] || die "neither mkfs.xfs nor mkfs.ext4 is installed"

to_bytes() { numfmt --from=iec "$(echo "$1" | tr a-z A-Z | sed 's/IB$//; s/B$//')"; }
cpus=$(nproc)
ndev=${AT_SCALE_DEVICES:-$((cpus / 8))}
[ "$ndev" -lt 1 ] && ndev=1
[ "$ndev" -gt 16 ] && ndev=16
threads=$((ndev * 4))
size_b=$(to_bytes "${AT_SCALE_SIZE:-4g}") || die "bad AT_SCALE_SIZE '${AT_SCALE_SIZE:-}'"
avail=$(($(awk '/^MemAvailable:/ {print $2}' /proc/meminfo) << 10))
# The data set lives in tmpfs: at most half of what is available, the cap a
# quarter of the data set, and room for the cap and a filesystem's slack.
fit=$(((avail / 2) / threads >> 20 << 20))
[ "$size_b" -gt "$fit" ] && size_b=$fit
[ "$size_b" -ge $((64 << 20)) ] || die "too little memory: $((avail >> 20)) MiB available, $threads threads need 64 MiB each at least"
data_b=$((threads * size_b))
cap_b=$((data_b / 4 >> 20 << 20))
# The cap holds bench's own buffers too: per thread a 1 MiB read buffer, a
# page for --mem-align and direct's 8 x 1 MiB in flight, plus 16 MiB, twice
# over (bench's --mem-limit rule in pagecliff-bench(1)); so the page cache is
# always what it squeezes.
need_b=$((2 * (threads * ((9 << 20) + 4096) + (16 << 20))))
[ "$cap_b" -ge "$need_b" ] || cap_b=$need_b
[ "$cap_b" -lt "$data_b" ] || die "too little data for a cap that holds bench's buffers: $((data_b >> 20)) MiB of data, cap $((cap_b >> 20)) MiB; set AT_SCALE_SIZE larger"
mode_time=${AT_SCALE_TIME:-75s}
limit=${AT_SCALE_LIMIT:-450}

OUTDIR=${1:-$PWD/at-scale-$(uname -n)-$(date +%Y%m%d-%H%M%S)}
mkdir -p "$OUTDIR" || die "cannot make '$OUTDIR'"

# Each device holds its 4 files, bench's 1/16 of slack and 128 MiB for the
# file system (bench's own rule for --testbed), plus 64 MiB.
per_dev=$(((4 * size_b + 4 * size_b / 16 + (192 << 20)) >> 20 << 20))

{
	echo "host: $(uname -n), $(uname -sr), $cpus CPUs, $(awk '/^MemTotal:/ {print int($2 / 1024)}' /proc/meminfo) MiB"
	echo "cpu: $(awk -F': ' '/^model name/ {print $2; exit}' /proc/cpuinfo)"
	echo "devices: $ndev x ${MKFS%% *} on a loop device over tmpfs (bench --testbed ram:${ndev}x$((per_dev >> 20))m), 4 threads each"
	echo "data: $threads x $((size_b >> 20)) MiB = $((data_b >> 20)) MiB, memory cap $((cap_b >> 20)) MiB"
	echo "pagecliff: $PC ($("$PC" --version 2>/dev/null | head -n1))"
} >"$OUTDIR/machine.txt"

# bench builds the devices, lays out the data set outside its memory cgroup
# (the loop devices' writes into tmpfs are not charged to the cap), joins
# the cgroup for the phases, and undoes all of it on exit and on signals.
cmd=("$PC" bench --testbed "ram:${ndev}x$((per_dev >> 20))m" --numjobs 4 --size "$size_b"
	--bs 1m --mem-limit "$cap_b" --mode buffered,direct,auto,dontcache --runtime "$mode_time"
	--output-format json -o "$OUTDIR/report.json" --timeline "$OUTDIR/timeline.csv"
	--plot "$OUTDIR/chart.svg" --quiet)
[ -n "${AT_SCALE_TIME_BASED:-}" ] && cmd+=(--time_based)
echo "${cmd[*]}" >"$OUTDIR/command.txt"
cat "$OUTDIR/machine.txt"
# bench reports what it measured when interrupted (exit 130); a signal to
# this script goes on to bench, which tears down before it exits.
timeout -s INT -k 30 "$limit" "${cmd[@]}" 2>"$OUTDIR/bench.log" &
pid=$!
signalled=
trap 'signalled=1; kill -INT $pid 2>/dev/null' INT TERM
wait $pid
rc=$?
# a trapped signal ends the first wait early: wait for bench's teardown
while kill -0 $pid 2>/dev/null; do wait $pid; rc=$?; done
trap - INT TERM
grep -v '^removed what a killed run left' "$OUTDIR/bench.log" >&2
[ $rc = 0 ] || [ $rc = 130 ] || die "bench failed (exit $rc); see $OUTDIR/bench.log"
[ -n "$signalled" ] && { echo "bench/at-scale.sh: interrupted; the report in $OUTDIR has the modes measured so far" >&2; exit 130; }
[ $rc = 130 ] && echo "bench/at-scale.sh: cut at ${limit}s; the report has the modes measured so far" >&2
echo "wrote $OUTDIR: report.json timeline.csv chart.svg machine.txt command.txt bench.log"
