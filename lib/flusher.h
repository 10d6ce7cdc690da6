/* SPDX-License-Identifier: MIT */
/*
 * Write-behind for one writer: the library's dropbehind write strategy and the
 * preload shim tell the flusher each write they made; behind a sequential
 * writer it starts writeback of whole batches (sync_file_range WRITE) and,
 * a few batches later, waits for that writeback and evicts the batch
 * (POSIX_FADV_DONTNEED), so the page cache holds a few batches per writer.
 * Library-internal, not exported.
 *
 * Rules it keeps:
 * - Batches that held pages dirty (or under writeback) from someone else
 *   before this writer first wrote them are left alone: no writeback started,
 *   nothing dropped.  Pages cached (clean) before are kept where the flusher
 *   could tell which (the file had cached pages when it started), otherwise
 *   their whole batch is kept.
 * - A writeback error is never swallowed.  Waiting on the writer's own fd
 *   would advance its struct file's error sequence and hide the error from the
 *   program's later fsync, so the flusher waits through a file description of
 *   its own (the caller's @wait_fd, or one it opens read-only on
 *   /proc/self/fd/N), notes the first error and hands it back from
 *   pcl_flusher_wrote() / pcl_flusher_finish().  The writer's fd still sees the
 *   error at its fsync.  Without such a description it never waits: batches
 *   are dropped only as far as their writeback has completed.
 * - Any wait through a description marks the error seen, so a file opened
 *   later (`sync FILE` after `cp` exits) would no longer get it.  A caller
 *   that cannot hand the error on (the shim) passes PCL_FLUSHER_QUIET: the
 *   flusher then waits by polling cachestat(2) until the batch has left
 *   writeback, which touches no error sequence, and reports no error itself.
 * - No fsync, no flush of the device: it only starts writeback early and
 *   waits for writeback it started itself.
 * - Bounded state, allocated at init only; no allocation per write.
 *
 * The flusher opens and closes its description with raw system calls, so an
 * LD_PRELOAD shim that wraps open(2)/close(2) does not see them.
 */
#ifndef PCL_FLUSHER_H
#define PCL_FLUSHER_H

#include <stdint.h>

#include "internal.h"

/* Batches with writeback started that are not waited for yet. */
#define PCL_FLUSHER_INFLIGHT 3
/*
 * PCL_FLUSHER_POLL: batches with writeback started that are not dropped yet,
 * at most; the writer's next batches wait for their writeback to be started.
 */
#define PCL_FLUSHER_POLL_LAG 6
/* Batches a flusher remembers: in flight, being written, and snapped ahead. */
#define PCL_FLUSHER_NSLOT 16

struct pcl_flusher {
	int fd;				/* the writer's fd: writeback, fadvise, cachestat */
	int wait_fd;			/* our own description for waits, or -1 */
	int own_wait_fd;		/* wait_fd was opened by the flusher */
	int quiet;			/* PCL_FLUSHER_QUIET: wait by polling cachestat */
	int poll;			/* PCL_FLUSHER_POLL: never wait (see there) */
	int blind;			/* cachestat cannot see the file's pages
					 * (overlayfs, old kernel): mincore only */
	int wait_err;			/* why there is no wait_fd (-errno), or 0 */
	int err;			/* first writeback error not handed back yet */
	int warm;			/* the file had cached pages at init */
	uint64_t page;			/* sysconf(_SC_PAGESIZE) */
	uint64_t batch;			/* bytes per batch, a multiple of the page */
	uint64_t base;			/* the sequential run's batches start here */
	uint64_t cursor;		/* end of the last write of the run */
	uint64_t snapped;		/* batches [0, snapped) of the run were snapped */
	uint64_t started;		/* batches [0, started) had writeback started */
	uint64_t dropped;		/* batches [0, dropped) were waited and dropped */
	uint64_t adopted;		/* [base, adopted) was written by the writer
					 * before it was snapped (pcl_flusher_adopt) */
	struct {
		uint64_t index;		/* batch index in the run, valid when set */
		int valid;
		int state;		/* enum in flusher.c */
		unsigned char *vec;	/* warm files: one byte per page, bit 0 cached */
	} slot[PCL_FLUSHER_NSLOT];
	struct pcl_residency res;	/* how its drops are counted */
	int memory_fs;			/* tmpfs, ramfs: no writeback to start */
	uint64_t bytes_dropped;		/* bytes that left the cache in its drops, counted
					 * before and after each (not what it asked) */
	uint64_t bytes_unknown;		/* bytes asked to drop that could not be counted */
	uint64_t bytes_kept;		/* bytes left: someone else's, cached before */
	uint64_t bytes_flushed;		/* bytes whose writeback the flusher started */
	uint64_t syscalls;
};

/*
 * Start write-behind for a writer of @fd whose next write is at @pos, in
 * batches of @batch bytes (0: 8 MiB; rounded up to the page).  @wait_fd is a
 * description of the same file to wait through, which the flusher does not
 * close, -1 to have one opened, or PCL_FLUSHER_QUIET to wait without one.  Returns 0 or -ENOMEM; a missing wait
 * description is not an error (see wait_err).
 *
 * PCL_FLUSHER_POLL is PCL_FLUSHER_QUIET for a caller that follows many
 * writers from one thread (the watcher) and must not sleep on any: a batch
 * is dropped once cachestat(2) shows its writeback finished, asked at each
 * pcl_flusher_wrote() or pcl_flusher_poll(), never waited for; while
 * PCL_FLUSHER_POLL_LAG batches are in writeback no more is started (the
 * kernel writes the rest back as it would without us).  Where cachestat
 * cannot see the file's pages, it waits as PCL_FLUSHER_QUIET does.  Only
 * pcl_flusher_finish() still waits.
 */
#define PCL_FLUSHER_QUIET (-2)
#define PCL_FLUSHER_POLL (-3)

int pcl_flusher_init(struct pcl_flusher *f, int fd, int wait_fd, uint64_t batch,
		    uint64_t pos);

/*
 * About to write [@off, @off + @len): snapshot the batches it touches for
 * the first time (one cachestat(2) each).  A write that does not continue the
 * last one starts a new run (the old run's started batches are dealt with
 * first).  Batches of one write beyond what the flusher can remember are left
 * alone; writers should report pieces of at most a few batches.
 */
void pcl_flusher_before(struct pcl_flusher *f, uint64_t off, uint64_t len);

/*
 * The run up to @end was written by this writer before the flusher could
 * snap it (a stdio stream, seen only after its buffer went out): snapshots
 * take the pages below @end (rounded up to the page) as the writer's own,
 * not as someone else's dirty pages.  Call after pcl_flusher_wrote().
 */
void pcl_flusher_adopt(struct pcl_flusher *f, uint64_t end);

/*
 * @len bytes were written at @off (after pcl_flusher_before()).  Starts
 * writeback of batches completed behind the cursor, waits for and drops those
 * older than PCL_FLUSHER_INFLIGHT batches.  Returns 0, or the -errno of a
 * writeback error seen since the last call (each error is returned once).
 */
int pcl_flusher_wrote(struct pcl_flusher *f, uint64_t off, uint64_t len);

/*
 * PCL_FLUSHER_POLL: the writer has not moved since the last call; drop the
 * batches whose writeback finished, start the next ones.
 */
void pcl_flusher_poll(struct pcl_flusher *f);

/*
 * The writer is done (close).  For a run that passed at least one batch:
 * start writeback of the partial batch at the tail, wait for and drop the
 * batches whose writeback was started earlier, drop what of the tail has
 * completed already.  A shorter run is left to the kernel.  Returns 0 or the
 * -errno of a writeback error not returned yet.
 */
int pcl_flusher_finish(struct pcl_flusher *f);

/*
 * For a caller that keeps no description of the file between calls (the
 * watcher opens the file afresh per look, so that it never keeps a file
 * system busy): act through @fd from now on, a description of the same file
 * opened for this call (readable: residency is counted and writeback
 * waited for through it too), and -1 once it is closed again.  A
 * description the flusher opened for itself is closed here.
 */
void pcl_flusher_rebind(struct pcl_flusher *f, int fd);

/* Close the flusher's own description and free its state; never fails. */
void pcl_flusher_release(struct pcl_flusher *f);

#endif
