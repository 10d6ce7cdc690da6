# SPDX-License-Identifier: MIT
# Writing and copying: "wb" and "ab" for every strategy read back exact, tell, flush, fsync, copy() as cp.
import os
import random
import shutil
import stat

import pytest

import pagecliff
from conftest import MIB, STRATEGIES, make_file, pattern


@pytest.mark.parametrize("size", [0, 1, 4095, 4096, MIB + 1, 5 * MIB + 7])
@pytest.mark.parametrize("strategy", STRATEGIES)
def test_write_read_back(tmp, strategy, size):
    path = os.path.join(tmp, "w")
    data = pattern(size, 5)
    rnd = random.Random(size)
    with pagecliff.open(path, "wb", strategy=strategy) as w:
        assert (w.mode, w.writable(), w.readable(), w.seekable()) == ("wb", True, False, False)
        off = 0
        while off < size:
            n = rnd.choice([1, 100, 4096, 65536, 300000, 2 * MIB])
            assert w.write(memoryview(data)[off:off + n]) == len(data[off:off + n])
            off += n
            assert w.tell() == min(off, size)
            if rnd.random() < 0.2:
                w.flush()
        w.fsync()
        with open(path, "rb") as g:		# flushed and synced: all there before close
            assert g.read() == data
    assert w.stats.bytes == size
    with open(path, "rb") as g:
        assert g.read() == data
    with pagecliff.open(path, strategy=strategy) as f:
        assert f.read() == data


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_append_truncate(tmp, strategy):
    path = os.path.join(tmp, "w")
    with open(path, "wb") as g:
        g.write(b"old contents")
    with pagecliff.open(path, "ab", strategy=strategy) as w:
        assert w.tell() == 12
        w.write(b" and more")
        w.writelines([b"\n", pattern(MIB + 1, 2)])
    with open(path, "rb") as g:
        assert g.read() == b"old contents and more\n" + pattern(MIB + 1, 2)
    with pagecliff.open(path, "wb", strategy=strategy) as w:
        w.write(b"new")
    with open(path, "rb") as g:
        assert g.read() == b"new"


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_copy(tmp, strategy):
    src = os.path.join(tmp, "src")
    ref = make_file(src, 3 * MIB + 1)
    os.chmod(src, 0o640)
    dst = os.path.join(tmp, "dst")
    assert pagecliff.copy(src, dst, strategy=strategy) == dst
    with open(dst, "rb") as g:
        assert g.read() == ref
    assert stat.S_IMODE(os.stat(dst).st_mode) == 0o640 & ~_umask()
    os.chmod(dst, 0o600)			# an existing file keeps its mode, loses its bytes
    with open(src, "wb") as g:
        g.write(b"short")
    pagecliff.copy(src, dst, strategy=strategy)
    assert stat.S_IMODE(os.stat(dst).st_mode) == 0o600
    with open(dst, "rb") as g:
        assert g.read() == b"short"
    sub = os.path.join(tmp, "sub")
    os.mkdir(sub)
    assert pagecliff.copy(src, sub) == os.path.join(sub, "src")
    with open(os.path.join(sub, "src"), "rb") as g:
        assert g.read() == b"short"


def test_copy_refusals(tmp):
    src = os.path.join(tmp, "src")
    make_file(src, 100)
    with pytest.raises(shutil.SameFileError):
        pagecliff.copy(src, src)
    os.link(src, os.path.join(tmp, "hard"))
    with pytest.raises(shutil.SameFileError):
        pagecliff.copy(src, os.path.join(tmp, "hard"))
    assert os.path.getsize(src) == 100
    with pytest.raises(FileNotFoundError) as e:
        pagecliff.copy(os.path.join(tmp, "none"), os.path.join(tmp, "x"))
    assert e.value.filename == os.path.join(tmp, "none")
    with pytest.raises(FileNotFoundError) as e:
        pagecliff.copy(src, os.path.join(tmp, "no", "x"))
    assert e.value.filename == os.path.join(tmp, "no", "x")
    with pytest.raises(IsADirectoryError):
        pagecliff.copy(tmp, os.path.join(tmp, "x"))
    assert not os.path.exists(os.path.join(tmp, "x"))


def _umask():
    m = os.umask(0)
    os.umask(m)
    return m
