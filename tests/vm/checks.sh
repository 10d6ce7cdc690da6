#!/bin/bash
# SPDX-License-Identifier: MIT
# What runs inside a rig guest (tests/vm/suite.sh boots it): the library's
# strategies and exact bytes, the write streams, a stream under a cgroup v2
# memory.max, the shim's readers and writers (residency from mincore where
# the kernel has no cachestat; a cold file read direct, sampled while it
# reads, its fadvise calls counted by tracefs), an overlayfs writer, doctor,
# bench's v2 cap and watch, on small files: the guest runs under software
# emulation.
# TAP output, one line per check; exit 1 when any failed.
#   tests/vm/checks.sh BUILDDIR
set -u
build=${1:?usage: tests/vm/checks.sh BUILDDIR}
pc=$build/cli/pagecliff
work=$(mktemp -d /tmp/pc-vm-XXXXXX) || exit 1
n=0 failed=0
kver=$(uname -r)
kmaj=$(uname -r | cut -d. -f1) kmin=$(uname -r | cut -d. -f2)
kernel_at_least() { [ "$kmaj" -gt "$1" ] || { [ "$kmaj" = "$1" ] && [ "$kmin" -ge "$2" ]; }; }

ok() { n=$((n + 1)); echo "ok $n - $*"; }
not_ok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $*"; }
check() {	# check NAME COMMAND...: ok when COMMAND exits 0; says how long it took
	local name=$1 t0=$SECONDS
	shift
	if "$@"; then ok "$name"; else not_ok "$name"; fi
	echo "# $((SECONDS - t0)) s"
}

# Pages of FILE in the page cache, from mincore(2) through fincore(1).
cached_mib() {
	fincore -b -n -o RES "$1" | awk '{ printf "%d\n", $1 / 1048576 }'
}

drop_caches() { sync; echo 3 >/proc/sys/vm/drop_caches; }

# A file of SIZE MiB of random bytes.
make_file() { head -c "$(($2 << 20))" /dev/urandom >"$1"; }

# cat_mode DIR MODE: the bytes come back exact, a cold file stays out of the
# cache except in buffered mode, and --stats names a strategy and why.
cat_mode() {
	local dir=$1 mode=$2 f=$1/src out stats

	out=$work/out
	drop_caches
	"$pc" cat --mode "$mode" --stats "$f" >"$out" 2>"$work/stats" || { cat "$work/stats"; return 1; }
	stats=$(cat "$work/stats")
	echo "# $mode: $stats"
	# the cache first: cmp reads the file into it
	case $mode in
	buffered) ;;
	*) [ "$(cached_mib "$f")" -le 8 ] || { echo "# $mode left $(cached_mib "$f") MiB cached"; return 1; } ;;
	esac
	cmp -s "$f" "$out" || { echo "# $mode: bytes differ"; return 1; }
	grep -q "strategy [a-z]* (" <<<"$stats"
}

# dontcache on a kernel without RWF_DONTCACHE falls back and says why.
dontcache_fallback() {
	local stats

	"$pc" cat --mode dontcache --stats "$1" 2>&1 >/dev/null | tee "$work/dc" | sed 's/^/# /'
	stats=$(cat "$work/dc")
	if kernel_at_least 6 14; then
		grep -q "strategy dontcache" <<<"$stats"
	else
		! grep -q "strategy dontcache" <<<"$stats" && grep -qi "dontcache" <<<"$stats"
	fi
}

# auto on a warm file: the reason names RWF_DONTCACHE when it is missing,
# and cachestat when residency had to come from mincore.
auto_reason() {
	local f=$1 stats

	cat "$f" >/dev/null
	"$pc" cat --mode auto --stats "$f" 2>&1 >/dev/null | tee "$work/auto" | sed 's/^/# /'
	stats=$(cat "$work/auto")
	if ! kernel_at_least 6 14; then
		grep -q "RWF_DONTCACHE" <<<"$stats" || { echo "# reason does not name RWF_DONTCACHE"; return 1; }
	fi
	if ! kernel_at_least 6 5; then
		grep -q "cachestat" <<<"$stats" || { echo "# reason does not name cachestat"; return 1; }
	fi
	return 0
}

cp_mode() {
	local dir=$1 mode=$2

	drop_caches
	rm -f "$dir/copy"
	"$pc" cp --mode "$mode" --stats "$dir/src" "$dir/copy" 2>&1 | sed 's/^/# /'
	[ "$mode" = buffered ] || [ "$(cached_mib "$dir/copy")" -le 8 ] ||
		{ echo "# $mode: $(cached_mib "$dir/copy") MiB of the copy cached"; return 1; }
	cmp -s "$dir/src" "$dir/copy" || { echo "# $mode: copy differs"; return 1; }
}

# A stream in a cgroup v2 group with memory.max: no OOM kill, exact bytes,
# and the group's peak within its limit.
capped_stream() {
	local cg=/sys/fs/cgroup/pc-vm-$$ f=$1 mode=$2 rc

	mkdir "$cg" || return 1
	echo 96M >"$cg/memory.max"
	drop_caches
	(echo $BASHPID >"$cg/cgroup.procs" && exec "$pc" cat --mode "$mode" "$f") >"$work/out"
	rc=$?
	echo "# $mode in memory.max 96M: exit $rc, peak $(($(cat "$cg/memory.peak" 2>/dev/null || echo 0) >> 20)) MiB, oom_kill $(awk '$1 == "oom_kill" {print $2}' "$cg/memory.events")"
	rmdir "$cg"
	[ $rc = 0 ] && cmp -s "$f" "$work/out"
}

shim_reader() {
	local f=$1

	drop_caches
	"$pc" run --stats -- cat "$f" 2>"$work/stats" >"$work/out" || return 1
	sed 's/^/# /' "$work/stats"
	[ "$(cached_mib "$f")" -le 72 ] ||
		{ echo "# shim reader left $(cached_mib "$f") MiB cached"; return 1; }
	cmp -s "$f" "$work/out"
}

shim_writer() {
	local f=$1 dst=$2

	drop_caches
	rm -f "$dst"
	"$pc" run --stats -- dd if="$f" of="$dst" bs=64k status=none 2>"$work/stats" || return 1
	sed 's/^/# /' "$work/stats"
	[ "$(cached_mib "$dst")" -le 72 ] ||
		{ echo "# shim writer left $(cached_mib "$dst") MiB of $dst cached"; return 1; }
	drop_caches
	cmp -s "$f" "$dst"
}

# fadvise64 calls of one process tree as the kernel sees them: a tracefs
# instance, its own ring, that traces the syscall's entry for the pid that
# runs COMMAND and every task it forks (event-fork), set before it execs.
#   fadvise_traced INSTANCE COMMAND...
fadvise_traced() {
	local t=$1
	shift
	bash -c 'echo $$ >"$1/set_event_pid" && echo 1 >"$1/options/event-fork" &&
		echo 1 >"$1/events/syscalls/sys_enter_fadvise64/enable" && shift && exec "$@"' sh "$t" "$@"
}

# read_sampled FILE READER [run [RUN-ARG...]]: READER (sha256sum, or cat
# into a pipe to sha256sum) reads FILE cold, plain or under `pagecliff run
# RUN-ARG...`.  While it reads, fincore samples the file's page
# cache.  Leaves the hash in $work/sum, the advice of each fadvise64 call in
# $work/fadv (one a line), the samples' count and largest residency in bytes
# in $work/samples, run's stats in $work/stats.
read_sampled() {
	local f=$1 reader=$2 t=/sys/kernel/tracing/instances/pc-vm-$$ pid res max=0 samples=0 rc
	shift 2
	local run=()

	[ "${1:-}" = run ] && run=("$pc" run "${@:2}" --stats --)
	rm -f "$work/stats"
	mkdir "$t" || return 1
	drop_caches
	(
		set -o pipefail
		case $reader in
		sha256sum) fadvise_traced "$t" "${run[@]}" sha256sum "$f" ;;
		cat) fadvise_traced "$t" "${run[@]}" cat "$f" | sha256sum ;;
		esac
	) >"$work/sum" 2>"$work/stats" &
	pid=$!
	while kill -0 $pid 2>/dev/null; do
		res=$(fincore -b -n -o RES "$f") || break
		samples=$((samples + 1))
		[ "$res" -gt $max ] && max=$res
	done
	wait $pid
	rc=$?
	grep -o 'sys_fadvise64(.*advice: [0-9a-fx]*' "$t/trace" | sed 's/.*advice: //' |
		while read -r a; do echo $((a)); done >"$work/fadv"
	rmdir "$t" || echo "# tracefs instance $t left behind"
	echo "$samples $max" >"$work/samples"
	return $rc
}

# A cold file read by an unmodified program under `pagecliff run` (issue 33):
# the shim reads it O_DIRECT ahead of the program, so the file's page cache
# stays under 8 MiB all the while (fincore samples it as it reads), the
# kernel sees no fadvise64 call beyond the program's own (those of the plain
# read, none of them DONTNEED), and the bytes hash as the plain read's.
#   shim_direct FILE READER [RUN-ARG...]   (no RUN-ARG: run's default mode)
shim_direct() {
	local f=$1 reader=$2 want plain samples max fadv
	shift 2

	read_sampled "$f" "$reader" || return 1
	want=$(cut -d" " -f1 "$work/sum") plain=$(paste -sd, "$work/fadv")
	read_sampled "$f" "$reader" run "$@" || { sed 's/^/# /' "$work/stats"; return 1; }
	sed 's/^/# /' "$work/stats" | grep -v "^# pagecliff: run via\|^# pagecliff: streams followed"
	read -r samples max <"$work/samples"
	fadv=$(paste -sd, "$work/fadv")
	echo "# $reader under run${*:+ $*}: $samples samples, largest $((max >> 10)) KiB cached; fadvise advice: plain [$plain], under run [$fadv]"
	grep -q "mode direct (" "$work/stats" || { echo "# the shim did not read it direct"; return 1; }
	[ "$samples" -ge 3 ] || { echo "# too few samples to see the read"; return 1; }
	[ "$max" -lt $((8 << 20)) ] || { echo "# the page cache held $((max >> 20)) MiB of it"; return 1; }
	[ "$fadv" = "$plain" ] || { echo "# fadvise calls beyond the program's own"; return 1; }
	! grep -qx 4 "$work/fadv" || { echo "# a DONTNEED call"; return 1; }
	[ "$(cut -d" " -f1 "$work/sum")" = "$want" ] || { echo "# the hash differs from the plain read's"; return 1; }
}

overlay_writer() {
	local o=$work/ovl

	mkdir -p "$o/lower" "$o/upper" "$o/work" "$o/merged"
	mount -t overlay overlay -o "lowerdir=$o/lower,upperdir=$o/upper,workdir=$o/work" "$o/merged" ||
		return 1
	# the pages live in the upper file: count them there
	drop_caches
	rm -f "$o/merged/copy"
	"$pc" run --stats -- dd if="$1" of="$o/merged/copy" bs=64k status=none 2>"$work/stats"
	local rc=$? up
	sed 's/^/# /' "$work/stats"
	up=$(cached_mib "$o/upper/copy")
	echo "# overlay: $up MiB of the upper file cached"
	[ "$up" -le 72 ] || rc=1
	drop_caches
	cmp -s "$1" "$o/merged/copy" || rc=1
	umount "$o/merged"
	return $rc
}

doctor_json() {
	"$pc" doctor --json --path /tmp >"$work/doctor.json" 2>/dev/null || return 1
	python3 - "$work/doctor.json" "$kmaj" "$kmin" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
k = (int(sys.argv[2]), int(sys.argv[3]))
f = {x["id"]: x for x in d["findings"]}
ver = f["kernel.version"]
print("# doctor: %s (%s)" % (ver["title"], ver["status"]))
if k < (6, 14):
    assert ver["status"] != "ok" and "RWF_DONTCACHE" in ver["title"], ver
cs = f.get("kernel.cachestat")
print("# doctor: %s" % (cs and cs["title"]))
if k < (6, 5):
    assert cs and cs["status"] != "ok", cs
PY
}

bench_v2() {
	mkdir -p "$work/bench"
	"$pc" bench --directory "$work/bench" --mem-limit 128M --size 96M --numjobs 1 \
		--mode buffered,auto --runtime 10 --output-format json >"$work/bench.json" 2>"$work/bench.err"
	local rc=$?
	sed 's/^/# /' "$work/bench.err" | tail -5
	[ $rc = 0 ] || return 1
	python3 - "$work/bench.json" <<'PY'
import json, sys
job = json.load(open(sys.argv[1]))["job"]
print("# bench: cgroup %s v%s, cache counted as %s" %
      (job["memory_cgroup"], job["cgroup_version"], job["page_cache_counted_as"]))
assert job["cgroup_version"] == 2, job["cgroup_version"]
PY
}

watch_v2() {
	"$pc" watch --count 2 --interval 1 --json >"$work/watch.json" || return 1
	python3 - "$work/watch.json" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
assert len(rows) == 2, rows
cg = rows[-1].get("cgroup")
print("# watch: cgroup %s" % (cg,))
assert cg and cg.get("version") == 2, cg
PY
}

# prog NAME COMMAND...: one of the suite's own test programs, its exit
# status by the suite's rule (0 pass, 77 skip), its output as comments.
prog() {
	local name=$1 rc t0=$SECONDS
	shift
	"$@" >"$work/prog.out" 2>&1
	rc=$?
	echo "# $((SECONDS - t0)) s" >>"$work/prog.out"
	sed 's/^/# /' "$work/prog.out" | tail -15
	n=$((n + 1))
	case $rc in
	0) echo "ok $n - $name" ;;
	77) echo "ok $n - $name # SKIP $(tail -1 "$work/prog.out")" ;;
	*) failed=$((failed + 1)); echo "not ok $n - $name (exit $rc)" ;;
	esac
}

echo "# kernel $kver, scratch $(findmnt -n -o FSTYPE /tmp) on /tmp, cgroup $(stat -f -c %T /sys/fs/cgroup)"
mkdir -p "$work/xfs" "$work/ext4"
truncate -s 512M "$work/ext4.img" && mkfs.ext4 -q -F "$work/ext4.img" &&
	mount -o loop "$work/ext4.img" "$work/ext4" || not_ok "ext4 on a loop device"
cat_modes=$("$pc" cat --list-modes) && [ -n "$cat_modes" ] || not_ok "cat --list-modes"
cp_modes=$("$pc" cp --list-modes) && [ -n "$cp_modes" ] || not_ok "cp --list-modes"
for d in "$work/xfs" "$work/ext4"; do
	fs=$(findmnt -n -o FSTYPE -T "$d")
	make_file "$d/src" 32
	for m in $cat_modes; do
		check "cat --mode $m on $fs: exact bytes, cache" cat_mode "$d" "$m"
	done
	check "dontcache on $fs: used or refused with its reason" dontcache_fallback "$d/src"
	check "auto on a warm file on $fs: the reason names what is missing" auto_reason "$d/src"
	for m in $cp_modes; do
		check "cp --mode $m on $fs: exact copy, cache" cp_mode "$d" "$m"
	done
done
make_file "$work/big" 128
v2=$([ "$(stat -f -c %T /sys/fs/cgroup)" = cgroup2fs ] && echo yes)
skip_v1() {	# skip_v1 NAME FUNCTION...: a check of cgroup v2
	if [ -n "$v2" ]; then check "$@"; else n=$((n + 1)); echo "ok $n - $1 # SKIP memory is not on cgroup v2 here"; fi
}
for m in buffered auto; do
	skip_v1 "cat --mode $m under cgroup v2 memory.max" capped_stream "$work/big" "$m"
done
check "shim reader: exact bytes, at most the budget cached" shim_reader "$work/big"
check "shim (auto), sha256sum of a cold file: direct, under 8 MiB cached while it reads, no fadvise of its own, same hash" \
	shim_direct "$work/big" sha256sum
check "shim --mode direct, cat of a cold file: under 8 MiB cached while it reads, no fadvise of its own, same hash" \
	shim_direct "$work/big" cat --mode direct
check "shim writer: exact bytes, at most the budget cached" shim_writer "$work/big" "$work/xfs/shimcopy"
check "shim writer into overlayfs: the upper file not flooded" overlay_writer "$work/big"
check "doctor on this kernel" doctor_json
skip_v1 "bench --mem-limit on cgroup v2" bench_v2
skip_v1 "watch on cgroup v2" watch_v2
src=$(cd "$(dirname "$0")/../.." && pwd)
prog "bench's cgroup inside its own subtree (test-cgroup-v2)" "$build/tests/bench/test-cgroup-v2"
prog "bench --mem-limit on v2: sampler outside the cap, cleanup (v2-cap.sh)" \
	env PAGECLIFF="$pc" PAGECLIFF_BUILDDIR="$build" PAGECLIFF_SRCDIR="$src" "$src/tests/bench/v2-cap.sh"
prog "bench's cap where its cgroup holds its own tree, another's, or systemd's (v2-hosts.sh)" \
	env PAGECLIFF="$pc" PAGECLIFF_BUILDDIR="$build" PAGECLIFF_SRCDIR="$src" "$src/tests/bench/v2-hosts.sh"
prog "the own cgroup below a second cgroup2 mount (test-v2-mounts.sh)" \
	env PAGECLIFF="$pc" PAGECLIFF_BUILDDIR="$build" PAGECLIFF_SRCDIR="$src" "$src/tests/sample/test-v2-mounts.sh"

umount "$work/ext4" 2>/dev/null
rm -rf "$work"
echo "1..$n"
echo "# $kver: $((n - failed)) passed, $failed failed"
[ $failed = 0 ]
