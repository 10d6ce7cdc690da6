#!/bin/sh
# SPDX-License-Identifier: MIT
# The guest kernel's modprobe: the modules of the unpacked kernel.
. "$(dirname "$0")/env"
exec /sbin/modprobe -d "$PC_KDIR" "$@"
