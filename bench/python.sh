#!/bin/bash
# SPDX-License-Identifier: MIT
# The Python module against Python's own files (issue 35): a cold file of
# SIZE (1g) on DIR's file system (/var/tmp) hashed with SHA-256 and copied,
# each contender in a fresh python3, interleaved, RUNS (3) times, the cache
# dropped before each run; prints medians of seconds and MiB cached after.
#   read:  builtin open + hashlib.file_digest (readinto, 256 KiB), pagecliff.open
#          (auto and direct) the same way, pagecliff chunks() (auto and direct)
#   copy:  builtin open both ends, 1 MiB readinto/write, os.fsync; pagecliff.open
#          both ends the same way, fsync(); pagecliff.copy() then os.fsync
# Usage: sudo bench/python.sh   (after ninja -C build; SIZE, RUNS, DIR to change)
set -u
NAME=python
SIZE=${SIZE:-1g}		# before lib.sh, whose default is 4g
. "$(dirname "$0")/lib.sh"
RUNS=${RUNS:-3}
DIR=${DIR:-/var/tmp}
PY=${PY:-/usr/bin/python3}
MOD=${PAGECLIFF_PYMOD:-$(cd "$(dirname "$0")/.." && pwd)/build/python}
PYTHONPATH=$MOD "$PY" -c 'import pagecliff' || die "no module pagecliff in $MOD: build first"
size_b=$(to_bytes "$SIZE")
D=$(mktemp -d "$DIR/pagecliff-bench-py.XXXXXX") || exit 1
trap 'rm -rf "$D"; cleanup' EXIT
head -c "$size_b" /dev/urandom >"$D/src" || die "cannot write $D/src"

cat >"$W/one.py" <<'PYEOF'
import hashlib, os, sys, time
import pagecliff

how, src, dst = sys.argv[1:4]
MIB = 1 << 20


def digest(f):
    return hashlib.file_digest(f, "sha256").hexdigest()


def chunks(f):
    h = hashlib.sha256()
    for c in f.chunks():
        h.update(c)
    return h.hexdigest()


def copy_loop(f, g):
    buf = bytearray(MIB)
    view = memoryview(buf)
    while n := f.readinto(buf):
        g.write(view[:n])


t = time.perf_counter()
if how == "read-builtin":
    with open(src, "rb") as f:
        out = digest(f)
elif how.startswith("read-pc-"):
    with pagecliff.open(src, strategy=how.split("-")[2]) as f:
        out = digest(f)
elif how.startswith("chunks-pc-"):
    with pagecliff.open(src, strategy=how.split("-")[2]) as f:
        out = chunks(f)
elif how == "copy-builtin":
    with open(src, "rb") as f, open(dst, "wb") as g:
        copy_loop(f, g)
        g.flush()
        os.fsync(g.fileno())
    out = "-"
elif how == "copy-pc-open":
    with pagecliff.open(src) as f, pagecliff.open(dst, "wb") as g:
        copy_loop(f, g)
        g.fsync()
    out = "-"
elif how == "copy-pc-copy":
    pagecliff.copy(src, dst)
    fd = os.open(dst, os.O_RDONLY)
    os.fsync(fd)
    os.close(fd)
    out = "-"
secs = time.perf_counter() - t
cached = pagecliff.residency(src) + (pagecliff.residency(dst) if os.path.exists(dst) else 0)
print(f"{secs:.3f} {cached / MIB:.1f} {out}")
PYEOF

contenders=(read-builtin read-pc-auto read-pc-direct chunks-pc-auto chunks-pc-direct
	    copy-builtin copy-pc-open copy-pc-copy)
for ((run = 1; run <= RUNS; run++)); do
	for c in "${contenders[@]}"; do
		rm -f "$D/dst"
		sync; echo 1 >/proc/sys/vm/drop_caches
		line=$(PYTHONPATH=$MOD "$PY" "$W/one.py" "$c" "$D/src" "$D/dst") || die "$c failed"
		echo "$c $line" | tee -a "$W/results"
	done
done

# medians per contender; the hashes of the readers must agree
"$PY" - "$W/results" "$size_b" <<'PYEOF'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
size = int(sys.argv[2])
hashes = {r[3] for r in rows if r[3] != "-"}
assert len(hashes) == 1, f"readers disagree: {hashes}"
base = {}
print(f"{'contender':18} {'runs':>4} {'median s':>9} {'MiB/s':>8} {'vs builtin':>10} {'MiB cached after':>17}")
for name in dict.fromkeys(r[0] for r in rows):
    secs = statistics.median(float(r[1]) for r in rows if r[0] == name)
    cached = statistics.median(float(r[2]) for r in rows if r[0] == name)
    kind = name.split("-")[0]
    if name.endswith("builtin"):
        base[kind] = secs
    ref = base.get("read" if kind == "chunks" else kind)
    ratio = f"{ref / secs:.2f}x" if ref else "-"
    n = sum(r[0] == name for r in rows)
    print(f"{name:18} {n:>4} {secs:>9.3f} {size / secs / 2**20:>8.0f} {ratio:>10} {cached:>17.1f}")
PYEOF
