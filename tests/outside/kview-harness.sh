# SPDX-License-Identifier: MIT
# What the tests of the watcher's kernel view share (issue 31: streams taken
# from filemap:mm_filemap_add_to_page_cache, whatever made the pages: pread,
# a preadv pool, one sendfile or copy_file_range, faults through a mapping,
# writes), beside harness.sh: root, the --stats line of the kernel view, a
# device slow enough to attach half-way through one system call, attach in
# the background once its kernel view is in place, the peak sampler.
. "$(dirname "$0")/harness.sh"
[ -n "${OUTSIDE_PEAK:-}" ] || fail "OUTSIDE_PEAK is not set"
needs_root "to load the watcher's BPF program (its kernel view)"
P=${OUTSIDE_STATIC:-$OUTSIDE_PROG}

# kstats PATH MIN_MIB [PID]: $dir/stats has a line of the kernel view for
# PATH (of the process PID when given), of the form
#   pagecliff: PATH: N bytes added to the page cache (pid P, kernel view),
#   D bytes dropped, K bytes left cached, S syscalls
# read tolerantly (the number before "added", the one before "dropped");
# the bytes added, summed over PATH's lines (one a process), are at least
# MIN_MIB MiB and some were dropped.  Sets $kadded and $kdropped.
kstats() {
	_k=$(grep -F "pagecliff: $1: " "$dir/stats" 2>/dev/null | grep -F "kernel view")
	[ -z "${3:-}" ] || _k=$(echo "$_k" | grep -E "pid $3([^0-9]|\$)")
	[ -n "$_k" ] ||
		fail "no --stats line of the kernel view for $1${3:+ (pid $3)}: $(cat "$dir/stats" 2>/dev/null)"
	kadded=0 kdropped=0
	while read -r _l; do
		_a=$(echo "$_l" | sed -nE 's/.*[^0-9]([0-9]+) [^0-9,]*added.*/\1/p')
		_d=$(echo "$_l" | sed -nE 's/.*[^0-9]([0-9]+) [^0-9,]*dropped.*/\1/p')
		[ -n "$_a" ] && [ -n "$_d" ] || fail "cannot read the bytes added and dropped in: $_l"
		kadded=$((kadded + _a)) kdropped=$((kdropped + _d))
	done <<EOL
$_k
EOL
	[ "$kadded" -ge $(($2 * MIB)) ] ||
		fail "$1: the kernel view says $kadded bytes added (at least $2 MiB): $_k"
	[ "$kdropped" -gt 0 ] || fail "$1: the kernel view says nothing dropped: $_k"
}

# kstats_any PATH MIN_MIB [PID]: a line of the kernel view for PATH
# (kstats), or where a position stream of the watcher owned it (a writer
# followed by its cursor or its file's size), that stream's line with its
# measured bytes dropped (one owner per stream, one line).
kstats_any() {
	if grep -F "pagecliff: $1: " "$dir/stats" 2>/dev/null | grep -qF "kernel view"; then
		kstats "$@"
		return
	fi
	grep -F "pagecliff: $1: " "$dir/stats" 2>/dev/null |
		grep -qE "mode (dropbehind|writebehind) \(outside, pid ${3:-[0-9]+}\).* [1-9][0-9]* bytes dropped" ||
		fail "no measured --stats line for $1${3:+ (pid $3)}: $(cat "$dir/stats" 2>/dev/null)"
}

# slowfs DIR: a new ext4 of 640 MiB on DIR (a loop device of the test's
# own).  slow MIB_PER_S: its reads held to MIB_PER_S by the blkio throttle
# of this test's own cgroup, so that a copy of 256 MiB in one system call
# lasts seconds (time to attach half-way through it); slow 0: no longer.
# Skips without the throttle.
slowfs() {
	_cg=$(sed -n 's/^[0-9]*:blkio://p' /proc/self/cgroup)
	_thr=/sys/fs/cgroup/blkio${_cg%/}/blkio.throttle.read_bps_device
	[ -w "$_thr" ] || skip "no cgroup v1 blkio throttle to slow a device with"
	loopfs "$1" ext4 640M
	_dev=$(lsblk -ndo MAJ:MIN "$LOOPFS_DEV" | tr -d ' ')
	at_exit "echo '$_dev 0' > '$_thr'"
}
slow() {
	echo "$_dev $(($1 * MIB))" > "$_thr" || skip "the blkio throttle refused $_dev"
}

# half_way PID FILE MIB: wait until MIB MiB of FILE are cached (30 s at the
# most) while PID runs; fails when PID ends first ($dir/out: its output).
has_cached() { [ "$(cached "$1")" -ge "$2" ]; }
half_way() {
	wait_for "$1" "$dir/out" has_cached "$2" $(($3 * MIB)) ||
		fail "$2: not $3 MiB cached in 30 s"
}

# attach_bg PID...: `pagecliff attach --stats=$dir/stats PID...` in the
# background ($at, stderr in $dir/err), returning once its kernel view is
# in place: attach holds a BPF link (or a perf event) on the tracepoint.
# Where none comes (BPF did not load: the fallback) after 10 s at the most.
has_link() {
	for _fd in "/proc/$1/fd/"*; do
		case $(readlink "$_fd" 2>/dev/null) in
		anon_inode:bpf_link | "anon_inode:[perf_event]") return 0 ;;
		esac
	done
	return 1
}
attach_bg() {
	"$PAGECLIFF" attach --stats="$dir/stats" "$@" 2>"$dir/err" & at=$!
	bg="$bg $at"
	sleep 0.2
	for _ in $(seq 200); do
		has_link "$at" && return 0
		kill -0 "$at" 2>/dev/null || return 0
		sleep 0.05
	done
}

# peak_of PID FILE...: the most of each FILE cached until PID ends, sampled
# every 20 ms (outside-peak), into $dir/peak; skips without cachestat.
peak_of() {
	"$OUTSIDE_PEAK" "$@" > "$dir/peak"
	_rc=$?
	[ $_rc -eq 77 ] && skip "$(cat "$dir/peak")"
	[ $_rc -eq 0 ] || fail "outside-peak exited $_rc"
}
# peak FILE: the peak of FILE in $dir/peak, in bytes.
peak() { sed -n "s|^$1: \([0-9]*\) bytes peak.*|\1|p" "$dir/peak"; }
