#!/bin/bash
# SPDX-License-Identifier: MIT
# PID 1 of a rig guest, on the host's root: mount what a Linux host has
# (proc, sys, cgroup2 with the memory controller, tracefs, bpf), a real file
# system from the scratch disk (made by vm.sh) on /tmp, then run the job
# and power off.  Modules whose devices exist only once loaded (loop) load
# here, as a host's static nodes would have them loaded on first use.
# Its exit status goes to the job folder and, as a last line, the console.
job=$(dirname "$0")
. "$job/env"
export PC_DISKS

mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t tmpfs -o mode=755 tmpfs /run
mount -t devpts devpts /dev/pts 2>/dev/null
mkdir -p /dev/shm && mount -t tmpfs tmpfs /dev/shm
mount -t cgroup2 -o nsdelegate cgroup2 /sys/fs/cgroup
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
mount -t bpf bpf /sys/fs/bpf 2>/dev/null
# Modules load from the unpacked kernel: the host has no /lib/modules.
echo "$job/modprobe" >/proc/sys/kernel/modprobe
export MODPROBE_OPTIONS="-d $PC_KDIR"
ip link set lo up 2>/dev/null
echo +memory >/sys/fs/cgroup/cgroup.subtree_control

# The virtio disk whose serial is $1 (vm.sh names them), as /dev/vdX.
disk() {
	local b

	for b in /sys/block/vd*; do
		[ "$(cat "$b/serial" 2>/dev/null)" = "$1" ] && { echo "/dev/${b##*/}"; return 0; }
	done
	return 1
}

# The source tree where /tmp or /var/tmp would hide it (a clone below /tmp):
# kept at /run/pc-src first, bound back at its own path on the new /tmp.
keep_src() {
	case $PC_SRC in
	/tmp/* | /var/tmp/*) mkdir -p /run/pc-src && mount --bind "$PC_SRC" /run/pc-src ;;
	esac
}
restore_src() {
	case $PC_SRC in
	/tmp/* | /var/tmp/*) mkdir -p "$PC_SRC" && mount --bind /run/pc-src "$PC_SRC" ;;
	esac
}

# The data disks at /tmp/disk0..N-1.
mount_disks() {
	local i dev

	for ((i = 0; i < ${PC_DISKS:-0}; i++)); do
		dev=$(disk "pc-disk$i") && mkdir -p "/tmp/disk$i" && mount -t "$PC_FS" "$dev" "/tmp/disk$i" ||
			{ echo "vm: cannot mount data disk $i"; return 1; }
	done
}

rc=1
echo "vm: booted in $(cut -d" " -f1 /proc/uptime) s"
for m in loop xfs ext4 btrfs overlay fuse; do
	modprobe -q "$m"
done
keep_src
if ! mount -t "$PC_FS" "$(disk pc-scratch)" /tmp; then
	echo "vm: cannot mount the scratch disk"
else
	chmod 1777 /tmp
	# /var/tmp on the same disk, as on a host: tmpfs pages would be charged
	# to a capped cgroup as memory it cannot reclaim
	mkdir -m 1777 /tmp/.var-tmp && mount --bind /tmp/.var-tmp /var/tmp
	if restore_src && mount_disks; then
		echo "vm: scratch ready at $(cut -d" " -f1 /proc/uptime) s"
		cd "$PC_SRC" && bash "$job/cmd"
		rc=$?
	fi
	cd /
	umount -R /var/tmp
	umount -R /tmp
fi
echo "$rc" >"$job/rc"
sync
echo "pagecliff-vm: exit $rc"
echo o >/proc/sysrq-trigger
sleep 10
