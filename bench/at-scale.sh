#!/bin/bash
# SPDX-License-Identifier: MIT
# The report's comparison on a many-core machine, from a self-contained build:
# buffered, direct, auto and dontcache, 4 threads per device, one file each,
# 1 MiB reads, a data set 4 times a memory cgroup's cap.  The devices are XFS
# (ext4 without mkfs.xfs) on loop devices over a tmpfs of the script's own,
# one device per 8 CPUs, at most 16.  Needs only a static pagecliff, bash,
# util-linux (losetup, mount) and mkfs.xfs or mkfs.ext4: nothing is installed.
# Everything it made is undone at exit, on errors and signals too.
#
# Build and carry (on the build machine; liburing-dev has liburing.a):
#   meson setup build-static -Ddefault_library=static -Dprefer_static=true \
#         -Dc_link_args=-static && ninja -C build-static cli/pagecliff
#   scp bench/at-scale.sh build-static/cli/pagecliff HOST:
# then on HOST:  sudo ./at-scale.sh OUTDIR
#
# Writes into OUTDIR (default ./at-scale-HOST-DATE): report.json (bench's
# report), timeline.csv (every interval), chart.svg, machine.txt and the
# command.  Finishes inside 8 minutes: each mode is cut at AT_SCALE_TIME and
# the whole run at AT_SCALE_LIMIT (bench reports what it measured so far).
# env: PAGECLIFF (default ./pagecliff beside the script, else the build's),
#      AT_SCALE_DEVICES (CPUs / 8, 1-16), AT_SCALE_SIZE per thread (4g, cut to
#      fit memory), AT_SCALE_TIME per mode (75s), AT_SCALE_LIMIT (450 s).
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
[ "$(id -u)" = 0 ] || die "needs root: it makes loop devices, mounts and a memory cgroup"
[ -e /dev/loop-control ] || [ -d /sys/module/loop ] || die "no loop devices: the loop module is not loaded (modprobe loop)"
MKFS=
command -v mkfs.xfs >/dev/null && MKFS="mkfs.xfs -q -f"
[ -z "$MKFS" ] && command -v mkfs.ext4 >/dev/null && MKFS="mkfs.ext4 -q -F -E nodiscard"
[ -n "$MKFS" ] || die "neither mkfs.xfs nor mkfs.ext4 is installed"
command -v losetup >/dev/null || die "losetup (util-linux) is not installed"

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
# The cap holds bench's own buffers too: per thread a 1 MiB read buffer and
# direct's 8 x 1 MiB in flight, plus 16 MiB, twice over (bench's --mem-limit
# rule in pagecliff-bench(1)); so the page cache is always what it squeezes.
need_b=$((2 * (threads * (9 << 20) + (16 << 20))))
[ "$cap_b" -ge "$need_b" ] || cap_b=$need_b
[ "$cap_b" -lt "$data_b" ] || die "too little data for a cap that holds bench's buffers: $((data_b >> 20)) MiB of data, cap $((cap_b >> 20)) MiB; set AT_SCALE_SIZE larger"
mode_time=${AT_SCALE_TIME:-75s}
limit=${AT_SCALE_LIMIT:-450}

OUTDIR=${1:-$PWD/at-scale-$(uname -n)-$(date +%Y%m%d-%H%M%S)}
mkdir -p "$OUTDIR" || die "cannot make '$OUTDIR'"
W=$(mktemp -d /tmp/pagecliff-at-scale.XXXXXX) || die "cannot make a folder in /tmp"

LOOPS=()
MOUNTS=()
CG=
cleanup() {
	local m l p
	if [ -n "$CG" ] && [ -d "$CG" ]; then
		while read -r p; do kill "$p" 2>/dev/null; done <"$CG/cgroup.procs"
		sleep 0.5
		rmdir "$CG" 2>/dev/null
	fi
	for m in "${MOUNTS[@]}"; do umount "$m" 2>/dev/null || umount -l "$m"; done
	for l in "${LOOPS[@]}"; do losetup -d "$l" 2>/dev/null; done
	mountpoint -q "$W/ram" && umount "$W/ram"
	rm -rf "$W"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# One tmpfs; per device a file in it, a loop device, a file system, a mount.
per_dev=$((4 * size_b + (256 << 20)))
mkdir "$W/ram" || exit 1
mount -t tmpfs -o size=$((ndev * per_dev + (64 << 20))) pagecliff-at-scale "$W/ram" ||
	die "cannot mount a tmpfs"
dirs=
for ((i = 0; i < ndev; i++)); do
	truncate -s "$per_dev" "$W/ram/dev$i.img" || die "cannot make $W/ram/dev$i.img"
	l=$(losetup --find --show "$W/ram/dev$i.img") || die "cannot set up a loop device"
	LOOPS+=("$l")
	$MKFS "$l" >/dev/null || die "$MKFS $l failed"
	mkdir "$W/mnt$i" && mount "$l" "$W/mnt$i" || die "cannot mount $l"
	MOUNTS+=("$W/mnt$i")
	dirs=${dirs:+$dirs:}$W/mnt$i
done

{
	echo "host: $(uname -n), $(uname -sr), $cpus CPUs, $(awk '/^MemTotal:/ {print int($2 / 1024)}' /proc/meminfo) MiB"
	echo "cpu: $(awk -F': ' '/^model name/ {print $2; exit}' /proc/cpuinfo)"
	echo "devices: $ndev x ${MKFS%% *} on a loop device over tmpfs, 4 threads each"
	echo "data: $threads x $((size_b >> 20)) MiB = $((data_b >> 20)) MiB, memory cap $((cap_b >> 20)) MiB"
	echo "pagecliff: $PC ($("$PC" --version 2>/dev/null | head -n1))"
} >"$OUTDIR/machine.txt"

# The cap: a memory cgroup of our own (v2 with the memory controller, else
# v1), entered only for the measurement: the data set is laid out first,
# outside it, or the loop devices' writes into tmpfs would be charged to it.
if grep -qw memory /sys/fs/cgroup/cgroup.controllers 2>/dev/null; then
	CG=/sys/fs/cgroup/pagecliff-at-scale-$$
	mkdir "$CG" && echo "$cap_b" >"$CG/memory.max" || die "cannot make memory cgroup $CG"
elif [ -d /sys/fs/cgroup/memory ]; then
	CG=/sys/fs/cgroup/memory/pagecliff-at-scale-$$
	mkdir "$CG" && echo "$cap_b" >"$CG/memory.limit_in_bytes" || die "cannot make memory cgroup $CG"
else
	die "no memory cgroup controller (neither cgroup v2 memory nor v1)"
fi
"$PC" bench --directory "$dirs" --numjobs 4 --size "$size_b" --mode direct --runtime 1s \
	--keep --quiet >/dev/null || die "cannot lay out the data set"

cmd=("$PC" bench --directory "$dirs" --numjobs 4 --size "$size_b" --bs 1m
	--mode buffered,direct,auto,dontcache --keep --runtime "$mode_time"
	--output-format json -o "$OUTDIR/report.json" --timeline "$OUTDIR/timeline.csv"
	--plot "$OUTDIR/chart.svg" --quiet)
echo "${cmd[*]}" >"$OUTDIR/command.txt"
cat "$OUTDIR/machine.txt"
# bench reports what it measured when interrupted (exit 130).
(echo $BASHPID >"$CG/cgroup.procs" && exec timeout -s INT -k 30 "$limit" "${cmd[@]}")
rc=$?
[ $rc = 0 ] || [ $rc = 130 ] || die "bench failed (exit $rc); see $OUTDIR"
[ $rc = 130 ] && echo "bench/at-scale.sh: cut at ${limit}s; the report has the modes measured so far" >&2
echo "wrote $OUTDIR: report.json timeline.csv chart.svg machine.txt command.txt"
