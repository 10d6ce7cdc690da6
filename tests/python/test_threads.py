# SPDX-License-Identifier: MIT
# Threads: one file used from several threads serializes (every block once, whole); the GIL is let go in system calls.
import os
import struct
import threading

import pytest

import pagecliff
from conftest import STRATEGIES

BLOCK = 4096
COUNT = 2048


def blocks_file(path):
    with open(path, "wb") as f:
        for i in range(COUNT):
            f.write(struct.pack("<I", i) * (BLOCK // 4))


def run_threads(n, target):
    ts = [threading.Thread(target=target) for _ in range(n)]
    for t in ts:
        t.start()
    for t in ts:
        t.join(60)
    assert not any(t.is_alive() for t in ts)


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_shared_reader(tmp, strategy):
    path = os.path.join(tmp, "f")
    blocks_file(path)
    seen, errors = [], []
    with pagecliff.open(path, strategy=strategy) as f:
        def reader():
            try:
                while b := f.read(BLOCK):
                    seen.append(b)
            except Exception as e:		# pragma: no cover - reported below
                errors.append(e)
        run_threads(4, reader)
    assert errors == []
    assert all(len(b) == BLOCK and b == b[:4] * (BLOCK // 4) for b in seen)
    assert sorted(struct.unpack("<I", b[:4])[0] for b in seen) == list(range(COUNT))


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_shared_writer(tmp, strategy):
    path = os.path.join(tmp, "w")
    nxt = iter(range(COUNT))
    lock = threading.Lock()
    with pagecliff.open(path, "wb", strategy=strategy) as w:
        def writer():
            while True:
                with lock:
                    i = next(nxt, None)
                if i is None:
                    return
                w.write(struct.pack("<I", i) * (BLOCK // 4))
        run_threads(4, writer)
    with open(path, "rb") as f:
        data = f.read()
    assert len(data) == BLOCK * COUNT
    got = [data[k:k + BLOCK] for k in range(0, len(data), BLOCK)]
    assert all(b == b[:4] * (BLOCK // 4) for b in got)
    assert sorted(struct.unpack("<I", b[:4])[0] for b in got) == list(range(COUNT))


def test_close_while_reading(tmp):
    path = os.path.join(tmp, "f")
    blocks_file(path)
    f = pagecliff.open(path)
    got = []

    def reader():
        try:
            while b := f.read(BLOCK):
                got.append(b)
        except ValueError:
            got.append(None)
    t = threading.Thread(target=reader)
    t.start()
    f.close()
    t.join(60)
    assert not t.is_alive()
    assert all(b is None or len(b) == BLOCK for b in got)
    assert None in got or len(got) == COUNT


def test_gil_released_in_system_calls(tmp):
    """A read blocked on a FIFO must let the main thread run, or the writer below never comes."""
    fifo = os.path.join(tmp, "fifo")
    os.mkfifo(fifo)
    result = []
    t = threading.Thread(target=lambda: result.append(pagecliff.open(fifo).read()), daemon=True)
    t.start()
    with open(fifo, "wb") as w:		# blocks until the reader's open(2), which needs the GIL let go
        w.write(b"through a pipe")
    t.join(30)
    assert result == [b"through a pipe"]
