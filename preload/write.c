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

#include "preload.h"

void pl_writer_init(struct pl_file *f, int fd, int flags)
{
	off_t pos = lseek(fd, 0, SEEK_CUR);

	f->writer = 1;
	f->append = !!(flags & O_APPEND);
	f->fpos = f->wcursor = f->wrun_start = pos > 0 ? (uint64_t)pos : 0;
	pthread_mutex_init(&f->wlock, NULL);
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
					    PC_FLUSHER_QUIET, pl_cfg.batch, off);
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
	const struct pc_flusher *fl = &f->fl;

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
	struct stat st;
	int saved = errno;

	*w = (struct pl_write){ .fd = fd };
	if (pl_cfg.mode == PL_MODE_OFF || fd < 0)
		return;
	pl_lock();
	if (!pl_table_get(fd, &f)) {
		pl_track_fd(fd, NULL);	/* e.g. a stdout the shell redirected */
		pl_table_get(fd, &f);
	}
	if (!f || !f->writer || f->mapped || f->finished)
		goto out;
	f->refs++;
	w->file = f;
	w->positional = off >= 0;
	w->len = len;
	if (w->positional)
		w->off = off;
	else if (f->append)
		w->off = !fstat(fd, &st) ? (uint64_t)st.st_size : f->fpos;
	else
		w->off = f->fpos + f->winflight;
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
		wlock_give(f);
	}
	errno = saved;
}

int pl_is_writer(int fd)
{
	struct pl_file *f = NULL;
	int ret;

	pl_lock();
	if (!pl_table_get(fd, &f)) {
		pl_track_fd(fd, NULL);
		pl_table_get(fd, &f);
	}
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
	if (!f->append)
		w->off = f->fpos;	/* threads sharing the offset: see track.c */
	if (n > 0)
		f->fpos = w->off + n;
}

void pl_write_end(struct pl_write *w, int64_t n)
{
	struct pl_file *f = w->file;
	int saved = errno;

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
		wlock_give(f);
	}
	pl_lock();
	if (--f->refs == 0)
		pl_file_release(f, w->fd);
	pl_unlock();
	errno = saved;
}

/*
 * stdio wrote its buffer through libc's internal write(): the fd's offset
 * says how far.  That data was not snapped before it was written, so each
 * time the shim snaps one batch ahead of the stream; the batch the stream
 * was in when first seen is left to the kernel.
 */
void pl_note_stdio_write(int fd)
{
	struct pl_write w;
	off_t real;
	int saved = errno;

	pl_write_begin(&w, fd, -1, 0);
	if (!w.file)
		goto out;
	pl_lock();
	w.off = w.file->fpos;	/* where the stream's data was known to end */
	pl_unlock();
	real = lseek(fd, 0, SEEK_CUR);
	if (real >= 0 && (uint64_t)real > w.off) {
		struct pl_file *f = w.file;

		wlock_take(f);
		if (f->have_flusher && !f->wdone && flusher_fd(f, fd) && w.off == f->fl.cursor) {
			meter_begin(f);
			wb_error(f, pcl_flusher_wrote(&f->fl, w.off, real - w.off));
			pl_meter_end(&f->wmeter, f->fl.fd);
		}
		f->bytes_written += real - w.off;
		f->wcursor = real;
		if (!f->have_flusher && real - f->wrun_start + pl_cfg.batch >= pl_cfg.min_size)
			maybe_start(f, fd, real);
		if (f->have_flusher && !f->wdone && flusher_fd(f, fd))
			pcl_flusher_before(&f->fl, real, f->fl.batch);
		wlock_give(f);
		pl_lock();
		f->fpos = real;
		pl_unlock();
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

void pl_writer_stats(const struct pl_file *f, char *line, size_t size)
{
	char dropped[24];

	snprintf(line, size,
		 "pagecliff: %s: %" PRIu64 " bytes written, %" PRIu64 " write-behind runs, mode %s, %"
		 PRIu64 " bytes written back early, %s bytes dropped, %" PRIu64
		 " bytes kept cached, %" PRIu64 " writeback errors seen (the program's fsync "
		 "reports them), %" PRIu64 " syscalls\n",
		 f->path ? f->path : "?", f->bytes_written, f->wruns,
		 f->mapped ? "none (mapped or not followed)" :
		 f->wruns ? "writebehind" : "none (no sequential run)",
		 f->fl.bytes_flushed, pl_meter_str(&f->wmeter, dropped, sizeof(dropped)),
		 f->fl.bytes_kept, f->wb_errors,
		 f->fl.syscalls + f->wmeter.syscalls + f->wsyscalls);
}
