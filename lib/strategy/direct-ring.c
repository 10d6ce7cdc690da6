// SPDX-License-Identifier: MIT
/*
 * direct's ring: reads queued on io_uring, submitted (a refusal for want of
 * memory tried again, a lasting one giving the ring up for synchronous
 * reads), and their completions reaped into the slots and pieces they were
 * for.  Set up once per stream with the file and the starting depth's
 * buffers registered.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <liburing.h>

#include "direct.h"

/* How often a refused submission (EAGAIN, ENOMEM) is tried again. */
#define SUBMIT_TRIES 6

/*
 * One read into slots @i .. @i + @n - 1, which lie side by side in memory
 * and hold consecutive chunks of the file: a request of @n chunks.
 */
void pcl_direct_slot_prep(struct direct *d, unsigned int i, unsigned int n)
{
	struct slot *sl = &d->slots[i];
	struct io_uring_sqe *sqe = io_uring_get_sqe(&d->ring);
	size_t len = (size_t)n * d->chunk;

	/* The ring has an entry for each of the nmax slots: never NULL here. */
	if (d->fixed_bufs && i + n <= d->nfixed)
		io_uring_prep_read_fixed(sqe, 0, sl->buf, len, sl->off, 0);
	else
		io_uring_prep_read(sqe, 0, sl->buf, len, sl->off);
	sqe->flags |= IOSQE_FIXED_FILE;
	io_uring_sqe_set_data64(sqe, SLOT_DATA(i, n));
	for (unsigned int j = 0; j < n; j++) {
		sl[j].state = SLOT_BUSY;
		sl[j].avail = -1;
	}
	d->busy++;
}

/*
 * Give up on the ring after it refused submissions for good: wait for what
 * the kernel did take, then run the pipeline synchronously from the cursor.
 */
static void ring_abandon(struct pc_stream *s, struct direct *d, int err)
{
	while (d->busy + d->pieces_busy > io_uring_sq_ready(&d->ring) &&
	       !pcl_direct_reap(s, d))
		;
	pcl_ring_exit(&d->ring);
	d->have_ring = 0;
	d->fixed_bufs = 0;
	d->busy = d->pieces_busy = 0;
	d->nslots = d->want = d->req = 1;
	d->restart = 1;
	pcl_add_reason(s, "io_uring submissions refused (%s): synchronous O_DIRECT",
		      strerror(-err));
}

/*
 * Submit what is queued; a refusal for want of memory is tried again after
 * a pause, and a lasting one abandons the ring (returns -ECANCELED).
 */
int pcl_direct_submit(struct pc_stream *s, struct direct *d)
{
	int ret;

	for (int tries = 0;; tries++) {
		s->stats.syscalls++;
		ret = d->submit ? d->submit(&d->ring) : io_uring_submit(&d->ring);
		if (ret >= 0)
			return 0;
		if (ret != -EAGAIN && ret != -ENOMEM && ret != -EINTR)
			break;
		if (tries == SUBMIT_TRIES)
			break;
		if (ret != -EINTR)
			usleep(1000u << tries);
	}
	ring_abandon(s, d, ret);
	return -ECANCELED;
}

static void reap_one(struct direct *d, struct io_uring_cqe *cqe)
{
	uint64_t data = io_uring_cqe_get_data64(cqe);
	struct slot *sl;

	if (data & USER_PIECE) {
		d->pieces[data & ~USER_PIECE].res = cqe->res;
		d->pieces[data & ~USER_PIECE].done = 1;
		d->pieces_busy--;
		return;
	}
	/*
	 * Each slot of the request gets its share: a short read ends early.  A
	 * failed request of several slots does not say which one failed: each is
	 * read again on its own (as a read refused for now), so that the bytes
	 * before a bad one still reach the caller and its error is its own.
	 */
	sl = &d->slots[SLOT_FIRST(data)];
	for (unsigned int j = 0; j < SLOT_COUNT(data); j++) {
		int64_t got = cqe->res - (int64_t)j * d->chunk;

		if (cqe->res < 0)
			sl[j].res = SLOT_COUNT(data) > 1 ? -EAGAIN : cqe->res;
		else
			sl[j].res = got < 0 ? 0 : got > (int64_t)d->chunk ? (ssize_t)d->chunk : got;
		sl[j].state = SLOT_DONE;
	}
	d->busy--;
}

/* Wait for at least one completion and reap every one there is. */
int pcl_direct_reap(struct pc_stream *s, struct direct *d)
{
	struct io_uring_cqe *cqe;
	unsigned int head, n = 0;
	int ret;

	s->stats.syscalls++;
	ret = io_uring_wait_cqe(&d->ring, &cqe);
	if (ret)
		return ret == -EINTR ? 0 : ret;
	io_uring_for_each_cqe(&d->ring, head, cqe) {
		reap_one(d, cqe);
		n++;
	}
	io_uring_cq_advance(&d->ring, n);
	return 0;
}

/* Wait until slot @i has completed, reaping whatever else has too. */
int pcl_direct_wait_slot(struct pc_stream *s, struct direct *d, unsigned int i)
{
	int ret;

	while (d->slots[i].state == SLOT_BUSY) {
		ret = pcl_direct_reap(s, d);
		if (ret)
			return ret;
	}
	return 0;
}

int pcl_direct_ring_setup(struct pc_stream *s, struct direct *d)
{
	struct iovec iov;
	int ret;

	ret = pcl_ring_init(d->nmax, &d->ring);
	if (ret)
		return ret;
	ret = io_uring_register_files(&d->ring, &d->dfd, 1);
	if (ret) {
		pcl_ring_exit(&d->ring);
		return ret;
	}
	d->have_ring = 1;
	/*
	 * Only the starting depth is registered: pinned memory stays small.  One
	 * buffer for all of its slots, so that a request of several slots is one
	 * fixed read.
	 */
	d->nfixed = d->nslots;
	iov.iov_base = d->slots[0].buf;
	iov.iov_len = (size_t)d->nfixed * d->chunk;
	/* Pinned once, not per read; plain reads when the kernel refuses. */
	d->fixed_bufs = !io_uring_register_buffers(&d->ring, &iov, 1);
	return 0;
}
