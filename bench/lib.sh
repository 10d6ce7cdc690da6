# SPDX-License-Identifier: MIT
# Shared by bench/run.sh, bench/profile.sh and bench/bench-vs-cat.sh
# (sourced, not run): the data set on the RAM testbed (DEVICES loop devices,
# JOBS / DEVICES files on each) or in a folder, the memory cgroup, cold starts and
# the CPU counters, all undone at exit and on signals.  The caller sets NAME
# (for messages and its temporary folder) and may set SIZE, JOBS, CAP and
# PAGECLIFF first; then calls prepare TARGET.

SIZE=${SIZE:-4g}
JOBS=${JOBS:-$(nproc)}
DEVICES=${DEVICES:-1}
CAP=${CAP:-1g}
PC=${PAGECLIFF:-$PWD/build/cli/pagecliff}

die() { echo "bench/$NAME: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || die "needs root: it drops caches and makes a memory cgroup (and the RAM testbed)"
[ -x "$PC" ] || die "no pagecliff at $PC: build first (./setup.sh builds it)"
W=$(mktemp -d "/tmp/pagecliff-$NAME.XXXXXX") || exit 1

CG=
MNTS=()
RUN_PID=
HUGE_ADDED=0
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
	# The loop devices were set up by mount -o loop: each goes with its mount.
	local m
	for m in "${MNTS[@]}"; do
		umount "$m" 2>/dev/null || umount -l "$m"
	done
	[ -n "${FILLER:-}" ] && rm -f "$FILLER"
	[ "$HUGE_ADDED" -gt 0 ] && give_huge "$HUGE_ADDED"
	mountpoint -q "$W/ram" && umount "$W/ram"
	rm -rf "$W"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# give_huge N: N hugetlb pages fewer, whatever others reserved meanwhile
# (a second run's pages stay theirs).
give_huge() {
	local cur
	cur=$(cat /proc/sys/vm/nr_hugepages)
	echo $((cur > $1 ? cur - $1 : 0)) >/proc/sys/vm/nr_hugepages
}

# reserve_huge N: N more default-size hugetlb pages (for fio's
# --iomem=shmhuge), given back at exit; fails, nothing left reserved, when
# the kernel finds fewer free.
reserve_huge() {
	local old got
	[ -w /proc/sys/vm/nr_hugepages ] || return 1
	old=$(cat /proc/sys/vm/nr_hugepages)
	echo $((old + $1)) >/proc/sys/vm/nr_hugepages 2>/dev/null
	got=$(cat /proc/sys/vm/nr_hugepages)
	HUGE_ADDED=$((got > old ? got - old : 0))
	[ "$HUGE_ADDED" -ge "$1" ] && return 0
	[ "$HUGE_ADDED" -gt 0 ] && give_huge "$HUGE_ADDED"
	HUGE_ADDED=0
	return 1
}

to_bytes() { numfmt --from=iec "$(echo "$1" | tr a-z A-Z | sed 's/IB$//; s/B$//')"; }

# DEVICES (1) times XFS on a loop device over a file in one tmpfs of our
# own, JOBS / DEVICES threads' files on each; sets DIRS (one per device),
# DIR (the first: the filler goes there), BACKINGS and BACKING (the first).
make_testbed() {
	local i per_dev=$((JOBS / DEVICES * size_b + cap_b + (512 << 20)))
	mkdir "$W/ram"
	mount -t tmpfs -o size=$((DEVICES * per_dev + (1 << 30))) pagecliff-run "$W/ram" || die "cannot mount tmpfs"
	DIRS=() BACKINGS=()
	for ((i = 0; i < DEVICES; i++)); do
		mkdir "$W/mnt$i"
		truncate -s "$per_dev" "$W/ram/disk$i.img"
		mkfs.xfs -q -f "$W/ram/disk$i.img" >/dev/null || die "mkfs.xfs failed"
		mount -o loop "$W/ram/disk$i.img" "$W/mnt$i" || die "cannot mount $W/ram/disk$i.img on a loop device"
		MNTS+=("$W/mnt$i")
		DIRS+=("$W/mnt$i")
		BACKINGS+=("$W/ram/disk$i.img")
	done
	DIR=${DIRS[0]}
	BACKING=${BACKINGS[0]}
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

# timed_run COMMAND SAMPLE: run command line COMMAND in the cgroup under
# /usr/bin/time (its user and system seconds in $W/time), and every 50 ms
# while it runs SAMPLE, a function that prints bytes cached; sets peak (the
# most SAMPLE printed, from the caller's start value), rc, t0 and t1.
timed_run() {
	local pid c
	t0=$(date +%s.%N)
	/usr/bin/time -f "%U %S" -o "$W/time" sh -c "$(cg_script "$1")" &
	pid=$!
	RUN_PID=$pid
	while kill -0 $pid 2>/dev/null; do
		c=$($2)
		[ "$c" -gt "$peak" ] && peak=$c
		sleep 0.05
	done
	wait $pid
	rc=$?
	RUN_PID=
	t1=$(date +%s.%N)
}

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
	local i d
	size_b=$(to_bytes "$SIZE")
	cap_b=$(to_bytes "$CAP")
	[ $((JOBS % DEVICES)) = 0 ] || die "JOBS ($JOBS) is not a multiple of DEVICES ($DEVICES)"
	if [ "$1" = ram ]; then
		make_testbed
	else
		[ -d "$1" ] || die "'$1' is not a folder"
		[ "$DEVICES" = 1 ] || die "DEVICES is for the RAM testbed; give one DIR"
		DIR=$(cd "$1" && pwd)
		DIRS=("$DIR")
	fi
	DIRLIST=$(IFS=:; echo "${DIRS[*]}")
	PER_DEV=$((JOBS / DEVICES))
	make_cgroup
	"$PC" bench --directory "$DIRLIST" --numjobs "$PER_DEV" --size "$SIZE" --mode direct \
		--runtime 1s --keep --quiet >/dev/null || die "cannot lay out the data set in $DIRLIST"
	FILES=()
	for d in "${DIRS[@]}"; do
		for ((i = 0; i < PER_DEV; i++)); do FILES+=("$d/pagecliff-bench/job$i.dat"); done
	done
	make_filler
}

# shares RAW.tsv: every contender's median GB/s as a share of the limits of
# the same run (bench/run.sh's limit-* rows): the raw devices, each at its
# better iodepth, summed; and the single-thread reads of the RAM testbed's
# backing files, summed.  Devices are limit-dev[N]-uring-qdQ[-huge] (-huge:
# fio's buffers in huge pages), backing files limit-backing[N]-dd (no N: one
# device).
shares() {
	python3 - "$1" <<'EOF'
import re, statistics, sys

runs = {}
for line in open(sys.argv[1]):
    f = line.rstrip("\n").split("\t")
    runs.setdefault(f[0], []).append(int(f[6]) / float(f[1]) / 1e9)
med = {n: statistics.median(v) for n, v in runs.items()}
devs, backs = {}, {}
for n, g in med.items():
    m = re.fullmatch(r"limit-dev(\d*)-uring-qd(\d+)(-huge)?", n)
    if m and g > devs.get(m[1], (0, ""))[0]:
        devs[m[1]] = (g, "qd" + m[2] + (" huge pages" if m[3] else ""))
    m = re.fullmatch(r"limit-backing(\d*)-dd", n)
    if m:
        backs[m[1]] = g
dev = sum(g for g, _ in devs.values()) if devs else None
back = sum(backs.values()) if backs else None
if dev is None and back is None:
    sys.exit(0)
print()
for k in sorted(set(devs) | set(backs), key=lambda k: int(k or 0)):
    if len(devs) > 1 or len(backs) > 1:
        d = f"{devs[k][0]:.2f} GB/s at {devs[k][1]}" if k in devs else "not measured"
        b = f", one read of its backing file {backs[k]:.2f} GB/s" if k in backs else ""
        print(f"device {k}: {d}{b}")
# A share column per limit measured: (its title, the GB/s it divides by).
cols = []
if dev is not None:
    cols.append((f"of the {len(devs)} devices, summed ({dev:.2f} GB/s)" if len(devs) > 1 else
                 f"of the device ({next(iter(devs.values()))[1]}, {dev:.2f} GB/s)", dev))
if back is not None:
    cols.append((f"of one read per backing file, summed ({back:.2f} GB/s)" if len(backs) > 1 else
                 f"of one read of the backing file ({back:.2f} GB/s)", back))
print("| contender | GB/s median |" + "".join(f" share {t} |" for t, _ in cols))
print("|---|---|" + "---|" * len(cols))
for n, g in med.items():
    print(f"| {n} | {g:.2f} |" + "".join(f" {g / s:.2f} |" for _, s in cols))
EOF
}
