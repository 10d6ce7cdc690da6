/* SPDX-License-Identifier: MIT */
/*
 * The host guard's candidates (`attach --all`) from kernel events: the BPF
 * program's filemap:mm_filemap_add_to_page_cache counter says which files
 * gain pages fastest and which process added them, so the watcher follows
 * those processes instead of reading every descriptor of every process each
 * interval.  Where BPF cannot load (not root, no BTF, built without it, or
 * PAGECLIFF_NO_BPF set) the watcher scans as before.
 */
#ifndef PCO_OUTSIDE_HOT_H
#define PCO_OUTSIDE_HOT_H

#include <sys/types.h>

#include "outside.h"

struct pco_hot;

/*
 * Whether kernel events name the candidates: on the first call, load the
 * program into *@hp and say in a line on @o's stats_fd which source is
 * used (and why not BPF).  1: call pco_hot_pids(); 0: scan.
 */
int pco_hot_on(struct pco_hot **hp, const struct pco_opts *o);

/*
 * The processes that added at least min_size to one file since that file
 * was last named, fastest-growing files first, into @pids (up to @max);
 * how many.  A file filled by a kernel thread is looked for among the
 * descriptors of every process, less and less often (5 s, 10 s... 5 min).
 */
int pco_hot_pids(struct pco_hot *h, double now, pid_t *pids, int max);

/* Detach and free; NULL is fine. */
void pco_hot_free(struct pco_hot *h);

#endif
