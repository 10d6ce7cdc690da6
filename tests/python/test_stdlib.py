# SPDX-License-Identifier: MIT
# The io world over pagecliff files: hashlib, shutil.copyfileobj, tarfile's streaming mode, zipfile.
import hashlib
import io
import os
import shutil
import tarfile
import zipfile

import pytest

import pagecliff
from conftest import MIB, STRATEGIES, evict, make_file, pattern


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_hashlib_copyfileobj(tmp, strategy):
    path = os.path.join(tmp, "f")
    ref = make_file(path, 5 * MIB + 3)
    evict(path)
    with pagecliff.open(path, strategy=strategy) as f:
        assert isinstance(f, io.BufferedIOBase)
        assert hashlib.file_digest(f, "sha256").digest() == hashlib.sha256(ref).digest()
    out = io.BytesIO()
    with pagecliff.open(path, strategy=strategy) as f:
        shutil.copyfileobj(f, out)
    assert out.getvalue() == ref
    dst = os.path.join(tmp, "g")
    with pagecliff.open(path, strategy=strategy) as f, pagecliff.open(dst, "wb", strategy=strategy) as g:
        shutil.copyfileobj(f, g)
    with open(dst, "rb") as g:
        assert g.read() == ref


def _members():
    return {"a.txt": b"hello\n", "big.bin": pattern(3 * MIB + 1, 9), "empty": b"", "odd": pattern(4097, 3)}


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_tarfile_stream(tmp, strategy):
    path = os.path.join(tmp, "t.tar")
    members = _members()
    with pagecliff.open(path, "wb", strategy=strategy) as w, tarfile.open(fileobj=w, mode="w|") as t:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            t.addfile(info, io.BytesIO(data))
    got = {}
    with pagecliff.open(path, strategy=strategy) as f, tarfile.open(fileobj=f, mode="r|") as t:
        for m in t:
            got[m.name] = t.extractfile(m).read()
    assert got == members


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_zipfile(tmp, strategy):
    path = os.path.join(tmp, "z.zip")
    members = _members()
    with pagecliff.open(path, "wb", strategy=strategy) as w, zipfile.ZipFile(w, "w") as z:
        for name, data in members.items():
            z.writestr(name, data, compress_type=zipfile.ZIP_DEFLATED)
    with pagecliff.open(path, strategy=strategy) as f, zipfile.ZipFile(f) as z:
        assert z.testzip() is None
        assert {n: z.read(n) for n in z.namelist()} == members
    with zipfile.ZipFile(path) as z:
        assert {n: z.read(n) for n in z.namelist()} == members
