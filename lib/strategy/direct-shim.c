// SPDX-License-Identifier: MIT
/*
 * direct for the LD_PRELOAD shim (direct-shim.h): the strategy's own init,
 * next and release, without the stream core, which the shim does not link.
 * The shim lends the chunks at a cursor that the program's lseek() moves,
 * so a seek keeps what the pipeline read ahead where it can.  A program's
 * descriptor numbers and its fork() children are the shim's concern, not
 * the strategy's: the stream's descriptors go where the shim places them,
 * and its buffers are not inherited (a child never reads through them).
 * Its reads may be submitted by a thread of the caller's choosing: io_uring
 * sends its task work (completions, the creation of io-wq workers) to the
 * task that submitted, and that work interrupts whatever system call the
 * task is blocked in (a write(2) to a pipe then returns short), so the shim
 * submits from a thread of its own.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "direct-shim.h"
#include "direct.h"
#include "strategy.h"

extern const struct pcl_strategy_ops pcl_strat_direct;

/* Never deeper than @max_bytes of slots, nor shallower than the start. */
static void bound_depth(struct direct *d, uint64_t max_bytes)
{
	uint64_t max = max_bytes / d->chunk;

	if (max < d->nslots)
		max = d->nslots;
	if (max < d->dt.max)
		d->dt.max = (unsigned int)max;
}

/* The O_DIRECT descriptor and the ring's, where @place puts them. */
static void place_fds(struct direct *d, int (*place)(int fd))
{
	int fd;

	if (!place)
		return;
	fd = place(d->dfd);
	if (fd >= 0)
		d->dfd = fd;
	if (!d->have_ring)
		return;
	fd = place(d->ring.ring_fd);
	if (fd < 0)
		return;
	if (d->ring.enter_ring_fd == d->ring.ring_fd)
		d->ring.enter_ring_fd = fd;
	d->ring.ring_fd = fd;
}

int pcl_direct_open(struct pc_stream **ret_stream, int fd, uint64_t pos,
		    uint64_t max_bytes, int (*place_fd)(int fd),
		    int (*submit)(struct io_uring *ring), char *reason, size_t size)
{
	struct pc_stream *s = calloc(1, sizeof(*s));
	struct direct *d;
	int ret;

	if (!s)
		return -ENOMEM;
	*s = (struct pc_stream){ .fd = fd, .regular = 1, .pos = pos,
				 .ops = &pcl_strat_direct };
	s->opts.strategy = PC_DIRECT;
	s->opts.chunk_size = PCL_MIB;
	s->opts.inflight = 8;
	s->opts.keep_cached = 1;
	s->stats.strategy = s->stats.requested = PC_DIRECT;
	ret = pcl_direct_init(s);
	if (ret) {
		snprintf(reason, size, "%s", s->stats.reason);
		free(s);
		return ret;
	}
	d = s->priv;
	bound_depth(d, max_bytes);
	d->submit = submit;
	place_fds(d, place_fd);
	s->fd = d->dfd;	/* its own from now on: the caller's number may be closed or reused */
	madvise(d->bufs, pcl_align_up(d->bufs_size, pcl_page_size()), MADV_DONTFORK);
	*ret_stream = s;
	return 0;
}

ssize_t pcl_direct_next(struct pc_stream *s, const void **ret_data)
{
	ssize_t n = s->ops->next(s, ret_data);

	if (n > 0) {
		s->pos += n;
		s->stats.bytes_read += n;
	}
	return n;
}

/*
 * @pos lies in what the pipeline holds: at or after the head slot's start
 * and within the slots queued.  Skip the slots before it (each waited for
 * if still in flight: a slot freed while the kernel writes it could be
 * queued again and completed by the old read) and point into the one
 * holding it.  0 when it does not, or a wait failed.
 */
static int seek_within(struct pc_stream *s, struct direct *d, uint64_t pos)
{
	uint64_t skip;

	if (d->restart || !d->queued || pos < d->slots[d->head].off)
		return 0;
	skip = (pos - d->slots[d->head].off) / d->chunk;
	if (skip >= d->queued)
		return 0;
	while (skip--) {
		if (d->slots[d->head].state == SLOT_BUSY &&
		    pcl_direct_wait_slot(s, d, d->head))
			return 0;
		pcl_direct_retire(d);
	}
	d->head_used = pos - d->slots[d->head].off;
	return 1;
}

void pcl_direct_seek(struct pc_stream *s, uint64_t pos)
{
	struct direct *d = s->priv;

	pcl_direct_loan_end(d);
	if (pos == s->pos)
		return;
	if (!seek_within(s, d, pos))
		d->restart = 1;
	s->pos = pos;
}

void pcl_direct_forget(struct pc_stream *s)
{
	struct direct *d = s->priv;

	pcl_direct_loan_end(d);
	d->restart = 1;
}

int pcl_direct_fds(const struct pc_stream *s, int ret_fds[2])
{
	const struct direct *d = s->priv;
	int n = 0;

	ret_fds[n++] = d->dfd;
	if (d->have_ring)
		ret_fds[n++] = d->ring.ring_fd;
	return n;
}

const struct pc_stats *pcl_direct_stats(const struct pc_stream *s)
{
	return &s->stats;
}

void pcl_direct_close(struct pc_stream *s)
{
	if (!s)
		return;
	pcl_direct_release(s);
	free(s);
}

void pcl_direct_abandon(struct pc_stream *s)
{
	struct direct *d;

	if (!s)
		return;
	d = s->priv;
	if (d) {
		if (d->have_ring)
			pcl_ring_exit(&d->ring);	/* unmaps and closes: no io_uring_enter() */
		if (d->dfd >= 0)
			close(d->dfd);
		free(d->slots);
		free(d->pieces);
		free(d);
	}
	free(s);
}
