// SPDX-License-Identifier: MIT
/*
 * The one copy of the BPF program in a binary: its skeleton embeds the whole
 * object (BTF and all), and every file calling the skeleton's open would
 * hold a copy of its own.  cli/trace and outside/hot.c open it here.
 */
#include "bpf-open.h"

struct pagecliff_bpf *pcl_bpf_open(void)
{
	return pagecliff_bpf__open();
}
