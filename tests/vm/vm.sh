#!/bin/bash
# SPDX-License-Identifier: MIT
# The VM rig: boot one of Debian's kernels under QEMU with cgroup v2 and run
# a command inside, on the host's own binaries.
#
#   tests/vm/vm.sh [--kernel 6.1|6.12] [--fs xfs|ext4] [--mem MIB] [--cpus N]
#                  [--nodes K] [--disks D] [--timeout SEC] -- COMMAND [ARG]...
#
# The guest's root is the host's / read-only over virtio-9p; the source tree
# (with its build folders) and a job folder are writable at their host paths,
# the source tree also where it lies below /tmp or /var/tmp (a clone there);
# /tmp is a fresh XFS or ext4 on a scratch virtio disk (9p does not use the
# page cache, so tests of the cache need a real file system).  --nodes K
# splits the CPUs and memory into K NUMA nodes (QEMU -numa with one memory
# backend each); --disks D adds D data disks of the same file system
# (PC_VM_DISK_MIB each, default 1024), mounted at /tmp/disk0..D-1, disk i on
# node i % K (a virtio-blk-pci device on a PCI expander bridge of that node;
# its numa_node in sysfs says so), their count in $PC_DISKS.  A boot that
# never reaches the job (with many vCPUs the emulated kernel can panic while
# it patches its own text) is tried again, three times in all.  cgroup2 is
# mounted alone at /sys/fs/cgroup with the memory controller enabled for
# children.  COMMAND runs as root in the source tree; its output streams to
# ours and its exit status is ours.  Exit 77 with a reason when no guest can
# be booted here.  Software emulation (TCG): slow, keep jobs small.
set -u
here=$(cd "$(dirname "$0")" && pwd)
src=${PAGECLIFF_SRCDIR:-$(cd "$here/../.." && pwd)}
series=6.1 fs=xfs mem=2048 cpus=2 nodes=1 disks=0 limit=600

skip() {
	echo "vm: $*" >&2
	exit 77
}

usage() {
	echo "usage: tests/vm/vm.sh [--kernel 6.1|6.12] [--fs xfs|ext4] [--mem MIB] [--cpus N] [--nodes K] [--disks D] [--timeout SEC] -- COMMAND..." >&2
	exit 2
}

while [ $# -gt 0 ]; do
	case $1 in
	--kernel) series=${2:?}; shift 2 ;;
	--fs) fs=${2:?}; shift 2 ;;
	--mem) mem=${2:?}; shift 2 ;;
	--cpus) cpus=${2:?}; shift 2 ;;
	--nodes) nodes=${2:?}; shift 2 ;;
	--disks) disks=${2:?}; shift 2 ;;
	--timeout) limit=${2:?}; shift 2 ;;
	--) shift; break ;;
	*) usage ;;
	esac
done
[ $# -gt 0 ] || usage
case $fs in xfs | ext4) ;; *) echo "vm: unknown file system '$fs' (xfs or ext4)" >&2; exit 2 ;; esac
for v in "$cpus" "$nodes" "$disks" "$mem"; do
	case $v in '' | *[!0-9]*) echo "vm: '$v' is not a count" >&2; exit 2 ;; esac
done
[ "$nodes" -ge 1 ] && [ $((cpus % nodes)) = 0 ] && [ $((mem % nodes)) = 0 ] ||
	{ echo "vm: $cpus CPUs and $mem MiB do not split into $nodes nodes" >&2; exit 2; }

[ "$(id -u)" = 0 ] || skip "needs root to share the host's / with the guest"
for t in qemu-system-x86_64 busybox cpio mkfs.$fs; do
	command -v "$t" >/dev/null || skip "$t is missing (apt-get install qemu-system-x86 busybox-static cpio xfsprogs)"
done
file -L "$(command -v busybox)" | grep -q 'statically linked' ||
	skip "busybox is not the static one (apt-get install busybox-static)"
kdir=$("$here/kernel.sh" "$series") || exit $?
kver=$(cat "$kdir/version")

# The job folder lives beside the unpacked kernels: the guest mounts fresh
# file systems on /tmp and /var/tmp, which would hide it there.
cache=${PAGECLIFF_VM_CACHE:-/var/cache/pagecliff-vm}
job=$(mktemp -d "$cache/job-XXXXXX") || exit 1
qemu_pid=
cleanup() {
	[ -n "$qemu_pid" ] && kill "$qemu_pid" 2>/dev/null && wait "$qemu_pid" 2>/dev/null
	rm -rf "$job"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# The initramfs: busybox, /init and the modules that mount the 9p root.
make_initrd() {
	local root=$job/initrd m

	mkdir -p "$root/bin" "$root/modules" "$root/proc" "$root/sys" "$root/dev" || return 1
	cp "$(command -v busybox)" "$root/bin/busybox" && cp "$here/init.sh" "$root/init" || return 1
	chmod +x "$root/init"
	for m in $(/sbin/modprobe -d "$kdir" -S "$kver" --show-depends -a \
			virtio_pci virtio_blk 9pnet_virtio 9p 2>/dev/null |
		   awk '$1 == "insmod" { print $2 }' | awk '!seen[$0]++'); do
		case $m in
		*.xz) xz -dc "$m" ;;
		*.zst) zstd -dcq "$m" ;;
		*) cat "$m" ;;
		esac >"$root/modules/$(basename "${m%.xz}" .zst)" || return 1
		basename "${m%.xz}" .zst >>"$root/modules.order"
	done
	[ -s "$root/modules.order" ] || { echo "vm: no 9p modules in $kdir" >&2; return 1; }
	(cd "$root" && find . | cpio -o -H newc --quiet) >"$job/initrd.img"
}

make_job() {
	cat >"$job/env" <<-ENV
	PC_KDIR=$kdir
	PC_FS=$fs
	PC_SRC=$src
	PC_DISKS=$disks
	ENV
	printf '%q ' "$@" >"$job/cmd"
	echo >>"$job/cmd"
	cp "$here/guest.sh" "$job/guest.sh" && cp "$here/modprobe.sh" "$job/modprobe" &&
		chmod +x "$job/guest.sh" "$job/modprobe" &&
		make_disk "$job/scratch.img" 8G || return 1
	for ((i = 0; i < disks; i++)); do
		make_disk "$job/disk$i.img" "${PC_VM_DISK_MIB:-1024}M" || return 1
	done
}

make_disk() {
	truncate -s "$2" "$1" &&
		mkfs."$fs" -q $([ "$fs" = xfs ] && echo -f || echo -F) "$1" >/dev/null
}

# QEMU's words for the nodes and the disks: each node its CPUs and memory
# backend, and with data disks a PCI expander bridge (pxb) on it, whose
# node the guest's firmware tables (ACPI _PXM) give its devices.
topology() {
	local n per=$((cpus / nodes)) i bus

	qemu_args=()
	if [ "$nodes" -gt 1 ]; then
		for ((n = 0; n < nodes; n++)); do
			qemu_args+=(-object "memory-backend-ram,id=mem$n,size=$((mem / nodes))M"
				-numa "node,nodeid=$n,cpus=$((n * per))-$((n * per + per - 1)),memdev=mem$n")
			# a pxb's own bus takes only bridges: the disks go behind one
			[ "$disks" -gt 0 ] &&
				qemu_args+=(-device "pxb,id=pxb$n,bus_nr=$((32 * (n + 1))),numa_node=$n,bus=pci.0"
					-device "pci-bridge,id=br$n,bus=pxb$n,chassis_nr=$((n + 1))")
		done
	fi
	qemu_args+=(-drive "file=$job/scratch.img,if=none,id=scratch,format=raw,cache=unsafe"
		-device "virtio-blk-pci,drive=scratch,serial=pc-scratch,bus=pci.0")
	for ((i = 0; i < disks; i++)); do
		bus=
		[ "$nodes" -gt 1 ] && bus=",bus=br$((i % nodes)),addr=$((1 + i / nodes))"
		qemu_args+=(-drive "file=$job/disk$i.img,if=none,id=disk$i,format=raw,cache=unsafe"
			-device "virtio-blk-pci,drive=disk$i,serial=pc-disk$i$bus")
	done
}

make_initrd || exit 1
make_job "$@" || exit 1
topology
share="security_model=none,multidevs=remap"
# -cpu qemu64, the plain x86-64 of Debian's baseline: with -cpu max (every
# feature TCG can emulate) the 6.12 guest's checks took twice the host's CPU
# (209 against 108 s, user + system of QEMU).  Nothing checked here depends
# on the CPU's features.
boot() {
	timeout "$limit" qemu-system-x86_64 -accel tcg,thread=multi -cpu qemu64 \
		-smp "$cpus" -m "$mem" -nographic -no-reboot -monitor none -serial stdio \
		-kernel "$kdir/vmlinux" -initrd "$job/initrd.img" \
		-append "console=ttyS0 loglevel=${PC_VM_LOGLEVEL:-3} panic=-1 pc.job=$job pc.src=$src" \
		-virtfs "local,path=/,mount_tag=hostroot,readonly=on,$share" \
		-virtfs "local,path=$job,mount_tag=job,$share" \
		-virtfs "local,path=$src,mount_tag=src,$share" \
		"${qemu_args[@]}" \
		</dev/null > >(tr -d '\r' | sed -u '1,/^Booting from ROM/d' | tee "$job/console") &
	qemu_pid=$!
	wait "$qemu_pid"
	qrc=$?
	qemu_pid=
}
for try in 1 2 3; do
	boot
	# a kernel panic before the job started: boot again
	[ ! -s "$job/rc" ] && [ $qrc != 124 ] && [ $try != 3 ] && ! grep -q '^vm: booted' "$job/console" &&
		grep -q 'Kernel panic' "$job/console" || break
	echo "vm: the guest ($kver, $cpus CPUs) stopped before the job (qemu: $qrc): booting again" >&2
done
if [ ! -s "$job/rc" ]; then
	[ $qrc = 124 ] && echo "vm: the guest ($kver) did not finish within $limit s" >&2 ||
		echo "vm: the guest ($kver) stopped without an exit status (qemu: $qrc)" >&2
	exit 1
fi
exit "$(cat "$job/rc")"
