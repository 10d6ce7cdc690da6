#!/bin/bash
# SPDX-License-Identifier: MIT
# The VM rig: boot one of Debian's kernels under QEMU with cgroup v2 and run
# a command inside, on the host's own binaries.
#
#   tests/vm/vm.sh [--kernel 6.1|6.12] [--fs xfs|ext4] [--mem MIB] [--cpus N]
#                  [--timeout SEC] -- COMMAND [ARG]...
#
# The guest's root is the host's / read-only over virtio-9p; the source tree
# (with its build folders) and a job folder are writable at their host paths;
# /tmp is a fresh XFS or ext4 on a scratch virtio disk (9p does not use the
# page cache, so tests of the cache need a real file system).  cgroup2 is
# mounted alone at /sys/fs/cgroup with the memory controller enabled for
# children.  COMMAND runs as root in the source tree; its output streams to
# ours and its exit status is ours.  Exit 77 with a reason when no guest can
# be booted here.  Software emulation (TCG): slow, keep jobs small.
set -u
here=$(cd "$(dirname "$0")" && pwd)
src=${PAGECLIFF_SRCDIR:-$(cd "$here/../.." && pwd)}
series=6.1 fs=xfs mem=2048 cpus=2 limit=600

skip() {
	echo "vm: $*" >&2
	exit 77
}

usage() {
	echo "usage: tests/vm/vm.sh [--kernel 6.1|6.12] [--fs xfs|ext4] [--mem MIB] [--cpus N] [--timeout SEC] -- COMMAND..." >&2
	exit 2
}

while [ $# -gt 0 ]; do
	case $1 in
	--kernel) series=${2:?}; shift 2 ;;
	--fs) fs=${2:?}; shift 2 ;;
	--mem) mem=${2:?}; shift 2 ;;
	--cpus) cpus=${2:?}; shift 2 ;;
	--timeout) limit=${2:?}; shift 2 ;;
	--) shift; break ;;
	*) usage ;;
	esac
done
[ $# -gt 0 ] || usage
case $fs in xfs | ext4) ;; *) echo "vm: unknown file system '$fs' (xfs or ext4)" >&2; exit 2 ;; esac

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
	ENV
	printf '%q ' "$@" >"$job/cmd"
	echo >>"$job/cmd"
	cp "$here/guest.sh" "$job/guest.sh" && cp "$here/modprobe.sh" "$job/modprobe" &&
		chmod +x "$job/guest.sh" "$job/modprobe" &&
		truncate -s 8G "$job/scratch.img" &&
		mkfs."$fs" -q $([ "$fs" = xfs ] && echo -f || echo -F) "$job/scratch.img" >/dev/null
}

make_initrd || exit 1
make_job "$@" || exit 1
share="security_model=none,multidevs=remap"
timeout "$limit" qemu-system-x86_64 -accel tcg,thread=multi -cpu max \
	-smp "$cpus" -m "$mem" -nographic -no-reboot -monitor none -serial stdio \
	-kernel "$kdir/vmlinux" -initrd "$job/initrd.img" \
	-append "console=ttyS0 loglevel=${PC_VM_LOGLEVEL:-3} panic=-1 pc.job=$job pc.src=$src" \
	-virtfs "local,path=/,mount_tag=hostroot,readonly=on,$share" \
	-virtfs "local,path=$job,mount_tag=job,$share" \
	-virtfs "local,path=$src,mount_tag=src,$share" \
	-drive "file=$job/scratch.img,if=virtio,format=raw,cache=unsafe" \
	</dev/null > >(tr -d '\r' | sed -u '1,/^Booting from ROM/d') &
qemu_pid=$!
wait "$qemu_pid"
qrc=$?
qemu_pid=
if [ ! -s "$job/rc" ]; then
	[ $qrc = 124 ] && echo "vm: the guest ($kver) did not finish within $limit s" >&2 ||
		echo "vm: the guest ($kver) stopped without an exit status (qemu: $qrc)" >&2
	exit 1
fi
exit "$(cat "$job/rc")"
