// SPDX-License-Identifier: MIT
/*
 * direct: O_DIRECT reads through io_uring with several chunks in flight ahead
 * of the consumer, into page-aligned buffers registered with the ring.  The
 * page cache is never touched.  Without io_uring the same pipeline runs one
 * synchronous O_DIRECT read at a time.
 *
 * The pipeline is a ring of slots, each a chunk-sized buffer; slots
 * head .. head + queued - 1 hold consecutive chunks of the file.  The consumer
 * takes bytes from the head slot; a slot fully taken is refilled with the next
 * chunk.  Offsets, lengths and the file's tail need no alignment from the
 * caller: reads are issued on aligned boundaries and only the file's bytes are
 * handed out, clamped to the file's current size.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <sys/mman.h>

#include <liburing.h>

#include "direct-tune.h"
#include "internal.h"

enum slot_state { SLOT_FREE, SLOT_BUSY, SLOT_DONE };

struct slot {
	char *buf;
	uint64_t off;			/* file offset of buf[0] */
	ssize_t res;			/* bytes read, or -errno */
	ssize_t avail;			/* bytes of the file in it, once checked */
	enum slot_state state;
};

/* user_data of a read into the caller's buffer: this bit and its piece. */
#define USER_PIECE (1ull << 63)

/* Reads into the caller's buffer from this size on (see user_read()). */
#define USER_READ_MIN (64u * 1024)

/*
 * Copy-API reads into an aligned buffer can go two ways: straight into the
 * caller's buffer (no copy, but only that buffer's bytes in flight) or
 * through the pipeline (inflight chunks in flight, then a memcpy).  Which is
 * faster depends on the device: one that wants many bytes in flight favours
 * the pipeline, a fast one that leaves the CPU the bottleneck favours the
 * caller's buffer.  The stream times each way over TUNE_TRIAL bytes, keeps
 * the faster for TUNE_KEEP bytes, and tries again.
 */
#define TUNE_TRIAL (128ull << 20)
#define TUNE_KEEP (1ull << 30)

enum way { WAY_USER, WAY_PIPE };

struct tune {
	int trial;			/* trying each way, else keeping one */
	enum way way;			/* the way now */
	uint64_t bytes;			/* read this way since @t0 */
	double t0;
	double rate[2];			/* bytes per second each way scored */
};

struct piece {
	size_t len;
	ssize_t res;
	int done;
};

struct direct {
	int dfd;			/* the O_DIRECT descriptor */
	uint32_t align;			/* offset and length alignment */
	uint32_t mem_align;		/* buffer alignment */
	size_t chunk;			/* bytes per slot, a multiple of align */
	unsigned int nslots;
	struct slot *slots;
	char *bufs;			/* the slots' buffers */
	size_t bufs_size;
	struct io_uring ring;
	int have_ring;
	int fixed_bufs;
	unsigned int head;		/* slot holding the cursor */
	unsigned int queued;		/* slots in the pipeline from head */
	unsigned int busy;		/* submitted and not yet completed */
	uint64_t next_off;		/* where the next slot will read */
	uint64_t size;			/* file size as last seen */
	size_t head_used;		/* bytes of the head slot handed out */
	int restart;			/* rebuild the pipeline at the cursor */
	int lent;			/* the head slot is on loan to the caller */
	char *bounce;			/* pread()'s buffer, chunk bytes */
	struct piece *pieces;		/* nslots reads into a caller's buffer */
	unsigned int pieces_busy;
	struct tune tune;
	unsigned int nmax;		/* slots allocated: the most in flight */
	unsigned int want;		/* the tuner's depth: slots to keep busy */
	unsigned int nfixed;		/* slots 0 .. nfixed - 1 are registered */
	struct pc_tune_depth dt;
	uint64_t win_bytes;		/* handed out by the pipeline this window */
	double win_t0;			/* when the window began, 0: not begun */
};

static void slot_prep(struct direct *d, unsigned int i)
{
	struct slot *sl = &d->slots[i];
	struct io_uring_sqe *sqe = io_uring_get_sqe(&d->ring);

	/* The ring has a slot's worth of entries: never NULL here. */
	if (d->fixed_bufs && i < d->nfixed)
		io_uring_prep_read_fixed(sqe, 0, sl->buf, d->chunk, sl->off, i);
	else
		io_uring_prep_read(sqe, 0, sl->buf, d->chunk, sl->off);
	sqe->flags |= IOSQE_FIXED_FILE;
	io_uring_sqe_set_data64(sqe, i);
	sl->state = SLOT_BUSY;
	sl->avail = -1;
	d->busy++;
}

/* Without a ring a slot is read at once, synchronously. */
static void slot_read_sync(struct pc_stream *s, struct direct *d, unsigned int i)
{
	struct slot *sl = &d->slots[i];

	sl->res = pcl_full_pread(d->dfd, sl->buf, d->chunk, sl->off, 0,
				&s->stats.syscalls);
	sl->avail = -1;
	sl->state = SLOT_DONE;
}

/* How often a refused submission (EAGAIN, ENOMEM) is tried again. */
#define SUBMIT_TRIES 6

static void reap_one(struct direct *d, struct io_uring_cqe *cqe);
static int reap(struct pc_stream *s, struct direct *d);

/*
 * Give up on the ring after it refused submissions for good: wait for what
 * the kernel did take, then run the pipeline synchronously from the cursor.
 */
static void ring_abandon(struct pc_stream *s, struct direct *d, int err)
{
	while (d->busy + d->pieces_busy > io_uring_sq_ready(&d->ring) &&
	       !reap(s, d))
		;
	pcl_ring_exit(&d->ring);
	d->have_ring = 0;
	d->fixed_bufs = 0;
	d->busy = d->pieces_busy = 0;
	d->nslots = d->want = 1;
	d->restart = 1;
	pcl_add_reason(s, "io_uring submissions refused (%s): synchronous O_DIRECT",
		      strerror(-err));
}

/*
 * Submit what is queued; a refusal for want of memory is tried again after
 * a pause, and a lasting one abandons the ring (returns -ECANCELED).
 */
static int ring_submit(struct pc_stream *s, struct direct *d)
{
	int ret;

	for (int tries = 0;; tries++) {
		s->stats.syscalls++;
		ret = io_uring_submit(&d->ring);
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

/* Queue reads for every free slot, up to the end of the file. */
static int pipe_fill(struct pc_stream *s, struct direct *d)
{
	unsigned int prepped = 0;
	int ret;

	pipe_resize(d);
	while (d->queued < d->nslots && d->queued < d->want &&
	       d->next_off < d->size) {
		unsigned int i = (d->head + d->queued) % d->nslots;

		d->slots[i].off = d->next_off;
		if (d->have_ring)
			slot_prep(d, i);
		else
			slot_read_sync(s, d, i);
		prepped++;
		d->queued++;
		d->next_off += d->chunk;
	}
	if (!d->have_ring || !prepped)
		return 0;
	ret = ring_submit(s, d);
	return ret == -ECANCELED ? 0 : ret;	/* restarts synchronously */
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
	sl = &d->slots[data];
	sl->res = cqe->res;
	sl->state = SLOT_DONE;
	d->busy--;
}

/* Wait for at least one completion and reap every one there is. */
static int reap(struct pc_stream *s, struct direct *d)
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
static int wait_slot(struct pc_stream *s, struct direct *d, unsigned int i)
{
	int ret;

	while (d->slots[i].state == SLOT_BUSY) {
		ret = reap(s, d);
		if (ret)
			return ret;
	}
	return 0;
}

/* Wait for every read in flight: the kernel may still write the buffers. */
static void pipe_drain(struct pc_stream *s, struct direct *d)
{
	for (unsigned int i = 0; i < d->nmax && d->busy; i++) {
		while (d->slots[i].state == SLOT_BUSY && !wait_slot(s, d, i))
			;
		if (d->slots[i].state == SLOT_BUSY)
			break;	/* the ring failed; nothing more to wait on */
	}
}

/* Rebuild the pipeline so that its head slot holds @pos. */
static void pipe_reset(struct pc_stream *s, struct direct *d, uint64_t pos)
{
	pipe_drain(s, d);
	for (unsigned int i = 0; i < d->nmax; i++)
		d->slots[i].state = SLOT_FREE;
	d->head = 0;
	d->queued = 0;
	d->win_t0 = 0;
	d->next_off = pc_align_down(pos, d->align);
	d->head_used = pos - d->next_off;
	d->restart = 0;
	if (pcl_file_size(s->fd, &d->size))
		d->size = UINT64_MAX;
}

/* One O_DIRECT pread of [@at, @off + @len) into @buf at @at - @off. */
static ssize_t dio_pread(struct pc_stream *s, struct direct *d, char *buf,
			 size_t len, uint64_t off, uint64_t at)
{
	ssize_t n;

	do {
		s->stats.syscalls++;
		n = pread(d->dfd, buf + (at - off), len - (at - off), at);
	} while (n < 0 && errno == EINTR);
	return n < 0 ? -errno : n;
}

/*
 * Last resort for a short read that O_DIRECT cannot finish: a buffered read,
 * and its pages dropped again unless some were cached before.
 */
static ssize_t buffered_rest(struct pc_stream *s, char *buf, size_t len,
			     uint64_t at)
{
	uint64_t page = pc_page_size(), start = pc_align_down(at, page);
	struct pcl_cachestat cs = { .nr_cache = 1 };
	ssize_t n;

	s->stats.syscalls++;
	pcl_cachestat(s->fd, start, at + len - start, &cs);
	n = pcl_full_pread(s->fd, buf, len, at, 0, &s->stats.syscalls);
	if (n > 0 && !cs.nr_cache) {
		s->stats.syscalls++;
		posix_fadvise(s->fd, start, pc_align_up(at + n, page) - start,
			      POSIX_FADV_DONTNEED);
	}
	return n;
}

/*
 * A read that came back with @got of @len bytes before the end of the file
 * (a FUSE server, say): read the rest through the O_DIRECT descriptor, so
 * that the page cache stays out of it.  Each retry starts at the aligned
 * offset at or below what is missing (@off is aligned, and so is @buf); a
 * server that keeps answering short from there is asked at the exact offset
 * (FUSE takes any), and only a file system that refuses both is read
 * buffered, with the pages dropped after.  Returns the bytes now in @buf.
 */
static ssize_t complete_short(struct pc_stream *s, struct direct *d, char *buf,
			      size_t len, size_t got, uint64_t off)
{
	uint64_t size;
	ssize_t n;

	while (got < len && !pcl_file_size(s->fd, &size) && off + got < size) {
		uint64_t at = pc_align_down(off + got, d->align);

		if ((at - off) % d->mem_align)
			at = off + got;
		n = dio_pread(s, d, buf, len, off, at);
		if (n > 0 && at - off + n > got) {
			got = at - off + n;
			continue;
		}
		if (at != off + got)
			n = dio_pread(s, d, buf, len, off, off + got);
		if (n == -EINVAL)
			n = buffered_rest(s, buf + got, len - got, off + got);
		if (n <= 0)
			break;
		got += n;
	}
	return got;
}

/* Resubmit a slot whose read was refused for now. */


/*
 * Make the head slot ready and return how many of its bytes belong to the
 * file now: 0 at end of file, -errno on a read error.
 */
static ssize_t head_ready(struct pc_stream *s, struct direct *d, uint64_t pos)
{
	struct slot *sl;
	uint64_t size;
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
	ret = wait_slot(s, d, d->head);
	if (ret)
		return ret;
	if (sl->res == -EAGAIN || sl->res == -EINTR)
		slot_read_sync(s, d, d->head);	/* refused for now: once more */
	if (sl->res < 0)
		return sl->res;
	sl->res = complete_short(s, d, sl->buf, d->chunk, sl->res, sl->off);
	/* Never hand out bytes the file no longer has (it may have shrunk). */
	if (pcl_file_size(s->fd, &size))
		size = UINT64_MAX;
	sl->avail = sl->res;
	if (sl->off + sl->res > size)
		sl->avail = size > sl->off ? (ssize_t)(size - sl->off) : 0;
	return sl->avail;
}

/*
 * Bytes at @pos (the cursor) available in the head slot, waiting for them if
 * need be; *ret_ptr points at them.  0 at end of file.
 */
static ssize_t head_peek(struct pc_stream *s, struct direct *d, uint64_t pos,
			 char **ret_ptr)
{
	ssize_t avail = head_ready(s, d, pos);

	if (avail < 0) {
		d->restart = 1;
		return avail;
	}
	if ((size_t)avail <= d->head_used) {
		d->restart = 1;	/* next call looks again: the file may grow */
		return 0;
	}
	*ret_ptr = d->slots[d->head].buf + d->head_used;
	return avail - d->head_used;
}

/* Retire the head slot: its bytes are all handed out and no longer lent. */
static void head_retire(struct direct *d)
{
	d->slots[d->head].state = SLOT_FREE;
	d->head = (d->head + 1) % d->nslots;
	d->queued--;
	d->head_used = 0;
	d->lent = 0;
}

/* The previous call's loan ends when the next call starts. */
static void loan_end(struct direct *d)
{
	if (d->lent)
		head_retire(d);
}

/* Queue the pieces of [off, off + len) into @buf; returns how many. */
static unsigned int user_prep(struct direct *d, char *buf, size_t len,
			      uint64_t off)
{
	size_t piece = pc_align_up((len + d->nslots - 1) / d->nslots, d->align);
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
		p->res = complete_short(s, d, buf + total, p->len, p->res, off + total);
		total += p->res;
		if ((size_t)p->res < p->len)
			break;
	}
	return total;
}

/*
 * The copy API with an aligned buffer: read straight into the caller's
 * memory, the range split into up to `inflight` reads in flight at once, so
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
		len = pc_align_up(size - pos, d->align);
	np = user_prep(d, buf, len, pos);
	ret = ring_submit(s, d);
	if (ret == -ECANCELED)
		return ret;	/* the ring is gone: the caller goes on without */
	while (ret >= 0 && d->pieces_busy)
		ret = reap(s, d);
	if (ret < 0) {
		while (d->pieces_busy && !reap(s, d))
			;
		return ret;
	}
	n = user_collect(s, d, buf, np, pos);
	/* As the pipeline: never bytes the file no longer has. */
	if (n > 0 && !pcl_file_size(s->fd, &size) && pos + n > size)
		n = size > pos ? (ssize_t)(size - pos) : 0;
	return n;
}

static int user_read_fits(struct pc_stream *s, struct direct *d, void *buf,
			  size_t len)
{
	return d->have_ring && !d->lent && len >= USER_READ_MIN &&
	       len % d->align == 0 && s->pos % d->align == 0 &&
	       (uintptr_t)buf % d->mem_align == 0;
}

static double now_sec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Start timing @way from now. */
static void tune_start(struct tune *t, enum way way, double now)
{
	t->way = way;
	t->bytes = 0;
	t->t0 = now;
}

/*
 * The way for the next read: score the way in use once it has read its
 * share (the time includes the caller's between reads), then move on to the
 * next trial, or keep the faster way, or go back to trying.
 */
static enum way tune_way(struct tune *t)
{
	uint64_t share = t->trial ? TUNE_TRIAL : TUNE_KEEP;
	double now;

	if (t->t0 == 0) {
		t->trial = 1;
		tune_start(t, WAY_USER, now_sec());
		return t->way;
	}
	if (t->bytes < share)
		return t->way;
	now = now_sec();
	if (!t->trial) {
		t->trial = 1;
		tune_start(t, WAY_USER, now);
	} else if (t->way == WAY_USER) {
		t->rate[WAY_USER] = t->bytes / (now - t->t0 + 1e-9);
		tune_start(t, WAY_PIPE, now);
	} else {
		t->rate[WAY_PIPE] = t->bytes / (now - t->t0 + 1e-9);
		t->trial = 0;
		tune_start(t, t->rate[WAY_PIPE] > t->rate[WAY_USER] ? WAY_PIPE : WAY_USER,
			   now);
	}
	return t->way;
}

/*
 * A window of the depth tuner: at least 64 MiB, 4 x the bytes in flight and
 * 100 ms (on the VM's disk 32 MiB windows varied 10-fold at one depth).
 */
#define WIN_BYTES (64ull << 20)
#define WIN_SEC 0.1

/*
 * Count @n bytes handed out by the pipeline; when the window is full, hand
 * its rate to the tuner, which sets the depth of the next one.  The time
 * includes the caller's between reads: a consumer slower than the device
 * sees no gain from depth, and depth does not grow.
 */
static void depth_account(struct direct *d, size_t n)
{
	uint64_t need = 4ull * d->want * d->chunk;
	double now, sec;

	if (!d->have_ring || d->dt.min == d->dt.max)
		return;
	if (d->win_t0 == 0) {
		d->win_t0 = now_sec();
		d->win_bytes = 0;
		return;	/* from the first read on: the ramp is not counted */
	}
	d->win_bytes += n;
	if (d->win_bytes < (need > WIN_BYTES ? need : WIN_BYTES))
		return;
	now = now_sec();
	sec = now - d->win_t0;
	if (sec < WIN_SEC)
		return;
	d->want = pcl_tune_depth_step(&d->dt, d->win_bytes / sec);
	d->win_t0 = now;
	d->win_bytes = 0;
}

/* Stop the pipeline (what it read ahead is dropped) for reads of the caller's. */
static void pipe_idle(struct pc_stream *s, struct direct *d)
{
	pipe_drain(s, d);
	for (unsigned int i = 0; i < d->nmax; i++)
		d->slots[i].state = SLOT_FREE;
	d->head = 0;
	d->queued = 0;
	d->restart = 1;
	d->win_t0 = 0;	/* the pipeline's timing starts over */
}

/* Read straight into the caller's buffer when it fits and is the faster way. */
static ssize_t direct_read_user(struct pc_stream *s, struct direct *d,
				void *buf, size_t len)
{
	ssize_t n;

	if (d->queued)
		pipe_idle(s, d);
	n = user_read(s, d, buf, len);
	if (n > 0)
		d->tune.bytes += n;
	return n;
}

static ssize_t direct_read(struct pc_stream *s, void *buf, size_t len)
{
	struct direct *d = s->priv;
	size_t done = 0;

	loan_end(d);
	if (user_read_fits(s, d, buf, len)) {
		if (tune_way(&d->tune) == WAY_USER) {
			ssize_t n = direct_read_user(s, d, buf, len);

			if (n != -ECANCELED)
				return n;
		}
		d->tune.bytes += len;	/* the pipeline's turn (end of file aside) */
	}
	while (done < len) {
		char *p;
		ssize_t n = head_peek(s, d, s->pos + done, &p);

		if (n < 0)
			return done ? (ssize_t)done : n;
		if (n == 0)
			break;
		if ((size_t)n > len - done)
			n = len - done;
		memcpy((char *)buf + done, p, n);
		depth_account(d, n);
		d->head_used += n;
		if (d->head_used == d->chunk)
			head_retire(d);
		done += n;
	}
	return done;
}

/* Lend the rest of the head slot; it is retired when the loan ends. */
static ssize_t direct_next(struct pc_stream *s, const void **ret_data)
{
	struct direct *d = s->priv;
	char *p;
	ssize_t n;

	loan_end(d);
	n = head_peek(s, d, s->pos, &p);
	if (n <= 0)
		return n;
	*ret_data = p;
	depth_account(d, n);
	d->head_used += n;
	d->lent = d->head_used == d->chunk;
	return n;
}

/* Off-cursor reads go synchronously through an aligned bounce buffer. */
static ssize_t direct_pread(struct pc_stream *s, void *buf, size_t len,
			    uint64_t off)
{
	struct direct *d = s->priv;
	size_t done = 0;

	if (!d->bounce) {
		d->bounce = pc_buf_alloc(d->chunk);
		if (!d->bounce)
			return -ENOMEM;
	}
	while (done < len) {
		uint64_t at = off + done, base = pc_align_down(at, d->align);
		size_t want = pc_align_up(at + (len - done), d->align) - base;
		ssize_t n;

		if (want > d->chunk)
			want = d->chunk;
		n = pcl_full_pread(d->dfd, d->bounce, want, base, 0,
				  &s->stats.syscalls);
		if (n < 0)
			return done ? (ssize_t)done : n;
		if ((uint64_t)n <= at - base)
			break;
		size_t take = n - (at - base);

		if (take > len - done)
			take = len - done;
		memcpy((char *)buf + done, d->bounce + (at - base), take);
		done += take;
		if ((size_t)n < want)
			break;	/* end of file */
	}
	return done;
}

static void direct_release(struct pc_stream *s)
{
	struct direct *d = s->priv;

	if (!d)
		return;
	if (d->have_ring) {
		pipe_drain(s, d);
		pcl_ring_exit(&d->ring);
	}
	pc_buf_free(d->bufs, d->bufs_size);
	pc_buf_free(d->bounce, d->chunk);
	free(d->slots);
	free(d->pieces);
	if (d->dfd >= 0)
		close(d->dfd);
	free(d);
	s->priv = NULL;
}

static int ring_setup(struct pc_stream *s, struct direct *d)
{
	struct iovec *iov;
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
	/* Only the starting depth is registered: pinned memory stays small. */
	d->nfixed = d->nslots;
	iov = calloc(d->nfixed, sizeof(*iov));
	if (!iov)
		return 0;
	for (unsigned int i = 0; i < d->nfixed; i++) {
		iov[i].iov_base = d->slots[i].buf;
		iov[i].iov_len = d->chunk;
	}
	/* Pinned once, not per read; plain reads when the kernel refuses. */
	d->fixed_bufs = !io_uring_register_buffers(&d->ring, iov, d->nfixed);
	free(iov);
	return 0;
}

static int open_direct(struct pc_stream *s, struct direct *d)
{
	uint32_t mem_align = pc_page_size(), off_align = pc_page_size();

	d->dfd = pcl_reopen_direct(s->fd);
	if (d->dfd < 0) {
		pcl_set_reason(s, "O_DIRECT refused (%s)", strerror(-d->dfd));
		return d->dfd == -ENOMEM ? -ENOMEM : -EOPNOTSUPP;
	}
	/* Without STATX_DIOALIGN a page covers every logical block size. */
	pcl_dio_align(s->fd, &mem_align, &off_align);
	if (mem_align > pc_page_size() || pc_page_size() % mem_align) {
		pcl_set_reason(s, "O_DIRECT wants %u-byte buffers", mem_align);
		return -EOPNOTSUPP;
	}
	d->align = off_align;
	d->mem_align = mem_align;
	d->chunk = pc_align_up(s->opts.chunk_size,
			       off_align > pc_page_size() ? off_align : pc_page_size());
	return 0;
}

static int alloc_slots(struct direct *d)
{
	d->slots = calloc(d->nmax, sizeof(*d->slots));
	d->pieces = calloc(d->nmax, sizeof(*d->pieces));
	d->bufs_size = (size_t)d->nmax * d->chunk;
	d->bufs = pc_buf_alloc(d->bufs_size);
	if (!d->slots || !d->pieces || !d->bufs)
		return -ENOMEM;
	for (unsigned int i = 0; i < d->nmax; i++)
		d->slots[i].buf = d->bufs + (size_t)i * d->chunk;
	return 0;
}

/*
 * Bound the bytes in flight: at most PC_DIRECT_INFLIGHT_MAX in all, the chunk
 * shrunk to it when larger, and never more slots or a larger chunk than the
 * file needs now (a 300 MB file does not need 8 x 1 GiB).  The buffers are
 * pinned when registered with the ring, so every byte of them is resident.
 */
static void bound_inflight(struct pc_stream *s, struct direct *d)
{
	uint64_t unit = d->align > pc_page_size() ? d->align : pc_page_size();
	uint64_t size = 0, need, cap = PC_DIRECT_INFLIGHT_MAX;
	size_t chunk = d->chunk;

	pcl_file_size(s->fd, &size);
	need = pc_align_up(size ? size : 1, unit);
	if (cap < unit)
		cap = unit;
	/* Over the bound: smaller chunks first (not under 1 MiB), to keep depth. */
	if ((uint64_t)d->chunk * s->opts.inflight > cap) {
		uint64_t fit = cap / s->opts.inflight;

		if (fit < PC_MIB)
			fit = PC_MIB;
		fit = pc_align_up(fit, unit);
		if (fit < d->chunk)
			d->chunk = fit;
	}
	if (d->chunk > cap)
		d->chunk = pc_align_down(cap, unit);
	if (d->chunk > need)
		d->chunk = need;
	d->nslots = s->opts.inflight;
	if (d->nslots > cap / d->chunk)
		d->nslots = cap / d->chunk;
	if (d->nslots > (need + d->chunk - 1) / d->chunk)
		d->nslots = (need + d->chunk - 1) / d->chunk;
	if (!d->nslots)
		d->nslots = 1;
	/* The tuner may go as deep as the bound and the file allow. */
	d->nmax = cap / d->chunk;
	if (d->nmax > (need + d->chunk - 1) / d->chunk)
		d->nmax = (need + d->chunk - 1) / d->chunk;
	if (d->nmax < d->nslots)
		d->nmax = d->nslots;
	d->want = d->nslots;
	/*
	 * Never under the starting depth: on the loaded RAM testbed, window
	 * noise let probes down to 2 pass as "no loss" and cost 10-25%.
	 */
	pcl_tune_depth_init(&d->dt, d->nslots, d->nslots, d->nmax);
	if (d->chunk != chunk || d->nslots != s->opts.inflight)
		pcl_add_reason(s, "%u x %zu KiB in flight (the file and a %u MiB bound)",
			      d->nslots, d->chunk >> 10,
			      (unsigned int)(PC_DIRECT_INFLIGHT_MAX >> 20));
}

static int direct_init(struct pc_stream *s)
{
	struct direct *d;
	int ret;

	d = calloc(1, sizeof(*d));
	if (!d)
		return -ENOMEM;
	s->priv = d;
	d->dfd = -1;
	ret = open_direct(s, d);
	if (ret)
		goto out_release;
	bound_inflight(s, d);
	ret = alloc_slots(d);
	if (ret)
		goto out_release;
	ret = ring_setup(s, d);
	if (ret) {
		/* One slot: a synchronous read at a time. */
		pcl_add_reason(s, "io_uring unavailable (%s): synchronous O_DIRECT",
			      strerror(-ret));
		d->nslots = d->want = 1;
	}
	d->restart = 1;
	return 0;
out_release:
	direct_release(s);
	return ret;
}

const struct pcl_strategy_ops pcl_strat_direct = {
	.id = PC_DIRECT,
	.name = "direct",
	.fallback = PC_DROPBEHIND,
	.init = direct_init,
	.read = direct_read,
	.pread = direct_pread,
	.next = direct_next,
	.release = direct_release,
};
