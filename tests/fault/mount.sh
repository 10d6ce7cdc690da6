# SPDX-License-Identifier: MIT
# Sourced by the fault rig's shell tests: skip (77) without root, /dev/fuse
# or $FAULTFS, mount faultfs on $mnt, give a scratch folder $work, and undo
# both at exit and on SIGINT, SIGTERM and SIGHUP.

. "$(dirname "$0")/../harness.sh"
needs_root "to mount a FUSE file system"
[ -c /dev/fuse ] || skip "/dev/fuse is missing"
[ -x "${FAULTFS:-}" ] || skip "\$FAULTFS does not name the faultfs binary"

make_tmpdir mnt /tmp
make_tmpdir work /tmp
faultfs_pid=
faultfs_cleanup() {
	umount -l "$mnt" 2>/dev/null
	[ -n "$faultfs_pid" ] && kill "$faultfs_pid" 2>/dev/null && wait "$faultfs_pid" 2>/dev/null
	rmdir "$mnt"
	rm -rf -- "$work"
}
at_exit faultfs_cleanup

"$FAULTFS" "$mnt" -f >/dev/null 2>&1 &
faultfs_pid=$!
for _ in $(seq 500); do
	[ "$(stat -f -c %t "$mnt")" = 65735546 ] && break
	sleep 0.01
done
[ "$(stat -f -c %t "$mnt")" = 65735546 ] || { echo "FAIL: faultfs did not mount"; exit 1; }
