# SPDX-License-Identifier: MIT
# Shared by bench/run.sh and bench/profile.sh (sourced, not run): the data
# set on the RAM testbed or in a folder, the memory cgroup, cold starts and
# the CPU counters, all undone at exit and on signals.  The caller sets NAME
# (for messages and its temporary folder) and may set SIZE, JOBS, CAP and
# PAGECLIFF first; then calls prepare TARGET.

SIZE=${SIZE:-4g}
JOBS=${JOBS:-$(nproc)}
CAP=${CAP:-1g}
PC=${PAGECLIFF:-$PWD/build/cli/pagecliff}

die() { echo "bench/$NAME: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || die "needs root: it drops caches and makes a memory cgroup (and the RAM testbed)"
[ -x "$PC" ] || die "no pagecliff at $PC: build first (./setup.sh builds it)"
W=$(mktemp -d "/tmp/pagecliff-$NAME.XXXXXX") || exit 1

CG=
MNT=
RUN_PID=
cleanup() {
	# A contender still running keeps the mount busy: stop it first.
	[ -n "$RUN_PID" ] && kill "$RUN_PID" 2>/dev/null && wait "$RUN_PID" 2>/dev/null
	[ -n "$CG" ] && [ -d "$CG" ] && while read -r p; do
		kill "$p" 2>/dev/null
	done <"$CG/cgroup.procs"
	sleep 0.2
	[ -n "$CG" ] && [ -d "$CG" ] && {
		cat "$CG/cgroup.procs" 2>/dev/null | while read -r p; do
			echo "$p" >"$(dirname "$CG")/cgroup.procs" 2>/dev/null
		done
		rmdir "$CG" 2>/dev/null
	}
	# The loop device was set up by mount -o loop: it goes with the mount.
	if [ -n "$MNT" ]; then
		umount "$MNT" 2>/dev/null || umount -l "$MNT"
	fi
	[ -n "${FILLER:-}" ] && rm -f "$FILLER"
	mountpoint -q "$W/ram" && umount "$W/ram"
	rm -rf "$W"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

to_bytes() { numfmt --from=iec "$(echo "$1" | tr a-z A-Z | sed 's/IB$//; s/B$//')"; }

# XFS on a loop device over a file in a tmpfs of our own; sets DIR.
make_testbed() {
	mkdir "$W/ram" "$W/mnt"
	mount -t tmpfs -o size=$((JOBS * size_b + cap_b + (1 << 30))) pagecliff-run "$W/ram" || die "cannot mount tmpfs"
	truncate -s $((JOBS * size_b + cap_b + (512 << 20))) "$W/ram/disk.img"
	mkfs.xfs -q -f "$W/ram/disk.img" >/dev/null || die "mkfs.xfs failed"
	mount -o loop "$W/ram/disk.img" "$W/mnt" || die "cannot mount $W/ram/disk.img on a loop device"
	MNT=$W/mnt
	DIR=$MNT
	BACKING=$W/ram/disk.img
}

# A memory cgroup of cap_b bytes (v2 where it has the memory controller,
# else v1); sets CG and CACHE_KEY (its page-cache line in memory.stat).
make_cgroup() {
	if grep -qw memory /sys/fs/cgroup/cgroup.controllers 2>/dev/null; then
		CG=/sys/fs/cgroup/pagecliff-run-$$
		mkdir "$CG" && echo "$cap_b" >"$CG/memory.max" || die "cannot make cgroup $CG"
		CACHE_KEY=file
	else
		CG=/sys/fs/cgroup/memory/pagecliff-run-$$
		mkdir "$CG" && echo "$cap_b" >"$CG/memory.limit_in_bytes" || die "cannot make cgroup $CG"
		CACHE_KEY=cache
	fi
}

# The script for `sh -c` that runs command line $1 inside the cgroup.
cg_script() { echo "echo \$\$ >$CG/cgroup.procs && exec sh -c '$1'"; }

# Bytes of files "$@" in the page cache.
cached_bytes() { fincore --bytes --noheadings --output RES "$@" | awk '{t += $1} END {print t + 0}'; }

# The filler: cap_b bytes of our own next to the data set, read into the
# cgroup before every run so that each run starts with its files out of the
# cache and the cgroup's cache full of other pages, the steady state of a
# busy host.  It also keeps runs off memory freed long ago, whose first touch
# is slow under the VM's free page reporting (docs/PERFORMANCE.md).
make_filler() {
	FILLER=$(mktemp "$DIR/pagecliff-filler.XXXXXX") || die "cannot make a filler file in $DIR"
	head -c "$cap_b" /dev/urandom >"$FILLER" || die "cannot write $FILLER"
}

# Evict the data files "$@" and the filler, check the files are out, and
# read the filler once into the cgroup: every run starts from the same state.
cold() {
	local left
	for f in "$@" "$FILLER"; do dd if="$f" iflag=nocache count=0 status=none; done
	left=$(cached_bytes "$@")
	[ "$left" -le $((cap_b / 100)) ] || echo "bench: warning: $left bytes of the data set still cached" >&2
	sh -c "$(cg_script "cat $FILLER >/dev/null")"
}

busy_ticks() { awk '/^cpu /{print $2+$3+$4+$7+$8+$9; exit}' /proc/stat; }
kswapd_ticks() {
	local t=0 p
	for p in $(pgrep -x 'kswapd[0-9]*'); do
		t=$((t + $(awk '{print $14+$15}' "/proc/$p/stat")))
	done
	echo $t
}


# prepare ram|DIR: the testbed or the folder, the cgroup, the data set laid
# out once by bench (non-zero data, its own files: FILES), and the filler.
prepare() {
	size_b=$(to_bytes "$SIZE")
	cap_b=$(to_bytes "$CAP")
	if [ "$1" = ram ]; then
		make_testbed
	else
		[ -d "$1" ] || die "'$1' is not a folder"
		DIR=$(cd "$1" && pwd)
	fi
	make_cgroup
	"$PC" bench --directory "$DIR" --numjobs "$JOBS" --size "$SIZE" --mode direct \
		--runtime 1s --keep --quiet >/dev/null || die "cannot lay out the data set in $DIR"
	FILES=()
	for ((i = 0; i < JOBS; i++)); do FILES+=("$DIR/pagecliff-bench/job$i.dat"); done
	make_filler
}

# shares RAW.tsv: every contender's median GB/s as a share of the limits of
# the same run (bench/run.sh's limit-* rows): the raw device at its better
# iodepth, and the single-thread read of the RAM testbed's backing file.
shares() {
	python3 - "$1" <<'EOF'
import statistics, sys

runs = {}
for line in open(sys.argv[1]):
    f = line.rstrip("\n").split("\t")
    runs.setdefault(f[0], []).append(int(f[6]) / float(f[1]) / 1e9)
med = {n: statistics.median(v) for n, v in runs.items()}
devs = {n: g for n, g in med.items() if n.startswith("limit-dev-")}
dev = max(devs.values()) if devs else None
back = med.get("limit-backing-dd")
if dev is None and back is None:
    sys.exit(0)
print()
head = "| contender | GB/s median |"
rule = "|---|---|"
if dev is not None:
    best = max(devs, key=devs.get)[len("limit-dev-"):]
    head += f" share of the device ({best}, {dev:.2f} GB/s) |"
    rule += "---|"
if back is not None:
    head += f" share of one read of the backing file ({back:.2f} GB/s) |"
    rule += "---|"
print(head)
print(rule)
for n, g in med.items():
    row = f"| {n} | {g:.2f} |"
    if dev is not None:
        row += f" {g / dev:.2f} |"
    if back is not None:
        row += f" {g / back:.2f} |"
    print(row)
EOF
}
