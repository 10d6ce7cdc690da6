// SPDX-License-Identifier: MIT
/*
 * direct's reads into the caller's buffer: a copy-API read of an aligned
 * buffer, offset and length is split into pieces read by the ring straight
 * into the caller's memory, so nothing is copied.
 */
#include <errno.h>
#include <stdint.h>

#include <liburing.h>

#include "direct.h"

/* Reads into the caller's buffer from this size on (see user_read()). */
#define USER_READ_MIN (64u * 1024)

/* Queue the pieces of [off, off + len) into @buf; returns how many. */
static unsigned int user_prep(struct direct *d, char *buf, size_t len,
			      uint64_t off)
{
	size_t piece = pcl_align_up((len + d->nslots - 1) / d->nslots, d->align);
	unsigned int k = 0;

	for (size_t at = 0; at < len; at += piece, k++) {
		struct io_uring_sqe *sqe = io_uring_get_sqe(&d->ring);

		d->pieces[k].len = len - at < piece ? len - at : piece;
		d->pieces[k].done = 0;
		io_uring_prep_read(sqe, 0, buf + at, d->pieces[k].len, off + at);
		sqe->flags |= IOSQE_FIXED_FILE;
		io_uring_sqe_set_data64(sqe, USER_PIECE | k);
		d->pieces_busy++;
	}
	return k;
}

/* Add up the pieces in order, stopping at the first short one (the end). */
static ssize_t user_collect(struct pc_stream *s, struct direct *d, char *buf,
			    unsigned int np, uint64_t off)
{
	size_t total = 0;

	for (unsigned int k = 0; k < np; k++) {
		struct piece *p = &d->pieces[k];

		if (p->res == -EAGAIN || p->res == -EINTR)
			p->res = pcl_full_pread(d->dfd, buf + total, p->len,
					       off + total, 0, &s->stats.syscalls);
		if (p->res < 0)
			return total ? (ssize_t)total : p->res;
		p->res = pcl_direct_complete_short(s, d, buf + total, p->len, p->res, off + total);
		total += p->res;
		if ((size_t)p->res < p->len)
			break;
	}
	return total;
}

/*
 * The copy API with an aligned buffer: read straight into the caller's
 * memory, the range split into up to nslots reads in flight at once, so
 * nothing is copied.  Used while the pipeline is idle.
 */
static ssize_t user_read(struct pc_stream *s, struct direct *d, char *buf,
			 size_t len)
{
	uint64_t size, pos = s->pos;
	unsigned int np;
	ssize_t n;
	int ret;

	if (pcl_file_size(s->fd, &size))
		return -EIO;
	if (pos >= size)
		return 0;
	if (len > size - pos)
		len = pcl_align_up(size - pos, d->align);
	np = user_prep(d, buf, len, pos);
	ret = pcl_direct_submit(s, d);
	if (ret == -ECANCELED)
		return ret;	/* the ring is gone: the caller goes on without */
	while (ret >= 0 && d->pieces_busy)
		ret = pcl_direct_reap(s, d);
	if (ret < 0) {
		while (d->pieces_busy && !pcl_direct_reap(s, d))
			;
		return ret;
	}
	n = user_collect(s, d, buf, np, pos);
	/* As the pipeline: never bytes the file no longer has. */
	if (n > 0 && !pcl_file_size(s->fd, &size) && pos + n > size)
		n = size > pos ? (ssize_t)(size - pos) : 0;
	return n;
}

int pcl_direct_user_fits(struct pc_stream *s, struct direct *d, void *buf,
			  size_t len)
{
	return d->have_ring && !d->lent && len >= USER_READ_MIN &&
	       len % d->align == 0 && s->pos % d->align == 0 &&
	       (uintptr_t)buf % d->mem_align == 0;
}

/* Read straight into the caller's buffer when it fits and is the faster way. */
ssize_t pcl_direct_read_user(struct pc_stream *s, struct direct *d,
				void *buf, size_t len)
{
	ssize_t n;

	if (d->queued)
		pcl_direct_idle(s, d);
	n = user_read(s, d, buf, len);
	if (n > 0)
		d->tune.bytes += n;
	return n;
}
