// SPDX-License-Identifier: MIT
/*
 * direct writes: O_DIRECT through io_uring, several chunk-sized writes in
 * flight from aligned buffers of the stream's, through a description of the
 * file of our own.  The aligned blocks of each write go direct; the bytes
 * before the first and after the last aligned block ("edges", less than the
 * alignment each) are written buffered, so that every byte is handed to the
 * kernel before the call returns and the file ends up exactly the bytes
 * written.  Edges are written back and evicted in groups (at the latest at
 * close) unless their pages were cached before.
 *
 * Writes in flight never overlap a later write: one that would waits first.
 * A direct write that fails is returned by the next call or by close, and
 * close leaves the file as sequential write(2) calls would have: what later
 * writes in flight put past the failure and past the file's first size is
 * cut.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include <liburing.h>

#include "internal.h"
#include "wstrategy.h"

#define EDGES_MAX 16
#define EDGES_BYTES (1u * PCL_MIB)	/* evict edges once they hold this much */

struct wslot {
	char *buf;
	uint64_t off;
	size_t len;
	int busy;
};

struct edge {
	uint64_t lo, hi;		/* page-aligned range holding edge bytes */
	int keep;			/* cached before: not ours to evict */
};

struct wdirect {
	int dfd;			/* O_WRONLY | O_DIRECT, our own */
	struct io_uring ring;
	uint64_t align;			/* offset and length alignment */
	uint64_t page;
	unsigned int nslots, busy;
	int lent;			/* slot lent by lend(), or -1 */
	struct wslot *slots;
	char *bufs;			/* the slots' buffers, one mapping */
	size_t bufs_size;
	struct edge edges[EDGES_MAX];
	unsigned int nedges;
	uint64_t edge_bytes;
	uint64_t size0;			/* the file's size when the stream began */
	uint64_t gap;			/* first byte a failed write left unwritten,
					 * UINT64_MAX none */
};

/* A write at @off failed: nothing is sure past it. */
static void note_gap(struct wdirect *d, uint64_t off)
{
	if (off < d->gap)
		d->gap = off;
}

/* Finish a short direct write synchronously; 0 or -errno. */
static int complete_short(struct pc_wstream *s, struct wdirect *d,
			  struct wslot *sl, size_t done)
{
	while (done < sl->len) {
		ssize_t n;

		s->stats.syscalls++;
		n = pwrite(d->dfd, sl->buf + done, sl->len - done, sl->off + done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			note_gap(d, sl->off + done);
			return n < 0 ? -errno : -EIO;
		}
		done += n;
	}
	return 0;
}

static void edge_add(struct pc_wstream *s, struct wdirect *d, uint64_t lo,
		     uint64_t hi, int keep);

/*
 * A direct write refused for space: write the slot buffered instead, as an
 * edge that is written back and evicted.  XFS frees the blocks of deleted
 * files lazily and makes room on ENOSPC only in its buffered write path, so
 * plain write(2) succeeds where a direct write fails; a file system that is
 * really full fails the buffered write too, and that error is kept.
 */
static int retry_buffered(struct pc_wstream *s, struct wdirect *d, struct wslot *sl)
{
	ssize_t n = pcl_wfull_pwrite(s, sl->buf, sl->len, sl->off, 0, NULL);

	if (n < (ssize_t)sl->len)
		note_gap(d, sl->off + (n > 0 ? (uint64_t)n : 0));
	if (n < 0)
		return (int)n;
	edge_add(s, d, sl->off, pcl_align_up(sl->off + n, d->page), 0);
	return 0;	/* short: pcl_wfull_pwrite() kept the kernel's errno */
}

static void reap(struct pc_wstream *s, struct wdirect *d, struct io_uring_cqe *cqe)
{
	struct wslot *sl = &d->slots[io_uring_cqe_get_data64(cqe)];
	int res = cqe->res;

	if (res == -ENOSPC)
		pcl_wnote_err(s, retry_buffered(s, d, sl));
	else if (res < 0) {
		note_gap(d, sl->off);
		pcl_wnote_err(s, res);
	}
	else if ((size_t)res < sl->len)
		pcl_wnote_err(s, complete_short(s, d, sl, res));
	sl->busy = 0;
	d->busy--;
}

/* Wait for at least one write in flight to complete. */
static void wait_one(struct pc_wstream *s, struct wdirect *d)
{
	struct io_uring_cqe *cqe;
	int ret;

	do {
		s->stats.syscalls++;
		ret = io_uring_wait_cqe(&d->ring, &cqe);
	} while (ret == -EINTR);
	if (ret < 0) {
		pcl_wnote_err(s, ret);
		return;
	}
	reap(s, d, cqe);
	io_uring_cqe_seen(&d->ring, cqe);
}

static void wait_all(struct pc_wstream *s, struct wdirect *d)
{
	while (d->busy)
		wait_one(s, d);
}

/* Wait until no write in flight touches [lo, hi). */
static void wait_overlaps(struct pc_wstream *s, struct wdirect *d,
			  uint64_t lo, uint64_t hi)
{
	for (unsigned int i = 0; i < d->nslots; i++)
		while (d->slots[i].busy && d->slots[i].off < hi &&
		       d->slots[i].off + d->slots[i].len > lo)
			wait_one(s, d);
}

/* A slot neither in flight nor lent, waiting for one if need be. */
static int free_slot(struct pc_wstream *s, struct wdirect *d)
{
	for (;;) {
		for (unsigned int i = 0; i < d->nslots; i++)
			if (!d->slots[i].busy && (int)i != d->lent)
				return i;
		wait_one(s, d);
	}
}

/* Hand slot @i, holding @len bytes for @off, to the kernel. */
static int submit(struct pc_wstream *s, struct wdirect *d, int i, uint64_t off,
		  size_t len)
{
	struct wslot *sl = &d->slots[i];
	struct io_uring_sqe *sqe = io_uring_get_sqe(&d->ring);
	int ret;

	if (!sqe)
		return -EBUSY;	/* cannot happen: one entry per slot */
	sl->off = off;
	sl->len = len;
	io_uring_prep_write(sqe, d->dfd, sl->buf, len, off);
	io_uring_sqe_set_data64(sqe, i);
	do {
		s->stats.syscalls++;
		ret = io_uring_submit(&d->ring);
	} while (ret == -EINTR);
	if (ret < 0) {
		/* Not submitted: write it here instead. */
		return complete_short(s, d, sl, 0);
	}
	sl->busy = 1;
	d->busy++;
	return 0;
}

/* Write back and evict the edges, but those cached before. */
static void flush_edges(struct pc_wstream *s, struct wdirect *d)
{
	for (unsigned int i = 0; i < d->nedges; i++) {
		struct edge *e = &d->edges[i];

		if (e->keep) {
			s->stats.bytes_kept += e->hi - e->lo;
			continue;
		}
		s->stats.syscalls += 2;
		if (sync_file_range(d->dfd, e->lo, e->hi - e->lo,
				    SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE |
				    SYNC_FILE_RANGE_WAIT_AFTER) < 0 && errno != EINTR)
			pcl_wnote_err(s, -errno);
		if (!posix_fadvise(d->dfd, e->lo, e->hi - e->lo, POSIX_FADV_DONTNEED))
			s->stats.bytes_dropped += e->hi - e->lo;
	}
	d->nedges = 0;
	d->edge_bytes = 0;
}

/* An edge whose pages [lo, hi) touch ours is ours; else ask the cache. */
static int edge_keep(struct pc_wstream *s, struct wdirect *d, uint64_t lo, uint64_t hi)
{
	struct pcl_cachestat cs;

	for (unsigned int i = 0; i < d->nedges; i++)
		if (d->edges[i].lo < hi && d->edges[i].hi > lo)
			return d->edges[i].keep;
	s->stats.syscalls++;
	return pcl_cachestat(s->fd, lo, hi - lo, &cs) || cs.nr_cache;
}

static void edge_add(struct pc_wstream *s, struct wdirect *d, uint64_t lo,
		     uint64_t hi, int keep)
{
	struct edge *last = d->nedges ? &d->edges[d->nedges - 1] : NULL;

	if (last && last->keep == keep && lo <= last->hi && hi >= last->lo) {
		d->edge_bytes += (hi > last->hi ? hi - last->hi : 0) +
				 (lo < last->lo ? last->lo - lo : 0);
		last->lo = lo < last->lo ? lo : last->lo;
		last->hi = hi > last->hi ? hi : last->hi;
	} else {
		if (d->nedges == EDGES_MAX)
			flush_edges(s, d);
		d->edges[d->nedges++] = (struct edge){ lo, hi, keep };
		d->edge_bytes += hi - lo;
	}
	if (d->edge_bytes >= EDGES_BYTES)
		flush_edges(s, d);
}

/* Write @len (< align) bytes at @off buffered, remembered as an edge. */
static ssize_t write_edge(struct pc_wstream *s, struct wdirect *d,
			  const char *buf, size_t len, uint64_t off)
{
	uint64_t lo = pcl_align_down(off, d->page), hi = pcl_align_up(off + len, d->page);
	int keep = edge_keep(s, d, lo, hi);
	ssize_t n = pcl_wfull_pwrite(s, buf, len, off, 0, NULL);

	if (n > 0)
		edge_add(s, d, lo, hi, keep);
	return n;
}

/* Write the aligned @len bytes at @off direct, chunk by chunk. */
static ssize_t write_blocks(struct pc_wstream *s, struct wdirect *d,
			    const char *buf, size_t len, uint64_t off)
{
	size_t done = 0;

	while (done < len) {
		size_t n = len - done < s->chunk ? len - done : s->chunk;
		int i = free_slot(s, d), ret;

		memmove(d->slots[i].buf, buf + done, n);	/* buf may be this slot */
		ret = submit(s, d, i, off + done, n);
		if (ret)
			return done ? (ssize_t)done : ret;
		done += n;
	}
	return done;
}

static ssize_t wdirect_pwrite(struct pc_wstream *s, const void *vbuf, size_t len,
			      uint64_t off)
{
	struct wdirect *d = s->priv;
	const char *buf = vbuf;
	size_t head = off % d->align ? d->align - off % d->align : 0, mid, done = 0;
	ssize_t n;

	head = head < len ? head : len;
	mid = pcl_align_down(len - head, d->align);
	wait_overlaps(s, d, off, off + len);
	if (head) {
		n = write_edge(s, d, buf, head, off);
		if (n < (ssize_t)head)
			return n;
		done = head;
	}
	if (mid) {
		n = write_blocks(s, d, buf + done, mid, off + done);
		if (n < (ssize_t)mid)
			return n < 0 && !done ? n : (ssize_t)(done + (n > 0 ? n : 0));
		done += mid;
	}
	if (done < len) {
		n = write_edge(s, d, buf + done, len - done, off + done);
		if (n < 0)
			return done ? (ssize_t)done : n;
		done += n;
	}
	return done;
}

static void *wdirect_lend(struct pc_wstream *s, int *ret_err)
{
	struct wdirect *d = s->priv;

	d->lent = -1;
	d->lent = free_slot(s, d);
	return d->slots[d->lent].buf;
}

/* An aligned piece goes straight from the lent buffer; others are copied. */
static ssize_t wdirect_commit(struct pc_wstream *s, size_t len, uint64_t off)
{
	struct wdirect *d = s->priv;
	int i = d->lent, ret;
	ssize_t n;

	if (i < 0)
		return -EINVAL;
	if (off % d->align || len % d->align) {
		/*
		 * Written as by pwrite: the edges buffered, the blocks copied into
		 * a slot, which may be this very one (a stream with one slot):
		 * write_blocks() moves them down, below the tail it reads last.
		 */
		d->lent = -1;
		n = wdirect_pwrite(s, d->slots[i].buf, len, off);
		return n;
	}
	d->lent = -1;
	wait_overlaps(s, d, off, off + len);
	ret = submit(s, d, i, off, len);
	return ret ? ret : (ssize_t)len;
}

/*
 * After a failed write, cut what writes in flight beside it put past it,
 * down to the file's first size at the least: bytes the stream itself
 * added, which sequential write(2) calls would never have written.
 */
static void cut_past_gap(struct pc_wstream *s, struct wdirect *d)
{
	uint64_t to = d->gap > d->size0 ? d->gap : d->size0;
	struct stat st;

	if (d->gap == UINT64_MAX)
		return;
	s->stats.syscalls++;
	if (fstat(s->fd, &st) || (uint64_t)st.st_size <= to)
		return;
	s->stats.syscalls++;
	if (ftruncate(s->fd, (off_t)to))
		pcl_wnote_err(s, -errno);
}

static int wdirect_drain(struct pc_wstream *s)
{
	struct wdirect *d = s->priv;

	wait_all(s, d);
	flush_edges(s, d);
	return 0;
}

/* At close: the writes drained, and what a failure left past it cut. */
static int wdirect_finish(struct pc_wstream *s)
{
	wdirect_drain(s);
	cut_past_gap(s, s->priv);
	return 0;
}

/*
 * The slots side by side in one buffer, of small pages: a write stream's
 * length is not known ahead, and the first touch of huge pages costs more
 * than they win on a short one (lib/buf.c).  A 1 MiB write reaches the VM's
 * disk in one or two requests either way.
 */
static int alloc_slots(struct wdirect *d, unsigned int n, size_t chunk)
{
	d->slots = calloc(n, sizeof(*d->slots));
	if (!d->slots)
		return -ENOMEM;
	d->bufs_size = (size_t)n * chunk;
	d->bufs = pcl_buf_map(d->bufs_size, 0);
	if (!d->bufs)
		return -ENOMEM;
	d->nslots = n;
	for (unsigned int i = 0; i < n; i++)
		d->slots[i].buf = d->bufs + (size_t)i * chunk;
	return 0;
}

static void wdirect_release(struct pc_wstream *s)
{
	struct wdirect *d = s->priv;

	if (!d)
		return;
	if (d->ring.ring_fd >= 0)
		pcl_ring_exit(&d->ring);
	pcl_buf_unmap(d->bufs, d->bufs_size, 0);
	free(d->slots);
	if (d->dfd >= 0)
		close(d->dfd);
	free(d);
	s->priv = NULL;
}

/*
 * Direct blocks are whole pages (or the O_DIRECT alignment, when larger), so
 * that an edge's page never holds bytes a direct write covers: the kernel
 * cannot invalidate a dirty page under a direct write, warns of corruption
 * and sets EIO on the file.
 */
static void set_align(struct pc_wstream *s, struct wdirect *d)
{
	uint32_t mem, offa;

	d->align = d->page;
	s->stats.syscalls++;
	if (!pcl_dio_align(d->dfd, &mem, &offa) && offa > d->page && offa % d->page == 0)
		d->align = offa;
	s->chunk = pcl_align_up(s->chunk, d->align);
}

static int wdirect_init(struct pc_wstream *s)
{
	struct wdirect *d = calloc(1, sizeof(*d));
	long page = sysconf(_SC_PAGESIZE);
	struct stat st;
	int ret;

	if (!d)
		return -ENOMEM;
	s->priv = d;
	d->lent = -1;
	d->ring.ring_fd = -1;
	d->gap = UINT64_MAX;
	d->page = page > 0 ? (uint64_t)page : PCL_PAGE_SIZE;
	d->dfd = pcl_wreopen(s, O_WRONLY | O_DIRECT);
	if (d->dfd < 0) {
		pcl_wset_reason(s, "O_DIRECT refused (%s)", strerror(-d->dfd));
		ret = -EOPNOTSUPP;
		goto out_release;
	}
	set_align(s, d);
	s->stats.syscalls++;
	if (fstat(s->fd, &st)) {
		ret = -errno;
		goto out_release;
	}
	d->size0 = (uint64_t)st.st_size;
	ret = pcl_ring_init(s->opts.inflight, &d->ring);
	if (ret) {
		d->ring.ring_fd = -1;	/* not set up: nothing to tear down */
		pcl_wset_reason(s, "io_uring unavailable (%s)", strerror(-ret));
		ret = -EOPNOTSUPP;
		goto out_release;
	}
	s->stats.syscalls++;
	ret = alloc_slots(d, s->opts.inflight, s->chunk);
	if (ret)
		goto out_release;
	return 0;
out_release:
	wdirect_release(s);
	return ret;
}

const struct pcl_wstrategy_ops pcl_wstrat_direct = {
	.init = wdirect_init,
	.pwrite = wdirect_pwrite,
	.lend = wdirect_lend,
	.commit = wdirect_commit,
	.drain = wdirect_drain,
	.finish = wdirect_finish,
	.release = wdirect_release,
};
