#!/bin/busybox sh
# SPDX-License-Identifier: MIT
# /init of the VM rig's initramfs (busybox): load the 9p modules, mount the
# host's / read-only as the guest's root, the job's folder and the source
# tree writable at their host paths, and hand over to the job's guest.sh.
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
for m in $(cat /modules.order); do
	insmod "/modules/$m" || echo "vm-init: insmod $m failed" >/dev/console
done
job=$(sed -n 's/.*pc\.job=\([^ ]*\).*/\1/p' /proc/cmdline)
src=$(sed -n 's/.*pc\.src=\([^ ]*\).*/\1/p' /proc/cmdline)
opts=trans=virtio,version=9p2000.L,msize=262144
mkdir -p /newroot
if ! mount -t 9p -o "$opts,ro" hostroot /newroot ||
   ! mount -t 9p -o "$opts" job "/newroot$job" ||
   ! mount -t 9p -o "$opts" src "/newroot$src"; then
	echo "vm-init: cannot mount the host's shares" >/dev/console
	echo o >/proc/sysrq-trigger
fi
umount /proc /sys
mount --move /dev /newroot/dev
exec switch_root /newroot /bin/bash "$job/guest.sh"
