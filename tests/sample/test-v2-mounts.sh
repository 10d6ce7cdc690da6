#!/bin/bash
# SPDX-License-Identifier: MIT
# Finding the own cgroup v2 (watch, doctor and bench share the finder) where
# the first cgroup2 mount is a bind of another cgroup and the right one is
# mounted at a path with a blank (\040 in /proc/mounts and mountinfo): in a
# mount namespace of its own without /sys/fs/cgroup, `watch --json` must
# name the process's cgroup below the second mount and read its memory.max.
# Needs cgroup v2 with the memory controller (the VM suite's guests).
set -u
pc=${PAGECLIFF:?PAGECLIFF is not set}
. "$(dirname "$0")/../harness.sh"
needs_root "to mount"
needs_memcg_v2 mnt
command -v unshare >/dev/null && command -v python3 >/dev/null || skip "needs unshare and python3"
name=pc-mnts-$$
own=$mnt/$name
make_tmpdir T /tmp
at_exit 'rmdir "$own/job" "$own/other" "$own" 2>/dev/null'
mkdir "$own" && echo +memory >"$own/cgroup.subtree_control" && mkdir "$own/job" "$own/other" &&
	echo $((64 << 20)) >"$own/job/memory.max" || fail "cannot make $own"
mkdir "$T/a" "$T/c g"
unshare -m --propagation private bash -c '
	set -e
	mount --bind "$1/other" "$2/a"
	mount -t cgroup2 cgroup2 "$2/c g"
	umount -l "$4"
	echo $$ >"$2/c g/$3/job/cgroup.procs"
	exec "$5" watch --count 1 --interval 100ms --json' _ "$own" "$T" "$name" "$mnt" "$pc" \
	>"$T/out" 2>"$T/err" || fail "watch in the namespace: $(cat "$T/err")"
python3 - "$T/out" "$T/c g/$name/job" <<'PY' || fail "watch: $(cat "$T/out")"
import json, sys
cg = json.loads(open(sys.argv[1]).read().splitlines()[0])["cgroup"]
assert cg and cg["version"] == 2 and cg["dir"] == sys.argv[2], (cg, sys.argv[2])
assert cg["limit_bytes"] == 64 << 20, cg
PY
echo "PASS: own cgroup found below the second cgroup2 mount, at '$T/c g'"
