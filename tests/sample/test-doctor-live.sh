#!/bin/sh
# SPDX-License-Identifier: MIT
# doctor on the live system: valid JSON, the copy self-test's two speeds and
# a status that matches their ratio; as root, RWF_DONTCACHE probed for real
# on fresh XFS and ext4 file systems on loop devices (undone on exit), and a
# file given with --path is only read.
set -u
pc=${PAGECLIFF:?PAGECLIFF is not set}
command -v python3 >/dev/null || { echo "SKIP: no python3 to check JSON"; exit 77; }
. "$(dirname "$0")/../harness.sh"
make_tmpdir tmp "${TMPDIR:-/tmp}"
loops=""
mnts=""
cleanup() {
	for m in $mnts; do umount "$m" 2>/dev/null; done
	for l in $loops; do losetup -d "$l" 2>/dev/null; done
	rm -rf "$tmp"
}
at_exit cleanup

"$pc" doctor --json --sample-ms 200 >"$tmp/live.json" 2>"$tmp/err" ||
	{ echo "FAIL: doctor exited non-zero: $(cat "$tmp/err")"; exit 1; }
python3 - "$tmp/live.json" <<'PY' || exit 1
import json, re, sys
doc = json.load(open(sys.argv[1]))
got = {f["id"]: f for f in doc["findings"]}
for key in ("kernel.version", "memory.total", "now.reclaim", "copy.alignment"):
    if key not in got:
        sys.exit(f"FAIL: no {key} finding")
c = got["copy.alignment"]
m = re.search(r"page-aligned ([0-9.]+) GB/s, page offset 16 ([0-9.]+) GB/s", c["evidence"])
if not m:
    sys.exit(f"FAIL: copy evidence without speeds: {c['evidence']}")
al, off = float(m.group(1)), float(m.group(2))
if al <= 0 or off <= 0:
    sys.exit(f"FAIL: copy speeds {al} {off}")
ratio = al / off
want = "warn" if ratio >= 1.5 else "ok"
# the status is decided on unrounded speeds: allow the rounding band
if c["status"] != want and abs(ratio - 1.5) > 0.02:
    sys.exit(f"FAIL: copy ratio {ratio:.2f} but status {c['status']}")
print(f"copy: page-aligned {al} GB/s, offset 16 {off} GB/s, {ratio:.2f}x, {c['status']}")
PY

# a file given with --path is opened read-only: contents and mtime unchanged
head -c 1048576 /dev/urandom >"$tmp/user-file"
sum=$(sha256sum <"$tmp/user-file"); mt=$(stat -c %Y.%y "$tmp/user-file")
"$pc" doctor --path "$tmp/user-file" --json --sample-ms 0 >"$tmp/file.json" || exit 1
[ "$(sha256sum <"$tmp/user-file")" = "$sum" ] && [ "$(stat -c %Y.%y "$tmp/user-file")" = "$mt" ] ||
	{ echo "FAIL: doctor changed a file given with --path"; exit 1; }
grep -q "\"dontcache.$tmp/user-file\"" "$tmp/file.json" ||
	{ echo "FAIL: no probe of the --path file"; exit 1; }

if [ "$(id -u)" -ne 0 ]; then
	echo "doctor live: ok (XFS/ext4 probes skipped: not root)"
	exit 0
fi
for tool in losetup mkfs.xfs mkfs.ext4; do
	command -v $tool >/dev/null || { echo "SKIP: no $tool for the XFS/ext4 probes"; exit 77; }
done

# mkfs_loop FSTYPE SIZE: a fresh file system on a loop device, mounted
mkfs_loop() {
	img="$tmp/$1.img"; mnt="$tmp/$1.mnt"
	truncate -s "$2" "$img" && mkdir "$mnt" || return 1
	dev=$(losetup -f --show "$img") || return 1
	loops="$loops $dev"
	case $1 in
	xfs) mkfs.xfs -q -f "$dev" ;;
	ext4) mkfs.ext4 -q -F "$dev" ;;
	esac || return 1
	mount "$dev" "$mnt" || return 1
	mnts="$mnt $mnts"
}
mkfs_loop xfs 320M || { echo "FAIL: cannot make an XFS file system"; exit 1; }
mkfs_loop ext4 64M || { echo "FAIL: cannot make an ext4 file system"; exit 1; }
"$pc" doctor --path "$tmp/xfs.mnt" --path "$tmp/ext4.mnt" --json --sample-ms 0 \
	>"$tmp/fs.json" || exit 1
# RWF_DONTCACHE: XFS since 6.16 (off again before 6.15 shipped), ext4 since 6.17
kv=$(uname -r | awk -F. '{ print $1 * 1000 + $2 }')
xfs_want=warn; ext4_want=warn
[ "$kv" -ge 6016 ] && xfs_want=ok
[ "$kv" -ge 6017 ] && ext4_want=ok
python3 - "$tmp/fs.json" "$tmp" "$xfs_want" "$ext4_want" <<'PY' || exit 1
import json, sys
doc = json.load(open(sys.argv[1]))
got = {f["id"]: f for f in doc["findings"]}
for fs, want in (("xfs", sys.argv[3]), ("ext4", sys.argv[4])):
    f = got.get(f"dontcache.{sys.argv[2]}/{fs}.mnt")
    if not f or f["status"] != want:
        sys.exit(f"FAIL: {fs}: want {want}, got {f and f['status']}")
    if fs not in f["title"]:
        sys.exit(f"FAIL: {fs}: title names no type: {f['title']}")
    print(f"{fs}: {f['status']}: {f['title']}; {f['evidence']}")
PY
# the probes leave nothing behind
for m in $mnts; do
	left=$(ls -A "$m" | grep -v '^lost+found$')
	[ -z "$left" ] || { echo "FAIL: doctor left '$left' in $m"; exit 1; }
done
echo "doctor live: ok"
exit 0
