/* SPDX-License-Identifier: MIT */
/*
 * Open the project's BPF program (bpf/pagecliff.bpf.c) through its skeleton,
 * without a copy of the object in the caller: pcl_bpf_open() is
 * pagecliff_bpf__open(); load, attach and destroy are the skeleton's own.
 */
#ifndef PC_BPF_OPEN_H
#define PC_BPF_OPEN_H

#include "pagecliff.skel.h"

/* The skeleton, opened and not loaded; NULL with errno on failure. */
struct pagecliff_bpf *pcl_bpf_open(void);

#endif
