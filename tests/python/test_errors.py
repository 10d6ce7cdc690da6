# SPDX-License-Identifier: MIT
# Errors: the OSError subclass for the kernel's errno, with the file's name; ValueError on a closed file.
import errno
import io
import os
import subprocess
import sys

import pytest

import pagecliff
from conftest import MIB, STRATEGIES, make_file, needs_root


def test_not_found(tmp):
    path = os.path.join(tmp, "none")
    for call in (lambda: pagecliff.open(path), lambda: pagecliff.probe(path),
                 lambda: pagecliff.residency(path), lambda: pagecliff.open(os.path.join(path, "x"), "wb")):
        with pytest.raises(FileNotFoundError) as e:
            call()
        assert e.value.errno == errno.ENOENT
        assert e.value.filename in (path, os.path.join(path, "x"))


def test_is_a_directory(tmp):
    for call in (lambda: pagecliff.open(tmp), lambda: pagecliff.open(tmp, "wb"),
                 lambda: pagecliff.open(tmp, "ab"), lambda: pagecliff.probe(tmp),
                 lambda: pagecliff.residency(tmp)):
        with pytest.raises(IsADirectoryError) as e:
            call()
        assert e.value.errno == errno.EISDIR and e.value.filename == tmp


def test_permission(tmp):
    path = os.path.join(tmp, "secret")
    make_file(path, 10)
    os.chmod(path, 0)
    script = ("import errno, pagecliff, sys\n"
              "for mode in ('rb', 'wb', 'ab'):\n"
              "    try:\n"
              "        pagecliff.open(sys.argv[1], mode)\n"
              "    except PermissionError as e:\n"
              "        assert e.errno == errno.EACCES and e.filename == sys.argv[1], e\n"
              "    else:\n"
              "        sys.exit('opened ' + mode)\n")
    # root passes permission checks: the check runs as nobody
    user = 65534 if os.geteuid() == 0 else None
    if user is not None:
        os.chmod(tmp, 0o755)
    r = subprocess.run([sys.executable, "-c", script, path], user=user,
                       capture_output=True, text=True, env=dict(os.environ))
    assert r.returncode == 0, r.stderr
    assert pagecliff.residency(path) is not None or os.geteuid() != 0


def test_enospc(tmp):
    needs_root("to mount a small tmpfs")
    mnt = os.path.join(tmp, "mnt")
    os.mkdir(mnt)
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "pagecliff-py", mnt], check=True)
    try:
        for strategy in STRATEGIES:
            path = os.path.join(mnt, strategy)
            with pytest.raises(OSError) as e:
                with pagecliff.open(path, "wb", strategy=strategy) as w:
                    for _ in range(4):
                        w.write(b"x" * MIB)
            assert e.value.errno == errno.ENOSPC, strategy
            assert type(e.value) is OSError
            os.unlink(path)
        make_file(os.path.join(tmp, "big"), 2 * MIB)
        with pytest.raises(OSError) as e:
            pagecliff.copy(os.path.join(tmp, "big"), os.path.join(mnt, "big"))
        assert e.value.errno == errno.ENOSPC and e.value.filename == os.path.join(mnt, "big")
    finally:
        subprocess.run(["umount", mnt], check=True)


def test_closed(tmp):
    path = os.path.join(tmp, "f")
    make_file(path, MIB)
    f = pagecliff.open(path)
    it = f.chunks()
    f.close()
    for call in (f.read, lambda: f.read(1), lambda: f.readinto(bytearray(10)), f.readline,
                 lambda: f.seek(0), f.tell, lambda: next(it), f.chunks, f.fileno, f.readable,
                 lambda: next(iter(f)), f.__enter__):
        with pytest.raises(ValueError):
            call()
    w = pagecliff.open(os.path.join(tmp, "w"), "wb")
    w.close()
    for call in (lambda: w.write(b"x"), w.flush, w.fsync, w.tell, w.fileno, w.__enter__):
        with pytest.raises(ValueError):
            call()


def test_bad_arguments(tmp):
    path = os.path.join(tmp, "f")
    make_file(path, 10)
    for mode in ("r", "w", "rt", "r+b", "x"):
        with pytest.raises(ValueError):
            pagecliff.open(path, mode)
    with pytest.raises(ValueError):
        pagecliff.open(path, strategy="fast")
    with pytest.raises(TypeError):
        pagecliff.open(path, strategy=1)
    with pytest.raises(ValueError):
        pagecliff.open(path, "wb", min_size=10)
    with pagecliff.open(path) as f:
        with pytest.raises(io.UnsupportedOperation):
            f.write(b"x")
        with pytest.raises(TypeError):
            f.readinto(b"read-only")
        with pytest.raises(ValueError):
            f.seek(0, 3)
    with pagecliff.open(os.path.join(tmp, "w"), "wb") as w:
        for call in (w.read, lambda: w.seek(0)):
            with pytest.raises(io.UnsupportedOperation):
                call()
