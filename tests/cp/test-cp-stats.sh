#!/bin/bash
# SPDX-License-Identifier: MIT
# cp --stats gives a rate only for bytes moved: for a sparse file the bytes
# moved are its data extents, the holes skipped are said apart and the GB/s
# is the moved bytes over the time printed; for a clone (XFS with reflink,
# as root) nothing is moved, the bytes cloned are said and no GB/s at all.
set -u
. "$(dirname "$0")/harness.sh"
make_tmpdir work /tmp
xfs="$work/xfs"

# Check one --stats first line ($1) against total $2, moved $3, the words
# that must follow ($4); the GB/s, when moved, must be moved / seconds.
check() {
	python3 - "$@" <<'PY' || fail "stats line '$1'"
import re, sys
line, total, moved, rest = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
m = re.match(r"\S+ -> \S+: (\d+) bytes, (\d+) moved in ([0-9.]+) s( \(([0-9.]+) GB/s\))?, (.*)$", line)
assert m, "not the format"
assert int(m[1]) == total and int(m[2]) == moved, (m[1], m[2], total, moved)
assert m[6].startswith(rest), m[6]
if moved:
    s, g = float(m[3]), float(m[5])
    lo, hi = (g - 0.005) * max(s - 0.0005, 0) * 1e9, (g + 0.005) * (s + 0.0005) * 1e9
    assert lo <= moved <= hi, ("GB/s is not moved bytes over the time", lo, moved, hi)
else:
    assert m[4] is None, "a rate for nothing moved"
PY
}

cd "$work" || exit 1
truncate -s 64M sparse
head -c 12345 /dev/urandom | dd of=sparse bs=1 seek=1048581 conv=notrunc status=none
[ "$(stat -c %b sparse)" -lt 1024 ] || skip "this file system does not keep holes"
data=$(python3 -c 'import os, sys
fd, off, n = os.open("sparse", os.O_RDONLY), 0, 0
size = os.fstat(fd).st_size
while off < size:
    try:
        d = os.lseek(fd, off, os.SEEK_DATA)
    except OSError:
        break
    h = os.lseek(fd, d, os.SEEK_HOLE)
    n, off = n + h - d, h
print(n)')
for m in auto buffered direct; do
	"$pc" cp --stats --mode $m sparse copy.$m 2>err || fail "sparse $m: exit $?"
	same sparse copy.$m "sparse $m"
	check "$(head -1 err)" 67108864 "$data" "$((67108864 - data)) of holes skipped, streamed"
done

[ "$(id -u)" = 0 ] || { echo "not root: no XFS to clone on"; exit 0; }
command -v mkfs.xfs >/dev/null || skip "mkfs.xfs is not installed"
loopfs "$xfs" xfs 512M -f -m reflink=1
head -c 33554435 /dev/urandom >"$xfs/src"
"$pc" cp --stats "$xfs/src" "$xfs/clone" 2>err || fail "clone: exit $?"
same "$xfs/src" "$xfs/clone" clone
check "$(head -1 err)" 33554435 0 "33554435 cloned, cloned (FICLONE)"
echo "cp --stats: GB/s over bytes moved only; holes skipped and bytes cloned apart"
