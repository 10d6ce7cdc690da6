# SPDX-License-Identifier: MIT
# Shared by the bench test scripts: skipping, failing, and checking that
# nothing a bench run makes (testbed, mount, loop device, cgroup, state) is left.
PAGECLIFF=${PAGECLIFF:?run through meson test}

skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }

# A fresh directory, removed at exit.
tmpdir() {
	T=$(mktemp -d /var/tmp/pagecliff-bench-test.XXXXXX) || fail "mktemp"
	trap 'rm -rf "$T"' EXIT
}

# The memory cgroup directories where bench would put its cgroups.
cgroup_dirs() {
	local p
	p=$(sed -n 's/^[0-9]*:[^:]*memory[^:]*:\(.*\)$/\1/p' /proc/self/cgroup | head -1)
	if [ -n "$p" ]; then
		echo "/sys/fs/cgroup/memory$p"
	else
		p=$(sed -n 's/^0::\(.*\)$/\1/p' /proc/self/cgroup)
		echo "/sys/fs/cgroup$p" "$(dirname "/sys/fs/cgroup$p")"
	fi
}

# Fail when a bench run with pid $1 (or any, when empty) left something.
check_nothing_left() {
	local pid=${1:-[0-9]*} d left=""
	for d in $(cgroup_dirs); do
		ls -d "$d"/pagecliff-$pid 2>/dev/null | grep -q . && left="$left cgroup:$(ls -d "$d"/pagecliff-$pid)"
	done
	grep -q "/run/pagecliff/testbed-$pid" /proc/mounts && left="$left mount"
	losetup -a 2>/dev/null | grep -q "/run/pagecliff/testbed-$pid" && left="$left loop"
	ls -d /run/pagecliff/testbed-$pid 2>/dev/null | grep -q . && left="$left testbed-dir"
	ls /run/pagecliff/bench-$pid.state 2>/dev/null | grep -q . && left="$left state-file"
	[ -z "$left" ] || fail "left behind:$left"
}
