/* SPDX-License-Identifier: MIT */
/*
 * Drop-behind for a reader: the reader reads the file itself and tells the
 * dropper what it is about to read and how far it got; the dropper evicts what
 * was read with POSIX_FADV_DONTNEED, in batches, leaving out pages that were
 * cached before the reader touched them and pages that are dirty or under
 * writeback (so it never starts writeback nobody asked for).  Two readers
 * drive it: the dropbehind strategy (strat-dropbehind.c) for a stream, and the
 * preload shim for a program's own reads.  Library-internal, not exported.
 *
 * Where the kernel hides residency (a file the caller may not write) nothing
 * can be told apart: everything read is dropped and @res says it was unknown.
 * On overlayfs residency is counted through a mapping of the real file and
 * fadvise reaches it too (ovl_fadvise()).
 */
#ifndef PCL_DROPPER_H
#define PCL_DROPPER_H

#include <stdint.h>

#include "extents.h"
#include "internal.h"

#define PCL_DROPPER_NWIN 12

/*
 * Bytes per POSIX_FADV_DONTNEED when the caller names none: the default of
 * pc_opts.drop_batch, of the dropper and of the preload shim.  8 MiB kept
 * the peak cache of a 1 GiB read in a 256 MiB cgroup at 16-32 MiB where
 * 16 MiB kept 30-40 MiB, and was not slower (docs/PERFORMANCE.md).
 */
#define PCL_DROP_BATCH (8 * PCL_MIB)

/*
 * Snapshots run this many batches ahead of the reader (see dropper.c); the
 * windows left behind it bound how far behind the reader dropping may lag.
 */
#define PCL_DROPPER_SNAP_AHEAD 6
#define PCL_DROPPER_MAX_LAG (PCL_DROPPER_NWIN - PCL_DROPPER_SNAP_AHEAD - 2)

struct pcl_dropper {
	struct pcl_residency res;	/* how residency is told, or that it is not */
	uint64_t page;			/* the page size */
	uint64_t batch;			/* bytes per fadvise; a multiple of the page */
	uint64_t dropped_to;		/* pages below were dealt with */
	uint64_t snapped_to;		/* batches below this index are snapped */
	int warm;			/* the file had cached pages at init */
	/*
	 * Or, set by a follower that saw the reader late (the watcher):
	 * what was cached when it first saw it, never dropped; the file is
	 * then dropped as a cold one outside these.  NULL: none.
	 */
	const struct pcl_extents *keep;
	struct {
		uint64_t index;
		int valid;
		int any_cached;
		unsigned char *vec;	/* one byte per page, bit 0 = cached */
	} win[PCL_DROPPER_NWIN];
	uint64_t bytes_dropped;		/* bytes handed to POSIX_FADV_DONTNEED */
	int measure;			/* count bytes_evicted (a cachestat after each drop) */
	uint64_t bytes_evicted;		/* with measure: bytes that left the cache in the drops */
	uint64_t bytes_kept;		/* bytes left: cached before, or dirty */
	uint64_t bytes_unknown;		/* of bytes_dropped, residency unknown */
	uint64_t syscalls;
};

/*
 * Start dropping behind a reader of @fd at file offset @pos, @batch bytes at a
 * time.  One count of the whole file tells whether anything is cached at all;
 * only then are per-batch snapshots taken.  Returns 0 or -ENOMEM.
 */
int pcl_dropper_init(struct pcl_dropper *d, int fd, uint64_t batch, uint64_t pos);

/*
 * The same for a follower that knows what was cached (the watcher): no
 * count of the whole file (it walks every cached page: 0.1 s for 4 GiB),
 * no snapshots; everything read is dropped but @keep (NULL: nothing kept).
 * @keep must outlive the dropper.  Never fails.
 */
void pcl_dropper_init_kept(struct pcl_dropper *d, int fd, uint64_t batch, uint64_t pos,
			   const struct pcl_extents *keep);

/* Free what pcl_dropper_init() allocated. */
void pcl_dropper_release(struct pcl_dropper *d);

/*
 * About to read [@off, @off + @len) of @fd: snapshot which pages of the
 * batches it touches, and of the next, are cached now.  Cheap when the file
 * was cold at init (nothing to do).
 */
void pcl_dropper_before(struct pcl_dropper *d, int fd, uint64_t off, uint64_t len);

/* Forget what was read so far without dropping it: the reader starts over at
 * @pos (random access is left alone). */
void pcl_dropper_reset(struct pcl_dropper *d, uint64_t pos);

/*
 * The reader has consumed everything below @pos and jumps to @next: drop what
 * remains of [dropped_to, @pos) and continue from @next.
 */
void pcl_dropper_seek(struct pcl_dropper *d, int fd, uint64_t pos, uint64_t next);

/*
 * The reader has consumed everything below @pos.  Drops whole batches behind
 * it, or with @all everything up to @pos (rounded up to a page at end of file
 * or close).
 */
void pcl_dropper_advance(struct pcl_dropper *d, int fd, uint64_t pos, int all);

#endif
