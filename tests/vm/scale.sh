#!/bin/bash
# SPDX-License-Identifier: MIT
# The meson test vm-scale: Debian's 6.12 under the rig with 16 CPUs in 4 NUMA
# nodes and 4 data disks, one per node, running tests/vm/scale-checks.sh
# against this build.  PAGECLIFF_VM_CPUS, _NODES and _DISKS change the shape.
set -u
here=$(cd "$(dirname "$0")" && pwd)
build=${PAGECLIFF_BUILDDIR:?run through meson test, or set PAGECLIFF_BUILDDIR}
exec "$here/vm.sh" --kernel "${1:-6.12}" --cpus "${PAGECLIFF_VM_SCALE_CPUS:-16}" \
	--nodes "${PAGECLIFF_VM_SCALE_NODES:-4}" --disks "${PAGECLIFF_VM_SCALE_DISKS:-4}" --mem 4096 \
	--timeout "${PAGECLIFF_VM_TIMEOUT:-900}" -- bash "$here/scale-checks.sh" "$build"
