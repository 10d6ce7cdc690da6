// SPDX-License-Identifier: MIT
/*
 * pcl_dropper: drop-behind behind a reader, shared by the dropbehind strategy
 * and the preload shim: evict what was read in batches, keep pages that were
 * cached before they were read, and never evict a range holding dirty or
 * writeback pages, because POSIX_FADV_DONTNEED would start writeback the
 * program did not ask for.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"
#include "dropper.h"

/* The residency of a range, counted; -errno when it cannot be told. */
static int cstat(struct pcl_dropper *d, int fd, uint64_t off, uint64_t len,
		 struct pcl_cachestat *ret)
{
	d->syscalls++;
	return pcl_residency_count(&d->res, fd, off, len, ret);
}

int pcl_dropper_init(struct pcl_dropper *d, int fd, uint64_t batch, uint64_t pos)
{
	struct pcl_cachestat cs;

	*d = (struct pcl_dropper){ 0 };
	pcl_residency_init(&d->res, fd);
	d->page = d->res.page;
	d->batch = pcl_align_up(batch ? batch : PCL_DROP_BATCH, d->page);
	d->dropped_to = pcl_align_down(pos, d->page);
	d->snapped_to = pos / d->batch;
	/* Residency unknown: nothing can be kept, no snapshots. */
	if (d->res.how == PCL_RES_UNKNOWN)
		return 0;
	d->warm = cstat(d, fd, 0, 0, &cs) || cs.nr_cache;
	if (!d->warm)
		return 0;
	for (int i = 0; i < PCL_DROPPER_NWIN; i++) {
		d->win[i].vec = malloc(d->batch / d->page);
		if (!d->win[i].vec) {
			pcl_dropper_release(d);
			return -ENOMEM;
		}
	}
	return 0;
}

void pcl_dropper_init_kept(struct pcl_dropper *d, int fd, uint64_t batch, uint64_t pos,
			   const struct pcl_extents *keep)
{
	*d = (struct pcl_dropper){ 0 };
	pcl_residency_init(&d->res, fd);
	d->page = d->res.page;
	d->batch = pcl_align_up(batch ? batch : PCL_DROP_BATCH, d->page);
	d->dropped_to = pcl_align_down(pos, d->page);
	d->snapped_to = pos / d->batch;
	d->keep = keep;
}

void pcl_dropper_release(struct pcl_dropper *d)
{
	for (int i = 0; i < PCL_DROPPER_NWIN; i++) {
		free(d->win[i].vec);
		d->win[i].vec = NULL;
	}
}

/* Record which pages of batch @index are cached now. */
static void snap(struct pcl_dropper *d, int fd, uint64_t index)
{
	int slot = index % PCL_DROPPER_NWIN;
	uint64_t off = index * d->batch;
	struct pcl_cachestat cs;
	int ret;

	d->win[slot].index = index;
	d->win[slot].valid = 1;
	d->win[slot].any_cached = 0;
	ret = cstat(d, fd, off, d->batch, &cs);
	if (!ret && !cs.nr_cache)
		return;
	d->syscalls += 3;
	ret = pcl_mincore(fd, off, d->batch, d->win[slot].vec);
	/* Past end of file nothing is cached; other failures: keep all. */
	if (ret == -ENXIO || ret == -EINVAL)
		return;
	d->win[slot].any_cached = 1;
	if (ret)
		memset(d->win[slot].vec, 1, d->batch / d->page);
}

/*
 * Snapshots run PCL_DROPPER_SNAP_AHEAD batches ahead of the reader, so that
 * readahead has not brought a batch in before its snapshot (those pages
 * would look as if they were cached before).  Measured here: read_ahead_kb
 * 8192, doubled by POSIX_FADV_SEQUENTIAL (cat does that), and async
 * readahead one window further: pages up to 32 MiB ahead of the reader.
 */
void pcl_dropper_before(struct pcl_dropper *d, int fd, uint64_t off, uint64_t len)
{
	uint64_t first = off / d->batch;
	uint64_t want = (off + len) / d->batch + PCL_DROPPER_SNAP_AHEAD;

	if (!d->warm)
		return;
	if (d->snapped_to < first)
		d->snapped_to = first;
	if (want - d->snapped_to > PCL_DROPPER_NWIN - 1)
		d->snapped_to = want - (PCL_DROPPER_NWIN - 1);
	for (; d->snapped_to < want; d->snapped_to++)
		snap(d, fd, d->snapped_to);
}

/* Of @before pages cached in [off, off + len), the bytes no longer there. */
static uint64_t evicted(struct pcl_dropper *d, int fd, uint64_t off, uint64_t len,
			uint64_t before)
{
	struct pcl_cachestat cs;

	if (cstat(d, fd, off, len, &cs))
		return 0;
	return before > cs.nr_cache ? (before - cs.nr_cache) * d->page : 0;
}

/*
 * fadvise [off, off + len) away unless it holds dirty or writeback pages
 * (known with cachestat only) or nothing at all.  When residency cannot be
 * told it goes anyway, and is counted as dropped without knowing.
 */
static void drop_now(struct pcl_dropper *d, int fd, uint64_t off, uint64_t len)
{
	struct pcl_cachestat cs;
	int known;

	if (!len)
		return;
	known = !cstat(d, fd, off, len, &cs);
	if (known) {
		if (cs.nr_dirty || cs.nr_writeback) {
			d->bytes_kept += len;
			return;
		}
		if (!cs.nr_cache)
			return;
	}
	d->syscalls++;
	if (posix_fadvise(fd, off, len, POSIX_FADV_DONTNEED))
		return;
	d->bytes_dropped += len;
	if (!known)
		d->bytes_unknown += len;
	else if (d->measure)
		d->bytes_evicted += evicted(d, fd, off, len, cs.nr_cache);
}

struct drop_arg {
	struct pcl_dropper *d;
	int fd;
};

static void drop_gap(void *arg, uint64_t off, uint64_t len)
{
	struct drop_arg *a = arg;

	drop_now(a->d, a->fd, off, len);
}

/* drop_now() outside what the follower keeps (pcl_dropper.keep). */
static void drop_range(struct pcl_dropper *d, int fd, uint64_t off, uint64_t len)
{
	struct drop_arg a = { d, fd };

	if (!d->keep) {
		drop_now(d, fd, off, len);
		return;
	}
	d->bytes_kept += pcl_extents_split(d->keep, off, len, drop_gap, &a);
}

/* Drop [off, end) inside one batch, skipping pages its snapshot has cached. */
static void drop_in_batch(struct pcl_dropper *d, int fd, uint64_t off, uint64_t end)
{
	uint64_t index = off / d->batch, base = index * d->batch, run = off;
	int slot = index % PCL_DROPPER_NWIN;

	if (!d->warm) {
		drop_range(d, fd, off, end - off);
		return;
	}
	if (!d->win[slot].valid || d->win[slot].index != index) {
		d->bytes_kept += end - off;	/* not snapped: read out of order */
		return;
	}
	if (!d->win[slot].any_cached) {
		drop_range(d, fd, off, end - off);
		return;
	}
	for (uint64_t p = off; p < end; p += d->page) {
		if (!(d->win[slot].vec[(p - base) / d->page] & 1))
			continue;
		drop_range(d, fd, run, p - run);
		d->bytes_kept += d->page;
		run = p + d->page;
	}
	drop_range(d, fd, run, end - run);
}

static void drop_upto(struct pcl_dropper *d, int fd, uint64_t to)
{
	while (d->dropped_to < to) {
		uint64_t end = pcl_align_down(d->dropped_to, d->batch) + d->batch;

		if (end > to)
			end = to;
		drop_in_batch(d, fd, d->dropped_to, end);
		d->dropped_to = end;
	}
}

/*
 * Second chance for the last batch dropped: pages still referenced when it
 * was dropped (splice(2) hands page references to a pipe) are released by
 * now.  Costs one cachestat(2) when nothing is left.  Cold files only: the
 * snapshots of a warm file's old batches are gone.
 */
static void second_chance(struct pcl_dropper *d, int fd)
{
	uint64_t from = d->dropped_to > d->batch ? d->dropped_to - d->batch : 0;
	uint64_t counted = d->bytes_dropped, unknown = d->bytes_unknown, kept = d->bytes_kept;

	if (!d->warm && d->dropped_to > from)
		drop_range(d, fd, from, d->dropped_to - from);
	d->bytes_dropped = counted;	/* counted the first time */
	d->bytes_unknown = unknown;
	d->bytes_kept = kept;
}

void pcl_dropper_advance(struct pcl_dropper *d, int fd, uint64_t pos, int all)
{
	uint64_t to = all ? pcl_align_up(pos, d->page) : pcl_align_down(pos, d->batch);

	if (to <= d->dropped_to && !all)
		return;
	second_chance(d, fd);
	drop_upto(d, fd, to);
	if (all)
		second_chance(d, fd);
}

void pcl_dropper_reset(struct pcl_dropper *d, uint64_t pos)
{
	d->dropped_to = pcl_align_down(pos, d->page);
	d->snapped_to = pos / d->batch;
}

void pcl_dropper_seek(struct pcl_dropper *d, int fd, uint64_t pos, uint64_t next)
{
	drop_upto(d, fd, pcl_align_down(pos, d->page));
	pcl_dropper_reset(d, next);
}
