# SPDX-License-Identifier: MIT
# Reading: bytes exact against builtin open() for every strategy, size and method; seek, lines, chunks' lifetime.
import os
import random

import pytest

import pagecliff
from conftest import MIB, STRATEGIES, evict, make_file

SIZES = [0, 1, 4095, 4096, MIB + 1, 3 * MIB + 17]


@pytest.fixture(params=SIZES)
def sized(request, tmp):
    path = os.path.join(tmp, "f")
    make_file(path, request.param, seed=request.param & 0xFF)
    with open(path, "rb") as f:
        ref = f.read()
    evict(path)
    return path, ref


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_read_all(sized, strategy):
    path, ref = sized
    with pagecliff.open(path, strategy=strategy) as f:
        assert f.read() == ref
        assert f.read() == b""
        st = f.stats
    assert st.bytes == len(ref)
    assert st.requested == strategy
    assert st.strategy in STRATEGIES and st.strategy != "auto"


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_readinto_and_chunks(sized, strategy):
    path, ref = sized
    got = bytearray()
    buf = bytearray(256 * 1024)
    with pagecliff.open(path, strategy=strategy) as f:
        while n := f.readinto(buf):
            got += buf[:n]
    assert got == ref
    with pagecliff.open(path, strategy=strategy) as f:
        assert b"".join(bytes(c) for c in f.chunks()) == ref


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_small_reads_lines(sized, strategy):
    path, ref = sized
    rnd = random.Random(len(ref))
    got = bytearray()
    with pagecliff.open(path, strategy=strategy) as f:
        while b := f.read(rnd.choice([1, 7, 4096, 70000, 200000])):
            got += b
    assert got == ref
    with pagecliff.open(path, strategy=strategy) as f, open(path, "rb") as g:
        assert list(f) == list(g)
    with pagecliff.open(path, strategy=strategy) as f, open(path, "rb") as g:
        assert f.readline(10) == g.readline(10)
        assert f.readlines() == g.readlines()


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_seek_tell(tmp, strategy):
    path = os.path.join(tmp, "f")
    make_file(path, 3 * MIB + 5)
    rnd = random.Random(35)
    with pagecliff.open(path, strategy=strategy) as f, open(path, "rb") as g:
        assert f.seekable()
        for _ in range(300):
            whence = rnd.choice([0, 1, 2])
            off = rnd.randrange(-4 * MIB, 4 * MIB)
            want = {0: off, 1: g.tell() + off, 2: 3 * MIB + 5 + off}[whence]
            if want < 0:
                with pytest.raises(ValueError):
                    f.seek(off, whence)
                continue
            assert f.seek(off, whence) == g.seek(off, whence)
            n = rnd.choice([0, 1, 100, 5000, 65536, 300000])
            assert f.read(n) == g.read(n)
            assert f.tell() == g.tell()
            if rnd.random() < 0.1:
                assert f.readline() == g.readline()


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_chunk_released_after_step(tmp, strategy):
    path = os.path.join(tmp, "f")
    ref = make_file(path, 3 * MIB)
    with pagecliff.open(path, strategy=strategy) as f:
        it = f.chunks()
        first = next(it)
        assert first.readonly
        n = len(first)
        assert bytes(first) == ref[:n]
        with pytest.raises(TypeError):
            first[0] = 1
        second = next(it)
        with pytest.raises(ValueError):
            bytes(first)
        assert bytes(second) == ref[n:n + len(second)]
        f.read(1)
        with pytest.raises(ValueError):
            second[0]


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_chunk_held_refuses_then_survives_close(tmp, strategy):
    path = os.path.join(tmp, "f")
    ref = make_file(path, 3 * MIB)
    f = pagecliff.open(path, strategy=strategy)
    it = f.chunks()
    view = next(it)
    part = view[10:20]			# a second view of the same buffer
    with pytest.raises(BufferError):
        next(it)
    with pytest.raises(BufferError):
        f.read(10)
    f.close()				# the stream lives on under the slice
    assert bytes(part) == ref[10:20]
    with pytest.raises(ValueError):
        bytes(view)
    part.release()
    with pytest.raises(ValueError):
        f.read()


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_growing_file(tmp, strategy):
    path = os.path.join(tmp, "f")
    ref = make_file(path, MIB + 3)
    with pagecliff.open(path, strategy=strategy) as f:
        assert f.read() == ref
        assert f.read() == b""
        more = os.urandom(2 * MIB + 11)
        with open(path, "ab") as g:
            g.write(more)
        got = f.read()
        assert got == more
        with open(path, "ab") as g:
            g.write(b"tail\n")
        assert list(f) == [b"tail\n"]


def test_min_size(tmp):
    path = os.path.join(tmp, "f")
    make_file(path, 4096)
    with pagecliff.open(path, strategy="direct", min_size=8192) as f:
        assert f.stats.strategy == "buffered"
    with pagecliff.open(path, strategy="direct", min_size=4096) as f:
        assert f.stats.requested == "direct"


def test_probe_residency(tmp):
    path = os.path.join(tmp, "f")
    make_file(path, 8 * MIB)
    evict(path)
    p = pagecliff.probe(path)
    assert p.size == 8 * MIB
    assert p.strategy in STRATEGIES and p.strategy != "auto"
    assert p.reason.startswith("auto")
    with pagecliff.open(path) as f:
        assert f.stats.strategy == p.strategy
    assert pagecliff.residency(path) <= MIB
    with open(path, "rb") as f:
        f.read(2 * MIB)
    assert pagecliff.residency(path, 0, 2 * MIB) == 2 * MIB


def test_file_like_attributes(tmp):
    path = os.path.join(tmp, "f")
    make_file(path, 10)
    f = pagecliff.open(path)
    assert (f.name, f.mode, f.readable(), f.writable(), f.closed) == (path, "rb", True, False, False)
    assert os.fstat(f.fileno()).st_size == 10
    assert f.peek()[:3] == b"0:0" and f.tell() == 0
    f.close()
    f.close()
    assert f.closed
    assert f.stats.bytes == 10		# peek() had the stream read them
