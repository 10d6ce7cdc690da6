// SPDX-License-Identifier: MIT
/*
 * Writers: once a program writes a file sequentially, lib/flusher.c starts
 * writeback behind it in batches, waits (through a file description of its
 * own, so that the program's fd still sees any writeback error at fsync) for
 * the older batches, and evicts them.  The shim never fsyncs, never reports
 * an error the program's own calls would not, and leaves alone pages that
 * were dirty before the program wrote them.  The flusher's waits run under
 * the file's own lock, never under pl_lock(), so other threads' reads and
 * writes do not wait for them.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "policy.h"
#include "preload.h"

/*
 * Where the next write at the fd's offset lands: for O_APPEND the end of the
 * file, otherwise the offset.  -1 when it cannot be told.
 */
static int64_t offset_now(const struct pl_file *f, int fd)
{
	struct stat st;

	if (f->append)
		return fstat(fd, &st) ? -1 : (int64_t)st.st_size;
	return lseek(fd, 0, SEEK_CUR);
}

/*
 * The shim follows a writer's offset in memory, from the bytes each write
 * returned, and asks the kernel only where the flusher is about to act (a
 * new run, a new batch to snap or to write back: once per batch): another
 * process sharing the description, an fseek() through libc's internal
 * lseek(), or an appender elsewhere moves the offset behind its back, and
 * then the flusher restarts where the kernel says.  The thresholds the
 * flusher acts at are kept here (set under f->wlock, read under pl_lock()).
 */
static void publish(struct pl_file *f)
{
	const struct pcl_flusher *fl = &f->fl;
	uint64_t snap = UINT64_MAX, full = UINT64_MAX, cont = UINT64_MAX;

	if (f->have_flusher && !f->wdone) {
		snap = fl->base + fl->snapped * fl->batch;
		full = fl->base + (fl->started + 1) * fl->batch;
		cont = fl->cursor;
	} else if (!f->wdone && !f->mapped) {
		/* not started: where maybe_start() would start it */
		full = f->wrun_start + (pl_cfg.min_size > pl_cfg.batch ?
					pl_cfg.min_size - pl_cfg.batch : 0);
		snap = full;
	}
	__atomic_store_n(&f->wact_snap, snap, __ATOMIC_RELAXED);
	__atomic_store_n(&f->wact_full, full, __ATOMIC_RELAXED);
	__atomic_store_n(&f->wact_cont, cont, __ATOMIC_RELAXED);
}

/* Will the flusher act on a write of [@off, @end) that snaps @ahead more? */
static int acts_at(const struct pl_file *f, uint64_t off, uint64_t end, uint64_t ahead)
{
	uint64_t cont = __atomic_load_n(&f->wact_cont, __ATOMIC_RELAXED);

	return (cont != UINT64_MAX && off != cont) ||
	       end + ahead > __atomic_load_n(&f->wact_snap, __ATOMIC_RELAXED) ||
	       end >= __atomic_load_n(&f->wact_full, __ATOMIC_RELAXED);
}

void pl_writer_init(struct pl_file *f, int fd, int flags)
{
	int64_t pos;

	f->writer = 1;
	f->append = !!(flags & O_APPEND);
	pos = offset_now(f, fd);
	f->fpos = f->wcursor = f->wrun_start = pos > 0 ? (uint64_t)pos : 0;
	pthread_mutex_init(&f->wlock, NULL);
	publish(f);
}

void pl_writer_forked(struct pl_file *f)
{
	if (!f->writer)
		return;
	f->winflight = 0;
	f->bytes_written = f->wb_errors = f->wruns = f->wsyscalls = 0;
	pl_meter_reset(&f->wmeter);
	if (pthread_mutex_trylock(&f->wlock)) {
		/* another thread of the parent was inside the flusher: its state
		 * may be half updated, so this child leaves the file alone */
		pthread_mutex_init(&f->wlock, NULL);
		f->mapped = 1;
		f->wdone = 1;
		publish(f);
		return;
	}
	pthread_mutex_unlock(&f->wlock);
}

/*
 * The flusher's lock, with the shim marked busy while it is held: a signal
 * handler of this thread that calls _exit() then leaves the final drops
 * alone (pl_track_exit) instead of waiting for a lock its thread holds.
 */
static void wlock_take(struct pl_file *f)
{
	pl_busy++;
	pthread_mutex_lock(&f->wlock);
}

static void wlock_give(struct pl_file *f)
{
	pthread_mutex_unlock(&f->wlock);
	pl_busy--;
}

/*
 * On overlayfs the flusher works through the upper file (overlay.c): the
 * program's fd reaches only the overlay's empty mapping.
 */
static void real_open(struct pl_file *f, int fd)
{
	struct stat st;
	int rfd = pl_overlay_real(fd, &st, &f->wsyscalls);

	if (rfd < 0)
		return;
	f->have_real = 1;
	f->real_fd = rfd;
	f->real_dev = st.st_dev;
	f->real_ino = st.st_ino;
}

/* Does our upper-file fd still name that file?  The program may have closed
 * its number (close_range, dup2 onto it) and opened something else there. */
static int real_ok(struct pl_file *f)
{
	struct stat st;

	f->wsyscalls++;
	return !fstat(f->real_fd, &st) && st.st_dev == f->real_dev && st.st_ino == f->real_ino;
}

static void real_close(struct pl_file *f)
{
	if (f->have_real && real_ok(f))
		syscall(SYS_close, f->real_fd);
	f->have_real = 0;
}

/*
 * Write-behind starts once the run reaches PAGECLIFF_MIN_SIZE: the flusher
 * acts on whole batches only, so with the default (one batch) it is set up
 * at the run's first write; a larger min_size leaves the start of the run to
 * the kernel.  Caller holds f->wlock.
 */
static void maybe_start(struct pl_file *f, int fd, uint64_t off)
{
	if (f->have_flusher || f->wdone || f->mapped)
		return;
	if (off - f->wrun_start + pl_cfg.batch < pl_cfg.min_size)
		return;
	if (!f->have_real)
		real_open(f, fd);
	f->have_flusher = !pcl_flusher_init(&f->fl, f->have_real ? f->real_fd : fd,
					    PCL_FLUSHER_QUIET, pl_cfg.batch, off);
	f->wruns += f->have_flusher;
}

/*
 * The flusher acts through the fd of the call at hand, which certainly names
 * this file: the fd of the run's first write may since have been closed, and
 * its number reused for another file (dup + close + open).  On overlayfs it
 * keeps the upper file's fd, as long as that still names the file.  0 when
 * the flusher may not act any more.  Caller holds f->wlock.
 */
static int flusher_fd(struct pl_file *f, int fd)
{
	if (!f->have_real) {
		f->fl.fd = fd;
		return 1;
	}
	if (real_ok(f))
		return 1;	/* the flusher keeps the upper file's fd */
	f->have_real = 0;	/* lost: the rest is left to the kernel */
	pcl_flusher_release(&f->fl);
	f->wdone = 1;
	return 0;
}

/*
 * Will pcl_flusher_wrote() of [@off, @off + @n) drop?  Only when the write
 * starts a new run (the old one is finished) or completes a batch.  Then the
 * range from the oldest batch not dropped yet to the end of the file is
 * counted by f->wmeter around the call.
 */
static int may_drop(const struct pl_file *f, uint64_t off, uint64_t n)
{
	const struct pcl_flusher *fl = &f->fl;

	return off != fl->cursor || (off + n - fl->base) / fl->batch > fl->started;
}

/* Counted through the flusher's fd: on overlayfs the upper file's. */
static void meter_begin(struct pl_file *f)
{
	pl_meter_begin(&f->wmeter, f->fl.fd, f->fl.base + f->fl.dropped * f->fl.batch, 0);
}

static void wb_error(struct pl_file *f, int err)
{
	if (err)
		f->wb_errors++;	/* the program's fd sees it at fsync: nothing to do */
}

void pl_write_begin(struct pl_write *w, int fd, int64_t off, uint64_t len)
{
	struct pl_file *f = NULL;
	int saved = errno;
	int64_t real;

	*w = (struct pl_write){ .fd = fd };
	if (pl_cfg.mode == PL_MODE_OFF || fd < 0)
		return;
	pl_lock();
	pl_table_meet(fd, &f);	/* e.g. a stdout the shell redirected */
	if (f && f->writer) {	/* direct readers of the file forget what it changes */
		w->changes = 1;
		w->dev = f->dev;
		w->ino = f->ino;
	}
	if (!f || !f->writer || f->mapped || f->finished)
		goto out;
	f->refs++;
	w->file = f;
	w->positional = off >= 0;
	w->len = len;
	if (w->positional)
		w->off = off;
	else
		w->off = f->fpos + f->winflight;
	/* checked only where the flusher acts, and not while other threads'
	 * writes of the same offset are running */
	if (!w->positional && !f->winflight &&
	    acts_at(f, w->off, w->off + (len < PL_WRITE_PIECE ? len : PL_WRITE_PIECE), 0) &&
	    (real = offset_now(f, fd)) >= 0) {
		f->wsyscalls++;
		w->off = f->fpos = real;
	}
	if (!w->positional)
		f->winflight += len;
out:
	pl_unlock();
	if (w->file) {
		wlock_take(f);
		if (w->off != f->wcursor)
			f->wrun_start = w->off;
		maybe_start(f, fd, w->off);
		if (f->have_flusher && !f->wdone && flusher_fd(f, fd))
			pcl_flusher_before(&f->fl, w->off, len < PL_WRITE_PIECE ? len : PL_WRITE_PIECE);
		publish(f);
		wlock_give(f);
	}
	errno = saved;
}

int pl_is_writer(int fd)
{
	struct pl_file *f = NULL;
	int ret;

	pl_lock();
	pl_table_meet(fd, &f);
	ret = f && f->writer && !f->mapped && !f->finished;
	pl_unlock();
	return ret;
}

/* Under pl_lock(): where a write at the fd's offset actually went. */
static void settle_offset(struct pl_write *w, struct pl_file *f, int64_t n)
{
	if (w->positional)
		return;
	f->winflight -= f->winflight < w->len ? f->winflight : w->len;
	w->off = f->fpos;	/* threads sharing the offset: see track.c */
	if (n > 0)
		f->fpos = w->off + n;
}

void pl_write_end(struct pl_write *w, int64_t n)
{
	struct pl_file *f = w->file;
	int saved = errno;

	if (w->changes && n && pl_direct_live()) {
		pl_lock();
		pl_direct_changed(w->dev, w->ino);
		pl_unlock();
	}
	if (!f)
		return;
	pl_lock();
	settle_offset(w, f, n);
	pl_unlock();
	if (n > 0) {
		wlock_take(f);
		f->bytes_written += n;
		if (w->off != f->wcursor)
			f->wrun_start = w->off;
		f->wcursor = w->off + n;
		if (f->have_flusher && !f->wdone && flusher_fd(f, w->fd)) {
			int count = may_drop(f, w->off, n);

			if (count)
				meter_begin(f);
			wb_error(f, pcl_flusher_wrote(&f->fl, w->off, n));
			if (count)
				pl_meter_end(&f->wmeter, f->fl.fd);
		}
		publish(f);
		wlock_give(f);
	}
	pl_lock();
	pl_file_put(f, w->fd);
	pl_unlock();
	errno = saved;
}

/*
 * Under pl_lock(): the span [*@from, *@to) that a stdio flush of @n bytes
 * (-1: unknown) wrote at the fd's offset.  Counted in memory; the kernel is
 * asked (one lseek) only where the count is unknown or the flusher is about
 * to act on it; an offset found ahead of the count is taken as flushes
 * through calls the shim does not wrap.  0 when nothing was written.
 */
static int stdio_span(struct pl_file *f, int fd, int64_t n, uint64_t *from, uint64_t *to)
{
	uint64_t ahead = f->have_flusher ? f->fl.batch : pl_cfg.batch;
	off_t real;

	*from = f->fpos;	/* where the stream's data was known to end */
	*to = n >= 0 ? *from + n : *from;
	if (n >= 0 && !f->winflight && !acts_at(f, *from, *to, ahead))
		return n > 0;
	f->wsyscalls++;
	real = lseek(fd, 0, SEEK_CUR);
	if (real < 0)
		return n > 0;
	if (n < 0 || (uint64_t)real >= *from + n)
		n = (uint64_t)real > *from ? (int64_t)(real - *from) : 0;	/* flushes the shim did not see */
	else if ((uint64_t)real < (uint64_t)n)
		n = real;
	*to = real;
	*from = real - n;	/* seeked behind the shim's back: the flusher restarts */
	return n > 0;
}

/*
 * stdio wrote @n bytes (-1: unknown) of its buffer through libc's internal
 * write().  That data was not snapped before it was written, so each time
 * the shim snaps one batch ahead of the stream; what the stream wrote before
 * the shim first saw it is left to the kernel.
 */
void pl_note_stdio_write(int fd, int64_t n)
{
	struct pl_write w;
	struct pl_file *f;
	uint64_t from, to;
	int saved = errno, wrote;

	pl_write_begin(&w, fd, -1, 0);
	if (!w.file)
		goto out;
	f = w.file;
	pl_lock();
	wrote = stdio_span(f, fd, n, &from, &to);
	if (wrote) {
		f->fpos = to;
		pl_direct_changed(f->dev, f->ino);
	}
	pl_unlock();
	if (wrote) {
		wlock_take(f);
		if (f->have_flusher && !f->wdone && flusher_fd(f, fd) && from == f->fl.cursor) {
			int count = may_drop(f, from, to - from);

			if (count)
				meter_begin(f);
			wb_error(f, pcl_flusher_wrote(&f->fl, from, to - from));
			if (count)
				pl_meter_end(&f->wmeter, f->fl.fd);
		}
		f->bytes_written += to - from;
		if (from != f->wcursor)
			f->wrun_start = from;
		f->wcursor = to;
		if (!f->have_flusher && to - f->wrun_start + pl_cfg.batch >= pl_cfg.min_size)
			maybe_start(f, fd, to);
		if (f->have_flusher && !f->wdone && flusher_fd(f, fd)) {
			pcl_flusher_adopt(&f->fl, to);	/* written before it was snapped */
			pcl_flusher_before(&f->fl, to, f->fl.batch);
		}
		publish(f);
		wlock_give(f);
	}
	pl_write_end(&w, 0);
out:
	errno = saved;
}

void pl_writer_finish(struct pl_file *f, int fd)
{
	int saved = errno;

	wlock_take(f);
	if (f->have_flusher && !f->wdone && flusher_fd(f, fd)) {
		/* a fork() child that wrote nothing leaves its parent's batches
		 * alone; so does a writer whose fd was closed under a write in
		 * flight (another thread), its number maybe reused */
		if (f->bytes_written && pl_same_file(f, fd)) {
			meter_begin(f);
			wb_error(f, pcl_flusher_finish(&f->fl));
			pl_meter_end(&f->wmeter, f->fl.fd);
		}
		pcl_flusher_release(&f->fl);
	}
	real_close(f);
	f->wdone = 1;
	wlock_give(f);
	errno = saved;
}

size_t pl_writer_stats(const struct pl_file *f, char *line, size_t size)
{
	char dropped[24], early[48];

	if (f->have_flusher && f->fl.memory_fs)
		snprintf(early, sizeof(early), "no writeback (a file system in memory)");
	else
		snprintf(early, sizeof(early), "%" PRIu64 " bytes written back early",
			 f->fl.bytes_flushed);
	return policy_write_line(line, size, &(struct policy_write_stats){
		.path = f->path, .bytes = f->bytes_written, .runs = f->wruns,
		.mode = f->mapped ? "none (mapped or not followed)" :
			f->wruns ? "writebehind" : "none (no sequential run)",
		.early = early, .dropped = pl_meter_str(&f->wmeter, dropped, sizeof(dropped)),
		.kept = f->fl.bytes_kept, .errors = f->wb_errors,
		.syscalls = f->fl.syscalls + f->wmeter.syscalls + f->wsyscalls });
}
