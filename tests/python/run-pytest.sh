#!/bin/sh
# SPDX-License-Identifier: MIT
# Runs the Python module's tests (tests/python/test_*.py) with pytest on the
# module of the build tree, with the interpreter it was built for; skips
# (77) when pytest or the module is missing.
set -u
py=${PAGECLIFF_PYTHON:-python3}
mod=${PAGECLIFF_BUILDDIR:?}/python
here=$(cd "$(dirname "$0")" && pwd)

command -v "$py" >/dev/null 2>&1 || { echo "SKIP: no $py"; exit 77; }
"$py" -c 'import pytest' 2>/dev/null ||
	{ echo "SKIP: pytest is missing for $py (Debian: python3-pytest)"; exit 77; }
PYTHONPATH=$mod "$py" -c 'import pagecliff' 2>/dev/null ||
	{ echo "SKIP: no module pagecliff in $mod (built with -Dpython=enabled and python3-dev)"; exit 77; }
cd "$here" || exit 1
PYTHONPATH=$mod PYTHONDONTWRITEBYTECODE=1 exec "$py" -m pytest -q -rs -p no:cacheprovider "$here"
