/* SPDX-License-Identifier: MIT */
/*
 * The ranges of a file that were in the page cache at one moment, as a
 * sorted list of page-aligned extents: what a follower that first saw a
 * reader late (the watcher) must keep, because the reader did not bring
 * those pages in.  Library-internal.
 */
#ifndef PCL_EXTENTS_H
#define PCL_EXTENTS_H

#include <stdint.h>

#include "internal.h"

/* At most this many extents; past them, the rest of the range is kept whole. */
#define PCL_EXTENTS_MAX 4096

struct pcl_extents {
	uint64_t (*r)[2];	/* [lo, hi), sorted, apart */
	int n, cap;
};

/*
 * Record which pages of [@from, @to) of @fd are cached now, as @res tells
 * residency (cachestat over large windows first: a cold stretch costs one
 * call).  0, or -errno (residency unknown, -ENOMEM): then @e is left empty
 * and nothing can be told apart.  @calls counts the system calls.
 */
int pcl_extents_scan(struct pcl_extents *e, const struct pcl_residency *res, int fd,
		     uint64_t from, uint64_t to, uint64_t *calls);

void pcl_extents_release(struct pcl_extents *e);

/*
 * Call @drop for each stretch of [@off, @off + @len) outside the extents;
 * returns the bytes inside them (kept).
 */
uint64_t pcl_extents_split(const struct pcl_extents *e, uint64_t off, uint64_t len,
			   void (*drop)(void *arg, uint64_t off, uint64_t len), void *arg);

/* The bytes the extents hold. */
uint64_t pcl_extents_bytes(const struct pcl_extents *e);

/* The length of the extent that begins at @off (0: none does). */
uint64_t pcl_extents_front(const struct pcl_extents *e, uint64_t off);

/* Take [@off, @off + @len) off the extent that begins at @off. */
void pcl_extents_cut(struct pcl_extents *e, uint64_t off, uint64_t len);

#endif
