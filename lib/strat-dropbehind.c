// SPDX-License-Identifier: MIT
/*
 * dropbehind: buffered reads, POSIX_FADV_DONTNEED over what has been read, in
 * batches behind the cursor, and POSIX_FADV_WILLNEED one batch ahead.  Works
 * on every kernel and file system.
 *
 * Pages cached before the stream touched them stay cached: before a batch is
 * read (and before it is hinted), the stream snapshots which of its pages are
 * cached, with one cachestat(2) call and, only when some are, mincore(2).  The
 * cost is bounded by the batch, whatever the size of the file.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* Which pages of one batch were cached before the stream read them. */
struct window {
	uint64_t index;			/* batch number: offset / batch */
	int valid;
	int any_cached;			/* vec holds residency; else none cached */
	unsigned char *vec;		/* one byte per page, bit 0 = cached */
};

struct dropbehind {
	uint64_t batch;
	uint64_t dropped_to;		/* everything below was dealt with */
	uint64_t snapped_to;		/* batches below this index are snapped */
	unsigned int nwin;
	struct window *win;		/* ring of snapshots, by index % nwin */
};

static struct window *window_of(struct dropbehind *d, uint64_t index)
{
	struct window *w = &d->win[index % d->nwin];

	return w->valid && w->index == index ? w : NULL;
}

/* Record which pages of batch @index are cached now. */
static int window_snap(struct pc_stream *s, struct dropbehind *d, uint64_t index)
{
	struct window *w = &d->win[index % d->nwin];
	uint64_t off = index * d->batch, pages = 0;
	int ret;

	w->index = index;
	w->valid = 1;
	w->any_cached = 0;
	if (!s->opts.keep_cached)
		return 0;
	s->stats.syscalls++;
	ret = pc_cachestat(s->fd, off, d->batch, &pages);
	if (ret && ret != -ENOSYS && ret != -EPERM)
		return ret;
	if (!ret && !pages)
		return 0;
	s->stats.syscalls += 2;
	ret = pc_mincore(s->fd, off, d->batch, w->vec);
	if (ret == -ENXIO || ret == -EINVAL)
		return 0;	/* batch past end of file: nothing cached */
	w->any_cached = !ret;
	return ret;
}

/* Snapshot every batch up to the one after @pos, and hint that one ahead. */
static int snap_ahead(struct pc_stream *s, struct dropbehind *d, uint64_t pos)
{
	uint64_t want = pos / d->batch + 2;
	int ret;

	if (d->snapped_to + d->nwin - 1 < want)
		d->snapped_to = want - (d->nwin - 1);
	while (d->snapped_to < want) {
		uint64_t index = d->snapped_to;

		ret = window_snap(s, d, index);
		if (ret)
			return ret;
		d->snapped_to++;
		if (index > pos / d->batch) {
			s->stats.syscalls++;
			posix_fadvise(s->fd, index * d->batch, d->batch,
				      POSIX_FADV_WILLNEED);
		}
	}
	return 0;
}

static void drop_range(struct pc_stream *s, uint64_t off, uint64_t len)
{
	if (!len)
		return;
	s->stats.syscalls++;
	if (!posix_fadvise(s->fd, off, len, POSIX_FADV_DONTNEED))
		s->stats.bytes_dropped += len;
}

/*
 * Drop [off, end) of one batch, leaving out the pages its snapshot says were
 * cached.  Without a snapshot (the batch was read out of order) it is left.
 */
static void drop_in_window(struct pc_stream *s, struct dropbehind *d,
			   uint64_t off, uint64_t end)
{
	struct window *w = window_of(d, off / d->batch);
	uint64_t base = pc_align_down(off, d->batch), run = off;

	if (!w) {
		s->stats.bytes_kept += end - off;
		return;
	}
	if (!w->any_cached) {
		drop_range(s, off, end - off);
		return;
	}
	for (uint64_t p = off; p < end; p += PC_PAGE_SIZE) {
		if (!(w->vec[(p - base) / PC_PAGE_SIZE] & 1))
			continue;
		drop_range(s, run, p - run);
		s->stats.bytes_kept += PC_PAGE_SIZE;
		run = p + PC_PAGE_SIZE;
	}
	drop_range(s, run, end - run);
}

/* Drop everything read below @to (page aligned), batch by batch. */
static void drop_upto(struct pc_stream *s, struct dropbehind *d, uint64_t to)
{
	while (d->dropped_to < to) {
		uint64_t end = pc_align_down(d->dropped_to, d->batch) + d->batch;

		if (end > to)
			end = to;
		drop_in_window(s, d, d->dropped_to, end);
		d->dropped_to = end;
	}
}

/* Read one piece of at most a batch, so that snapshots stay ahead of it. */
static ssize_t read_piece(struct pc_stream *s, struct dropbehind *d,
			  char *buf, size_t len, uint64_t off)
{
	uint64_t lag = s->opts.drop_lag, to;
	ssize_t n;
	int ret;

	ret = snap_ahead(s, d, off + len);
	if (ret)
		return ret;
	n = pc_full_pread(s->fd, buf, len, off, 0, &s->stats.syscalls);
	if (n <= 0)
		return n;
	to = off + n > lag ? pc_align_down(off + n - lag, PC_PAGE_SIZE) : 0;
	if (to >= pc_align_down(d->dropped_to, d->batch) + d->batch)
		drop_upto(s, d, to);
	return n;
}

static ssize_t dropbehind_read(struct pc_stream *s, void *buf, size_t len)
{
	struct dropbehind *d = s->priv;
	size_t done = 0;

	while (done < len) {
		size_t piece = len - done < d->batch ? len - done : d->batch;
		ssize_t n = read_piece(s, d, (char *)buf + done, piece,
				       s->pos + done);

		if (n < 0)
			return done ? (ssize_t)done : n;
		done += n;
		if ((size_t)n < piece)
			break;
	}
	return done;
}

/* At end of file the partial last page goes too. */
static void dropbehind_eof(struct pc_stream *s)
{
	struct dropbehind *d = s->priv;

	drop_upto(s, d, pc_align_up(s->pos, PC_PAGE_SIZE));
}

/*
 * A read off the cursor: snapshot its own range, read, and drop what was not
 * cached before.
 */
static ssize_t dropbehind_pread(struct pc_stream *s, void *buf, size_t len,
				uint64_t off)
{
	uint64_t start = pc_align_down(off, PC_PAGE_SIZE), pages = 1;
	ssize_t n;

	if (s->opts.keep_cached) {
		s->stats.syscalls++;
		if (pc_cachestat(s->fd, start, off + len - start, &pages))
			pages = 1;
	} else {
		pages = 0;
	}
	n = pc_full_pread(s->fd, buf, len, off, 0, &s->stats.syscalls);
	if (n > 0 && !pages)
		drop_range(s, start, pc_align_up(off + n, PC_PAGE_SIZE) - start);
	else if (n > 0)
		s->stats.bytes_kept += n;
	return n;
}

static void dropbehind_release(struct pc_stream *s)
{
	struct dropbehind *d = s->priv;

	if (!d)
		return;
	drop_upto(s, d, pc_align_down(s->pos, PC_PAGE_SIZE));
	for (unsigned int i = 0; d->win && i < d->nwin; i++)
		free(d->win[i].vec);
	free(d->win);
	free(d);
	s->priv = NULL;
}

static int dropbehind_init(struct pc_stream *s)
{
	struct dropbehind *d;

	d = calloc(1, sizeof(*d));
	if (!d)
		return -ENOMEM;
	s->priv = d;
	d->batch = s->opts.drop_batch;
	d->dropped_to = pc_align_down(s->pos, PC_PAGE_SIZE);
	d->snapped_to = s->pos / d->batch;
	d->nwin = s->opts.drop_lag / d->batch + 4;
	d->win = calloc(d->nwin, sizeof(*d->win));
	if (!d->win)
		goto out_nomem;
	for (unsigned int i = 0; i < d->nwin; i++) {
		d->win[i].vec = malloc(d->batch / PC_PAGE_SIZE);
		if (!d->win[i].vec)
			goto out_nomem;
	}
	return 0;
out_nomem:
	dropbehind_release(s);
	return -ENOMEM;
}

const struct pc_strategy_ops pc_strat_dropbehind = {
	.id = PC_DROPBEHIND,
	.name = "dropbehind",
	.fallback = PC_BUFFERED,
	.init = dropbehind_init,
	.read = dropbehind_read,
	.pread = dropbehind_pread,
	.eof = dropbehind_eof,
	.release = dropbehind_release,
};
