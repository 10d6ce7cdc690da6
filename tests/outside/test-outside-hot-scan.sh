#!/bin/sh
# SPDX-License-Identifier: MIT
# `pagecliff attach --all` with kernel events turned off (PAGECLIFF_NO_BPF)
# says it scans every process's descriptors and finds the running reader
# that way: test-outside-hot.sh with HOT_SOURCE=scan.
export HOT_SOURCE=scan
exec "$(dirname "$0")/test-outside-hot.sh"
