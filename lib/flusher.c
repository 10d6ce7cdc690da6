// SPDX-License-Identifier: MIT
/*
 * pcl_flusher: write-behind for one sequential writer (see flusher.h).  Batch k
 * of a run covers [base + k * batch, base + (k + 1) * batch); a batch is
 * snapped before the writer first writes into it, its writeback is started
 * once it is written in full, and PCL_FLUSHER_INFLIGHT batches later it is
 * waited for and evicted.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"
#include "flusher.h"
#include "fsmagic.h"

/* What a batch's snapshot allows. */
enum {
	SNAP_NONE = 0,	/* not snapped (a write too large to remember): keep */
	SNAP_CLEAN,	/* nothing cached before: drop it all */
	SNAP_MIXED,	/* clean pages cached before, listed in vec: keep those */
	SNAP_KEEP,	/* cached before, which pages unknown: keep it all */
	SNAP_FOREIGN,	/* dirty or under writeback from someone else: hands off */
};

#define FLUSHER_BATCH_DEFAULT (8u * PCL_MIB)

/* Errors that say the call does not apply here rather than that data is lost. */
static int is_writeback_err(int err)
{
	return err && err != -EINTR && err != -EINVAL && err != -ESPIPE &&
	       err != -ENOSYS && err != -EBADF && err != -EOPNOTSUPP;
}

static void note_err(struct pcl_flusher *f, int err)
{
	if (is_writeback_err(err) && !f->err)
		f->err = err;
}

static int take_err(struct pcl_flusher *f)
{
	int err = f->err;

	f->err = 0;
	return err;
}

static int raw_sfr(struct pcl_flusher *f, int fd, uint64_t off, uint64_t len,
		   unsigned int flags)
{
	f->syscalls++;
	return sync_file_range(fd, off, len, flags) < 0 ? -errno : 0;
}

/*
 * The description residency is told through: our own read-only one where
 * there is one, since on overlayfs only a mapping reaches the real file's
 * pages and a write-only fd cannot be mapped.
 */
static int count_fd(const struct pcl_flusher *f)
{
	return f->wait_fd >= 0 ? f->wait_fd : f->fd;
}

/* Bytes of [@off, @off + @len) cached now, through the residency found at init. */
static int cached(struct pcl_flusher *f, uint64_t off, uint64_t len, uint64_t *ret)
{
	struct pcl_cachestat cs;
	int err;

	f->syscalls += pcl_residency_count_calls(&f->res, len);
	err = pcl_residency_count(&f->res, count_fd(f), off, len, &cs);
	if (!err)
		*ret = cs.nr_cache * f->res.page;
	return err;
}

/*
 * POSIX_FADV_DONTNEED skips dirty pages, pages under writeback and pages
 * someone holds, and on tmpfs evicts nothing: what left the cache is
 * counted before and after, or is unknown where residency cannot be told.
 */
static void fadvise_dontneed(struct pcl_flusher *f, uint64_t off, uint64_t len)
{
	uint64_t before = 0, after = 0;
	int known;

	if (!len)
		return;
	known = !cached(f, off, len, &before);
	if (known && !before)
		return;		/* nothing of it is cached: nothing to drop */
	f->syscalls++;
	if (posix_fadvise(f->fd, off, len, POSIX_FADV_DONTNEED))
		return;
	if (known && !cached(f, off, len, &after))
		f->bytes_dropped += before > after ? before - after : 0;
	else
		f->bytes_unknown += len;
}

/* A file system that keeps files in memory: no writeback to start. */
static int on_memory_fs(struct pcl_flusher *f)
{
	struct statfs sf;

	f->syscalls++;
	return !fstatfs(f->fd, &sf) &&
	       ((unsigned long)sf.f_type == TMPFS_MAGIC || (unsigned long)sf.f_type == RAMFS_MAGIC);
}

/*
 * A description of our own to wait through, opened with raw system calls so
 * that a shim wrapping open(2) does not see it; it must be the same file.
 */
static void open_wait_fd(struct pcl_flusher *f)
{
	struct stat a, b;
	char path[64];
	long fd;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", f->fd);
	f->syscalls += 3;
	fd = syscall(SYS_openat, AT_FDCWD, path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0) {
		f->wait_err = -errno;
		return;
	}
	if (fstat(f->fd, &a) || fstat(fd, &b) || a.st_dev != b.st_dev ||
	    a.st_ino != b.st_ino) {
		f->wait_err = -ESTALE;
		syscall(SYS_close, fd);
		return;
	}
	f->wait_fd = fd;
	f->own_wait_fd = 1;
}

static int alloc_vecs(struct pcl_flusher *f)
{
	for (int i = 0; i < PCL_FLUSHER_NSLOT; i++) {
		f->slot[i].vec = malloc(f->batch / f->page);
		if (!f->slot[i].vec)
			return -ENOMEM;
	}
	return 0;
}

int pcl_flusher_init(struct pcl_flusher *f, int fd, int wait_fd, uint64_t batch,
		    uint64_t pos)
{
	struct pcl_cachestat cs;
	long page = sysconf(_SC_PAGESIZE);
	int ret = 0;

	*f = (struct pcl_flusher){ .fd = fd, .wait_fd = -1 };
	f->page = page > 0 ? (uint64_t)page : PCL_PAGE_SIZE;
	f->batch = pcl_align_up(batch ? batch : FLUSHER_BATCH_DEFAULT, f->page);
	f->base = pcl_align_down(pos, f->page);
	f->cursor = pos;
	if (wait_fd >= 0)
		f->wait_fd = wait_fd;
	else if (wait_fd == PCL_FLUSHER_QUIET || wait_fd == PCL_FLUSHER_POLL)
		f->quiet = 1;
	/*
	 * A description of our own: to wait through, or, when quiet and the
	 * writer's own cannot be counted by cachestat, only to map for mincore(2)
	 * (a write-only one cannot be mapped).
	 */
	if (f->quiet) {
		pcl_residency_init(&f->res, fd);
		f->syscalls += f->res.calls;
	}
	if (wait_fd == -1 || (f->quiet && f->res.how != PCL_RES_CACHESTAT))
		open_wait_fd(f);
	pcl_residency_init(&f->res, count_fd(f));
	f->syscalls += f->res.calls;
	f->blind = f->res.how != PCL_RES_CACHESTAT;
	f->poll = wait_fd == PCL_FLUSHER_POLL && !f->blind;	/* blind: nothing says when */
	f->memory_fs = on_memory_fs(f);
	f->syscalls += 1;
	f->warm = !f->blind && !pcl_cachestat(fd, 0, 0, &cs) && cs.nr_cache;
	if (f->warm)
		ret = alloc_vecs(f);
	if (ret)
		pcl_flusher_release(f);
	return ret;
}

void pcl_flusher_release(struct pcl_flusher *f)
{
	for (int i = 0; i < PCL_FLUSHER_NSLOT; i++) {
		free(f->slot[i].vec);
		f->slot[i].vec = NULL;
	}
	if (f->own_wait_fd && f->wait_fd >= 0)
		syscall(SYS_close, f->wait_fd);
	f->wait_fd = -1;
	f->own_wait_fd = 0;
}

void pcl_flusher_rebind(struct pcl_flusher *f, int fd)
{
	if (f->own_wait_fd && f->wait_fd >= 0)
		syscall(SYS_close, f->wait_fd);
	f->own_wait_fd = 0;
	f->fd = fd;
	f->wait_fd = fd;
}

static uint64_t batch_off(const struct pcl_flusher *f, uint64_t k)
{
	return f->base + k * f->batch;
}

/* The snapshot of batch @k, SNAP_NONE when it was not kept. */
static int batch_state(const struct pcl_flusher *f, uint64_t k)
{
	int i = k % PCL_FLUSHER_NSLOT;

	if (!f->slot[i].valid || f->slot[i].index != k)
		return SNAP_NONE;
	return f->slot[i].state;
}

/* Which pages of batch @k are cached, into its vec; 0 or -errno. */
static int snap_pages(struct pcl_flusher *f, uint64_t k, unsigned char *vec)
{
	int fd = f->wait_fd >= 0 ? f->wait_fd : f->fd;
	int ret;

	f->syscalls += 3;
	ret = pcl_mincore(fd, batch_off(f, k), f->batch, vec);
	if (ret == -ENXIO) {	/* wholly past the end of the file */
		memset(vec, 0, f->batch / f->page);
		ret = 0;
	}
	return ret;
}

/*
 * Without cachestat(2) (before Linux 6.5) dirtiness is unknown: only a batch
 * with nothing cached (so nothing dirty) may be touched.  mincore(2) in
 * pieces through a small buffer on the stack: nothing is allocated.
 */
static int snap_without_cachestat(struct pcl_flusher *f, uint64_t k)
{
	unsigned char v[256];
	uint64_t off = batch_off(f, k), end = off + f->batch, step = sizeof(v) * f->page;
	int fd = f->wait_fd >= 0 ? f->wait_fd : f->fd;

	for (; off < end; off += step) {
		uint64_t len = end - off < step ? end - off : step;
		int ret;

		f->syscalls += 3;
		ret = pcl_mincore(fd, off, len, v);
		if (ret == -ENXIO)
			return SNAP_CLEAN;	/* the rest is past the end of the file */
		if (ret)
			return SNAP_FOREIGN;
		for (uint64_t i = 0; i < len / f->page; i++)
			if (v[i] & 1)
				return SNAP_FOREIGN;
	}
	return SNAP_CLEAN;
}

/* Pages of batch @k the writer wrote before they were snapped (adopted). */
static uint64_t adopted_pages(const struct pcl_flusher *f, uint64_t k)
{
	uint64_t off = batch_off(f, k), end = pcl_align_up(f->adopted, f->page);

	if (end <= off)
		return 0;
	return (end - off < f->batch ? end - off : f->batch) / f->page;
}

static int snap_state(struct pcl_flusher *f, uint64_t k, unsigned char *vec)
{
	uint64_t own = adopted_pages(f, k) * f->page;
	struct pcl_cachestat cs;

	if (own == f->batch)
		return SNAP_CLEAN;			/* all the writer's own */
	if (f->blind)
		return own ? SNAP_KEEP : snap_without_cachestat(f, k);	/* overlayfs: its mapping is empty */
	f->syscalls++;
	if (pcl_cachestat(f->fd, batch_off(f, k) + own, f->batch - own, &cs))
		return own ? SNAP_KEEP : snap_without_cachestat(f, k);
	if (cs.nr_dirty || cs.nr_writeback)
		return SNAP_FOREIGN;
	if (!cs.nr_cache)
		return SNAP_CLEAN;
	if (vec && !snap_pages(f, k, vec)) {
		memset(vec, 0, adopted_pages(f, k));	/* the writer's own: not kept */
		return SNAP_MIXED;
	}
	return SNAP_KEEP;
}

static void snap(struct pcl_flusher *f, uint64_t k)
{
	int i = k % PCL_FLUSHER_NSLOT;

	if (k - f->dropped >= PCL_FLUSHER_NSLOT)
		return;		/* its slot still holds a batch in flight */
	f->slot[i].index = k;
	f->slot[i].valid = 1;
	f->slot[i].state = snap_state(f, k, f->slot[i].vec);
}

/* Start writeback of [@off, @off + @len) of batch @k unless it is hands off. */
static void start_range(struct pcl_flusher *f, uint64_t k, uint64_t off, uint64_t len)
{
	int st = batch_state(f, k);

	if (st == SNAP_NONE || st == SNAP_FOREIGN || !len || f->memory_fs)
		return;
	note_err(f, raw_sfr(f, f->fd, off, len, SYNC_FILE_RANGE_WRITE));
	f->bytes_flushed += len;
}

/* fadvise [off, off + len) of batch @k away as its snapshot allows. */
static void drop_range(struct pcl_flusher *f, uint64_t k, uint64_t off, uint64_t len)
{
	const unsigned char *vec = f->slot[k % PCL_FLUSHER_NSLOT].vec;
	uint64_t base = batch_off(f, k), run = off, end = off + len;
	int st = batch_state(f, k);

	if (st == SNAP_CLEAN) {
		fadvise_dontneed(f, off, len);
		return;
	}
	if (st != SNAP_MIXED) {
		f->bytes_kept += len;
		return;
	}
	for (uint64_t p = off; p < end; p += f->page) {
		if (!(vec[(p - base) / f->page] & 1))
			continue;
		fadvise_dontneed(f, run, p - run);
		f->bytes_kept += f->page;
		run = p + f->page;
	}
	fadvise_dontneed(f, run, end > run ? end - run : 0);
}

/* Poll writeback of [@off, @off + @len) to its end: at most about 10 s. */
#define QUIET_POLL_NS 1000000L
#define QUIET_POLLS 10000

/*
 * Wait until no page of the range is under writeback, asking cachestat(2):
 * no error sequence is read or advanced, so every description of the file,
 * also one opened later, still sees a writeback error at its fsync.
 */
static void wait_quietly(struct pcl_flusher *f, uint64_t off, uint64_t len)
{
	const struct timespec tick = { 0, QUIET_POLL_NS };
	struct pcl_cachestat cs;

	for (int i = 0; i < QUIET_POLLS; i++) {
		f->syscalls++;
		if (pcl_cachestat(f->fd, off, len, &cs) || !cs.nr_writeback)
			return;
		nanosleep(&tick, NULL);
	}
}

/*
 * Quiet and blind (no cachestat(2) before Linux 6.5, or an overlay's empty
 * mapping), nothing says when writeback ends, and a page still under
 * writeback survives fadvise.  A batch that held nothing before is all ours:
 * drop it until mincore(2) finds none of it resident, which waits for its
 * writeback without reading or advancing any error sequence.
 */
static void drop_quietly_blind(struct pcl_flusher *f, uint64_t k)
{
	const struct timespec tick = { 0, QUIET_POLL_NS };
	uint64_t off = batch_off(f, k), before = 0, after = 0;
	int known = !cached(f, off, f->batch, &before);

	for (int i = 0;; i++) {
		f->syscalls++;
		posix_fadvise(f->fd, off, f->batch, POSIX_FADV_DONTNEED);
		if (snap_without_cachestat(f, k) == SNAP_CLEAN || i == QUIET_POLLS)
			break;
		nanosleep(&tick, NULL);
	}
	if (known && !cached(f, off, f->batch, &after))
		f->bytes_dropped += before > after ? before - after : 0;
	else
		f->bytes_unknown += f->batch;
}

/*
 * Wait for the writeback started on batch @k through our own description
 * (the writer's error sequence stays untouched), or quietly, then evict it.
 */
static void wait_and_drop(struct pcl_flusher *f, uint64_t k)
{
	uint64_t off = batch_off(f, k);
	int st = batch_state(f, k);

	if (st == SNAP_CLEAN && f->quiet && f->blind && !f->memory_fs && f->wait_fd >= 0) {
		drop_quietly_blind(f, k);
		return;
	}
	if (st != SNAP_NONE && st != SNAP_FOREIGN) {
		if (f->quiet)
			wait_quietly(f, off, f->batch);
		else if (f->wait_fd >= 0)
			note_err(f, raw_sfr(f, f->wait_fd, off, f->batch,
					    SYNC_FILE_RANGE_WAIT_AFTER));
	}
	drop_range(f, k, off, f->batch);
}

/* Deal with the run so far: the tail gets writeback, started batches a wait. */
static void finish_run(struct pcl_flusher *f)
{
	uint64_t k = f->started, off = batch_off(f, k);
	uint64_t end = pcl_align_up(f->cursor, f->page);

	if (!f->started)
		return;		/* never passed a batch: leave it to the kernel */
	if (f->cursor > off)
		start_range(f, k, off, f->cursor - off);
	for (; f->dropped < f->started; f->dropped++)
		wait_and_drop(f, f->dropped);
	if (end > off)
		drop_range(f, k, off, end - off);
}

static void restart(struct pcl_flusher *f, uint64_t off)
{
	finish_run(f);
	f->base = pcl_align_down(off, f->page);
	f->cursor = off;
	f->adopted = 0;
	f->snapped = f->started = f->dropped = 0;
	for (int i = 0; i < PCL_FLUSHER_NSLOT; i++)
		f->slot[i].valid = 0;
}

void pcl_flusher_before(struct pcl_flusher *f, uint64_t off, uint64_t len)
{
	uint64_t last;

	if (off != f->cursor)
		restart(f, off);
	if (!len)
		return;
	last = (off + len - 1 - f->base) / f->batch;
	for (; f->snapped <= last; f->snapped++)
		snap(f, f->snapped);
}

/* PCL_FLUSHER_POLL: has the writeback started on batch @k finished?  Asked, not waited for. */
static int batch_done(struct pcl_flusher *f, uint64_t k)
{
	struct pcl_cachestat cs;
	int st = batch_state(f, k);

	if (st == SNAP_NONE || st == SNAP_FOREIGN)
		return 1;	/* none was started */
	f->syscalls++;
	return pcl_cachestat(f->fd, batch_off(f, k), f->batch, &cs) || !cs.nr_writeback;
}

/*
 * Start writeback of the batches the writer completed; drop those more than
 * PCL_FLUSHER_INFLIGHT behind, waiting for their writeback, or (poll) only
 * as far as it has finished, starting no more while PCL_FLUSHER_POLL_LAG
 * are in flight.
 */
static void advance(struct pcl_flusher *f)
{
	uint64_t full = (f->cursor - f->base) / f->batch;

	for (;;) {
		while (f->started - f->dropped > PCL_FLUSHER_INFLIGHT) {
			if (f->poll && !batch_done(f, f->dropped))
				break;
			wait_and_drop(f, f->dropped++);
		}
		if (f->started >= full || (f->poll && f->started - f->dropped >= PCL_FLUSHER_POLL_LAG))
			return;
		start_range(f, f->started, batch_off(f, f->started), f->batch);
		f->started++;
	}
}

int pcl_flusher_wrote(struct pcl_flusher *f, uint64_t off, uint64_t len)
{
	if (off != f->cursor)
		restart(f, off);	/* not snapped: those batches are kept */
	f->cursor = off + len;
	advance(f);
	return take_err(f);
}

void pcl_flusher_poll(struct pcl_flusher *f)
{
	if (f->poll)
		advance(f);
}

void pcl_flusher_adopt(struct pcl_flusher *f, uint64_t end)
{
	if (end == f->cursor && end > f->adopted)
		f->adopted = end;
}

int pcl_flusher_finish(struct pcl_flusher *f)
{
	restart(f, f->cursor);
	return take_err(f);
}
