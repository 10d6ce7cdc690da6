// SPDX-License-Identifier: MIT
/*
 * direct's pipeline: a ring of slots, each a chunk-sized buffer; slots
 * head .. head + queued - 1 hold consecutive chunks of the file.  The consumer
 * takes bytes from the head slot; slots fully taken are refilled with the next
 * chunks, d->req side by side in one request (the depth tuner sets both the
 * slots in flight and the request size).  Reads are issued on aligned
 * boundaries and only the file's bytes are handed out, clamped to the file's
 * size at the moment they are handed out.  The end of the file is where a
 * plain read(2) would end then: a file that grew is read on, one that shrank
 * has its read-ahead read again.  Without a ring the same pipeline reads one
 * slot at a time, synchronously.
 */
#include <errno.h>
#include <sys/mman.h>

#include <liburing.h>

#include "direct.h"

/* Without a ring a slot is read at once, synchronously. */
static void slot_read_sync(struct pc_stream *s, struct direct *d, unsigned int i)
{
	struct slot *sl = &d->slots[i];

	sl->res = pcl_full_pread(d->dfd, sl->buf, d->chunk, sl->off, 0,
				&s->stats.syscalls);
	sl->avail = -1;
	sl->state = SLOT_DONE;
}

/*
 * Move the ring's span (nslots) to the tuner's depth once the slots in use
 * allow it: growing, when they do not wrap around the end; shrinking, when
 * they all lie under the new span.  Slots given up that are not registered
 * with the ring give their pages back.
 */
static void pipe_resize(struct direct *d)
{
	unsigned int end, old = d->nslots;

	if (!d->queued)
		d->head = 0;	/* nothing in the ring: start it at slot 0 */
	end = d->head + d->queued;

	if (d->want == old || (d->want > old && end > old) ||
	    (d->want < old && end > d->want))
		return;
	d->nslots = d->want;
	for (unsigned int i = d->nslots > d->nfixed ? d->nslots : d->nfixed; i < old; i++)
		madvise(d->slots[i].buf, d->chunk, MADV_DONTNEED);
}

/*
 * The slots the next request at slot @i reads: d->req of them, fewer where
 * the ring wraps or the file ends; 0 while fewer are free and reads are in
 * flight (the next completion frees more, and requests keep their size).
 */
static unsigned int req_slots(struct direct *d, unsigned int i)
{
	unsigned int span = d->nslots < d->want ? d->nslots : d->want;
	unsigned int n = d->have_ring ? d->req : 1, free = span - d->queued;
	uint64_t left;

	if (n > d->nslots - i)
		n = d->nslots - i;
	/* UINT64_MAX: the size is not known, the reads find the end */
	if (d->size != UINT64_MAX) {
		left = d->size > d->next_off ?
		       (d->size - d->next_off + d->chunk - 1) / d->chunk : 0;
		if (n > left)
			n = left;
	}
	if (n > free)
		n = d->queued ? 0 : free;
	return n;
}

/* Queue reads for every free slot, up to the end of the file. */
static int pipe_fill(struct pc_stream *s, struct direct *d)
{
	unsigned int prepped = 0, n;
	int ret;

	pipe_resize(d);
	while (d->queued < d->nslots && d->queued < d->want &&
	       d->next_off < d->size) {
		unsigned int i = (d->head + d->queued) % d->nslots;

		n = req_slots(d, i);
		if (!n)
			break;
		for (unsigned int j = 0; j < n; j++)
			d->slots[i + j].off = d->next_off + (uint64_t)j * d->chunk;
		if (d->have_ring)
			pcl_direct_slot_prep(d, i, n);
		else
			slot_read_sync(s, d, i);
		prepped++;
		d->queued += n;
		d->next_off += (uint64_t)n * d->chunk;
	}
	if (!d->have_ring || !prepped)
		return 0;
	ret = pcl_direct_submit(s, d);
	return ret == -ECANCELED ? 0 : ret;	/* restarts synchronously */
}

/* Wait for every read in flight: the kernel may still write the buffers. */
void pcl_direct_drain(struct pc_stream *s, struct direct *d)
{
	for (unsigned int i = 0; i < d->nmax && d->busy; i++) {
		while (d->slots[i].state == SLOT_BUSY && !pcl_direct_wait_slot(s, d, i))
			;
		if (d->slots[i].state == SLOT_BUSY)
			break;	/* the ring failed; nothing more to wait on */
	}
}

/* Stop the pipeline (what it read ahead is dropped) for reads of the caller's. */
void pcl_direct_idle(struct pc_stream *s, struct direct *d)
{
	pcl_direct_drain(s, d);
	for (unsigned int i = 0; i < d->nmax; i++)
		d->slots[i].state = SLOT_FREE;
	d->head = 0;
	d->queued = 0;
	d->restart = 1;
	d->win_t0 = 0;	/* the pipeline's timing starts over */
}

/* Rebuild the pipeline so that its head slot holds @pos. */
static void pipe_reset(struct pc_stream *s, struct direct *d, uint64_t pos)
{
	pcl_direct_idle(s, d);
	d->next_off = pcl_align_down(pos, d->align);
	d->head_used = pos - d->next_off;
	d->restart = 0;
	if (pcl_file_size(s->fd, &d->size))
		d->size = UINT64_MAX;
}

/*
 * Make the head slot ready and return how many bytes from its start it holds
 * (a short read finished, as far as the file went then): 0 when the pipeline
 * holds nothing, -errno on a read error.  pcl_direct_peek() clamps this to
 * the file's size at the moment it hands the bytes out.
 */
static ssize_t head_ready(struct pc_stream *s, struct direct *d, uint64_t pos)
{
	struct slot *sl;
	int ret;

	/* Around again when the ring is abandoned: then synchronously. */
	do {
		if (d->restart)
			pipe_reset(s, d, pos);
		ret = pipe_fill(s, d);
		if (ret)
			return ret;
	} while (d->restart);
	if (!d->queued)
		return 0;
	sl = &d->slots[d->head];	/* only now: a reset moves the head */
	if (sl->avail >= 0 && sl->state == SLOT_DONE)
		return sl->avail;
	ret = pcl_direct_wait_slot(s, d, d->head);
	if (ret)
		return ret;
	if (sl->res == -EAGAIN || sl->res == -EINTR)
		slot_read_sync(s, d, d->head);	/* refused for now: once more */
	if (sl->res < 0)
		return sl->res;
	sl->res = pcl_direct_complete_short(s, d, sl->buf, d->chunk, sl->res, sl->off);
	sl->avail = sl->res;
	return sl->avail;
}

/*
 * How often pcl_direct_peek() rebuilds the pipeline for one call when the
 * file changes under it (each rebuild reads at the cursor again).
 */
#define PEEK_TRIES 4

/*
 * The file's size now, and what it says of the pipeline: when the file shrank
 * under the size the pipeline was filled to, what it read ahead is dropped
 * (a truncate may be followed by new bytes at the same offsets: read them
 * again); when it grew, the pipeline goes on reading ahead into the growth.
 * Returns 1 when the pipeline must be rebuilt before its bytes are used.
 */
static int size_check(struct pc_stream *s, struct direct *d, uint64_t *ret_size)
{
	s->stats.syscalls++;
	if (pcl_file_size(s->fd, ret_size))
		*ret_size = UINT64_MAX;	/* unknown: the reads find the end */
	if (*ret_size < d->size) {
		d->restart = 1;
		return 1;
	}
	d->size = *ret_size;
	return 0;
}

/*
 * Bytes at @pos (the cursor) available in the head slot, waiting for them if
 * need be; *ret_ptr points at them.  They are clamped to the file's size at
 * this moment, so a file truncated after the pipeline read ahead yields no
 * bytes it no longer has.  0 (end of file) only where read(2) would return 0
 * now: a file that grew since the head slot was read, or past the size the
 * pipeline filled to, has the pipeline rebuilt at @pos to read the new bytes.
 */
ssize_t pcl_direct_peek(struct pc_stream *s, struct direct *d, uint64_t pos,
			 char **ret_ptr)
{
	uint64_t now;

	/* Rebuilding (after an end of file, say) at the end: nothing to read yet. */
	if (d->restart) {
		s->stats.syscalls++;
		if (!pcl_file_size(s->fd, &now) && pos >= now)
			return 0;
	}
	for (int tries = 1;; tries++) {
		ssize_t avail = head_ready(s, d, pos);
		uint64_t size, off;

		if (avail < 0) {
			d->restart = 1;
			return avail;
		}
		if (size_check(s, d, &size) && tries < PEEK_TRIES)
			continue;	/* shrunk: read at the cursor again */
		off = d->slots[d->head].off;
		if (avail > 0 && off + avail > size)
			avail = size > off ? (ssize_t)(size - off) : 0;
		if ((size_t)avail > d->head_used) {
			*ret_ptr = d->slots[d->head].buf + d->head_used;
			return avail - d->head_used;
		}
		d->restart = 1;	/* the next call looks again: the file may grow */
		if (size <= pos || tries == PEEK_TRIES)
			return 0;
	}
}

/* Retire the head slot: its bytes are all handed out and no longer lent. */
void pcl_direct_retire(struct direct *d)
{
	d->slots[d->head].state = SLOT_FREE;
	d->head = (d->head + 1) % d->nslots;
	d->queued--;
	d->head_used = 0;
	d->lent = 0;
}

/* The previous call's loan ends when the next call starts. */
void pcl_direct_loan_end(struct direct *d)
{
	if (d->lent)
		pcl_direct_retire(d);
}
