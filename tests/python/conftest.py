# SPDX-License-Identifier: MIT
# Shared by the Python module's tests: files on a real file system (/var/tmp), cold starts, root checks.
import os
import shutil
import tempfile

import pytest

import pagecliff

STRATEGIES = pagecliff.strategies()
MIB = 1 << 20


@pytest.fixture
def tmp():
    """A folder of our own under /var/tmp (a disk file system: direct I/O, dontcache), removed after."""
    d = tempfile.mkdtemp(prefix="pagecliff-py-", dir=os.environ.get("PAGECLIFF_PY_TMPDIR", "/var/tmp"))
    yield d
    shutil.rmtree(d, ignore_errors=True)


def pattern(size, seed=0):
    """size bytes that differ at every 4 KiB block and between seeds: a misplaced block shows."""
    out = bytearray()
    block = 0
    while len(out) < size:
        head = b"%d:%d|" % (seed, block)
        out += (head + bytes((block * 7 + seed + i) & 0xFF for i in range(251)))[:251] * 17
        block += 1
    return bytes(out[:size])


def make_file(path, size, seed=0):
    data = pattern(size, seed)
    with open(path, "wb") as f:
        f.write(data)
    return data


def evict(path):
    """Write the file back and drop it from the page cache."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fdatasync(fd)
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    finally:
        os.close(fd)


def needs_root(why):
    if os.geteuid() != 0:
        pytest.skip("needs root " + why)
