#!/bin/bash
# SPDX-License-Identifier: MIT
# Fetch one of Debian's kernels for the VM rig and lay it out unpacked:
#   tests/vm/kernel.sh SERIES      SERIES: 6.1 (linux-image-amd64) or 6.12
# prints the folder that holds vmlinux (booted directly: the xz decompressor
# inside the bzImage is slow under QEMU's software emulation) and
# lib/modules/VERSION with its modules.dep.  Nothing is installed on the
# host: the package is downloaded and unpacked under $PAGECLIFF_VM_CACHE
# (default /var/cache/pagecliff-vm).  Exit 77 with a reason when it cannot.
set -u
series=${1:?usage: tests/vm/kernel.sh 6.1|6.12}
cache=${PAGECLIFF_VM_CACHE:-/var/cache/pagecliff-vm}

skip() {
	echo "vm: $*" >&2
	exit 77
}

# The versioned image package that Debian's meta-package for SERIES depends on.
image_package() {
	local meta

	case $series in
	6.1) meta=linux-image-amd64 ;;
	6.12) meta=linux-image-6.12-amd64 ;;
	*) echo "vm: unknown kernel series '$series' (6.1 or 6.12)" >&2; exit 2 ;;
	esac
	apt-cache depends "$meta" 2>/dev/null |
		sed -n 's/^ *Depends: \(linux-image-[^ ]*\)$/\1/p' | head -1
}

# The compressed kernel inside a bzImage: "FORMAT OFFSET" of the first xz
# (6.1) or zstd (6.12) stream, or nothing.
payload() {
	python3 - "$1" <<'PY'
import sys
data = open(sys.argv[1], "rb").read()
found = [(data.find(m), f) for f, m in (("xz", b"\xfd7zXZ\x00"), ("zstd", b"\x28\xb5\x2f\xfd"))]
found = sorted((o, f) for o, f in found if o >= 0)
if found:
    print(found[0][1], found[0][0])
PY
}

unpack() {
	local pkg=$1 dir=$2 tmp deb ver img fmt off

	tmp=$(mktemp -d "$cache/.unpack-XXXXXX") || return 1
	(cd "$tmp" && apt-get download "$pkg" >/dev/null 2>&1) ||
		{ rm -rf "$tmp"; skip "cannot download $pkg (apt-get update first?)"; }
	deb=$(ls "$tmp"/*.deb)
	dpkg-deb -x "$deb" "$tmp/root" && rm -f "$deb" || { rm -rf "$tmp"; return 1; }
	ver=${pkg#linux-image-}
	img="$tmp/root/boot/vmlinuz-$ver"
	read -r fmt off < <(payload "$img")
	[ -n "${off:-}" ] || { rm -rf "$tmp"; skip "$img holds no xz or zstd stream"; }
	case $fmt in
	xz) tail -c +$((off + 1)) "$img" | xz -dc --single-stream ;;
	zstd) tail -c +$((off + 1)) "$img" | zstd -dcq 2>/dev/null ;;
	esac >"$tmp/root/vmlinux"
	[ -s "$tmp/root/vmlinux" ] || { rm -rf "$tmp"; skip "cannot unpack vmlinux from $img"; }
	depmod -b "$tmp/root" "$ver" || { rm -rf "$tmp"; return 1; }
	echo "$ver" >"$tmp/root/version"
	mv "$tmp/root" "$dir" && rmdir "$tmp"
}

for t in depmod xz zstd; do
	command -v $t >/dev/null || skip "$t is missing (apt-get install kmod xz-utils zstd)"
done
mkdir -p "$cache" || skip "cannot make $cache"
pkg=$(image_package)
[ -n "$pkg" ] || skip "apt knows no kernel package for $series (apt-get update first?)"
dir="$cache/$pkg"
if [ ! -s "$dir/vmlinux" ]; then
	exec 9>"$cache/.lock"
	flock 9
	[ -s "$dir/vmlinux" ] || unpack "$pkg" "$dir" || exit 1
fi
echo "$dir"
