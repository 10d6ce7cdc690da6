#!/bin/bash
# SPDX-License-Identifier: MIT
# The meson suite `vm`: boot Debian's kernel SERIES under the rig and run
# tests/vm/checks.sh in it against this build.
#   tests/vm/suite.sh SERIES [FS]
set -u
here=$(cd "$(dirname "$0")" && pwd)
build=${PAGECLIFF_BUILDDIR:?run through meson test, or set PAGECLIFF_BUILDDIR}
exec "$here/vm.sh" --cpus "${PAGECLIFF_VM_CPUS:-1}" --kernel "${1:?usage: suite.sh 6.1|6.12 [xfs|ext4]}" --fs "${2:-xfs}" \
	--timeout "${PAGECLIFF_VM_TIMEOUT:-900}" -- bash "$here/checks.sh" "$build"
