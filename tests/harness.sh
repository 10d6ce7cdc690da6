# SPDX-License-Identifier: MIT
# The test scripts' harness, sourced by every script (after its own `set`):
# fail and skip with a reason, needs_root, temporary directories and other
# cleanups undone at exit and on signals, and the retry of a check that needs
# warm pages to stay cached.  Exit status: 0 pass, 1 fail, 77 skip.

# The folder of the test script, absolute (the script may change folders).
TESTDIR=$(cd "$(dirname "$0")" && pwd)

# fail REASON...: print "FAIL: REASON" and exit 1.
fail() { echo "FAIL: $*" >&2; exit 1; }
# skip REASON...: print "SKIP: REASON" and exit 77.
skip() { echo "SKIP: $*"; exit 77; }
# needs_root WHY...: skip with "needs root WHY" unless run as root.
needs_root() { [ "$(id -u)" = 0 ] || skip "needs root $*"; }

# A test of many checks that goes on after one fails: fail_later REASON...
# prints "FAIL: REASON" and counts it, pass counts a check that passed, and
# checks_done prints "N passed, N failed" and exits 1 when any failed, else 0.
_t_passed=0 _t_failed=0
fail_later() { echo "FAIL: $*" >&2; _t_failed=$((_t_failed + 1)); }
pass() { _t_passed=$((_t_passed + 1)); }
checks_done() {
	echo "$_t_passed passed, $_t_failed failed"
	[ "$_t_failed" = 0 ] || exit 1
	exit 0
}

# at_exit COMMAND: run COMMAND (a shell word list, evaluated) at exit, also
# when a check fails or a signal ends the test; the last registered first.
# Loop devices, mounts and cgroups a test makes are undone this way.
_t_cleanups=
at_exit() {
	_t_cleanups="$*
$_t_cleanups"
}
_t_exit() {
	_t_rc=$?
	set +e
	_t_todo=$_t_cleanups
	_t_cleanups=
	while [ -n "$_t_todo" ]; do
		_t_cmd=${_t_todo%%
*}
		_t_todo=${_t_todo#*
}
		[ -n "$_t_cmd" ] && eval "$_t_cmd"
	done
	exit $_t_rc
}
trap _t_exit EXIT
trap 'exit 1' INT TERM HUP

# make_tmpdir VAR [BASE]: a new directory under BASE (default: the build
# folder's file system, else $TMPDIR, else /tmp) named after the script, in
# the variable VAR, removed at exit.
make_tmpdir() {
	_t_dir=$(mktemp -d "${2:-${PAGECLIFF_BUILDDIR:-${TMPDIR:-/tmp}}}/pagecliff-$(basename "$0" .sh)-XXXXXX") ||
		fail "cannot make a temporary directory"
	at_exit "rm -rf '$_t_dir'"
	eval "$1=\$_t_dir"
}

# warm_tries COMMAND...: run COMMAND, a check that needs pages to stay
# cached, up to three times while it returns 2.  Reclaim (DAMON's pageout
# here, docs/MACHINES.md) may take warm pages at any moment; a check that is
# wrong is wrong every time.  Returns COMMAND's last status.
warm_tries() {
	_t_try=1
	while :; do
		"$@"
		_t_rc=$?
		[ "$_t_rc" -eq 2 ] && [ "$_t_try" -lt 3 ] || return "$_t_rc"
		echo "warm pages taken by reclaim (try $_t_try of 3): again"
		_t_try=$((_t_try + 1))
	done
}

# needs_memcg_v2 VAR: skip unless a cgroup v2 hierarchy with the memory
# controller is mounted and enabled for its children (the VM suite's guests);
# its mount point in the variable VAR.
needs_memcg_v2() {
	_t_mnt=
	while read -r _ _t_d _t_type _; do
		[ "$_t_type" = cgroup2 ] && grep -qw memory "$_t_d/cgroup.controllers" 2>/dev/null &&
			{ _t_mnt=$_t_d; break; }
	done </proc/mounts
	[ -n "$_t_mnt" ] || skip "no cgroup v2 hierarchy with the memory controller here (memory on v1?): this test runs in the VM suite (tests/vm)"
	grep -qw memory "$_t_mnt/cgroup.subtree_control" ||
		skip "memory is not enabled for the children of $_t_mnt"
	eval "$1=\$_t_mnt"
}

# loop_attach VAR IMAGE: IMAGE on a free loop device, its path in the
# variable VAR, detached at exit; skips when there is no loop device.
loop_attach() {
	_t_dev=$(losetup -f --show "$2") || skip "no loop device for $2"
	at_exit "losetup -d '$_t_dev' 2>/dev/null"
	eval "$1=\$_t_dev"
}

# mount_at_exit ARG... DIR: mount(8) with these arguments, DIR last;
# unmounted at exit (lazily when still busy).
mount_at_exit() {
	mount "$@" || return
	eval "_t_mp=\${$#}"
	at_exit "umount '$_t_mp' 2>/dev/null || umount -l '$_t_mp' 2>/dev/null"
}

# loopfs DIR FSTYPE SIZE [MKFS_OPTION...]: a new FSTYPE file system of SIZE
# (truncate(1)'s units) on a loop device over the image DIR.img, mounted on
# DIR (made when missing), all of it undone at exit; the device in $LOOPFS_DEV.
loopfs() {
	_t_fsdir=$1 _t_fs=$2
	mkdir -p "$_t_fsdir" && truncate -s "$3" "$_t_fsdir.img" || fail "cannot make $_t_fsdir.img"
	shift 3
	at_exit "rm -f '$_t_fsdir.img'"
	loop_attach LOOPFS_DEV "$_t_fsdir.img"
	mkfs."$_t_fs" -q "$@" "$LOOPFS_DEV" >/dev/null 2>&1 || fail "mkfs.$_t_fs $* $LOOPFS_DEV"
	mount_at_exit -t "$_t_fs" "$LOOPFS_DEV" "$_t_fsdir" || fail "cannot mount $_t_fs on $_t_fsdir"
}

# thin_xfs DIR MIB: a new 512 MiB XFS on DIR whose image lives alone in a
# tmpfs of MIB MiB on DIR.room, so that writeback fails once the tmpfs is
# full; a second call replaces the first, the last is undone at exit.
_t_thin_dev=
_t_thin_undo() {
	umount "$1" 2>/dev/null || umount -l "$1" 2>/dev/null
	[ -n "$_t_thin_dev" ] && losetup -d "$_t_thin_dev" 2>/dev/null
	_t_thin_dev=
	umount "$1.room" 2>/dev/null || umount -l "$1.room" 2>/dev/null
}
thin_xfs() {
	case " $_t_cleanups " in
	*"_t_thin_undo '$1'"*) _t_thin_undo "$1" ;;
	*) mkdir -p "$1" "$1.room" || fail "cannot make $1"
	   at_exit "_t_thin_undo '$1'" ;;
	esac
	mount -t tmpfs -o size="$2"m tmpfs "$1.room" || fail "cannot mount a tmpfs on $1.room"
	truncate -s 512M "$1.room/img" || fail "cannot make $1.room/img"
	_t_thin_dev=$(losetup -f --show "$1.room/img") || skip "no loop device"
	mkfs.xfs -q -f "$_t_thin_dev" >/dev/null 2>&1 || fail "mkfs.xfs $_t_thin_dev"
	mount "$_t_thin_dev" "$1" || fail "cannot mount $_t_thin_dev on $1"
}

# wait_for PID LOG CMD...: run CMD every 0.05 s until it succeeds, for 30 s
# at the most (then returns 1); fails, with the end of the file LOG, when the
# process PID ends first.
wait_for() {
	_t_pid=$1 _t_log=$2
	shift 2
	for _ in $(seq 600); do
		"$@" && return 0
		kill -0 "$_t_pid" 2>/dev/null || fail "process $_t_pid ended early: $(tail -n 5 "$_t_log")"
		sleep 0.05
	done
	return 1
}
