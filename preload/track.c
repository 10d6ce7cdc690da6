// SPDX-License-Identifier: MIT
/*
 * Per file: follow where the program reads, and once it has read
 * PAGECLIFF_MIN_SIZE bytes in one sequential run, act: read further with
 * RWF_DONTCACHE where the kernel and file system allow it, and drop behind the
 * reader in batches either way (lib/dropper.c keeps pages cached before).
 * Random access never builds a run and is left alone.  Every function runs
 * under pl_lock() and leaves errno as it found it.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "internal.h"
#include "policy.h"
#include "preload.h"
#include "readfile.h"

/*
 * Measured here (Linux 6.18, ext4): RWF_DONTCACHE with 4 KiB..1 MiB reads ran
 * 1.5-10x slower than drop-behind, so auto uses it only for large reads.
 */
#define AUTO_DONTCACHE_MIN (4u << 20)

/* fread() reads ahead of what it hands out by at most its buffer. */
#define STDIO_SLACK (1u << 20)

/* A stats line; the shim's own open() and close() go straight to libc. */
static void stats_out(const char *line, size_t len)
{
	pl_busy++;
	pl_stats_write(line, len);
	pl_busy--;
}

/* The mode of @f's stats line, in @buf: the registry's names, and why. */
static const char *mode_name(const struct pl_file *f, char *buf, size_t size)
{
	const char *dc = pc_strategy_name(PC_DONTCACHE), *db = pc_strategy_name(PC_DROPBEHIND);
	const char *why = NULL, *name = "none";

	if (f->hidden && f->bytes_dontcache)
		name = dc, why = "residency hidden: nothing dropped";
	else if (f->hidden)
		why = f->runs ? "residency hidden: left alone" : "no sequential run";
	else if (f->mapped && f->unseen_why)
		why = strncmp(f->unseen_why, "mapped", 6) ? "not followed" : "mapped";
	else if (f->mapped)
		why = "fd replaced behind the shim's back";
	else if (f->bytes_dontcache)
		name = dc;
	else if (f->dontcache == 0 && pl_cfg.mode != PL_MODE_DROPBEHIND) {
		snprintf(buf, size, "%s (%s refused)", db, dc);
		return buf;
	} else if (f->runs)
		name = db;
	else
		why = "no sequential run";
	if (why)
		snprintf(buf, size, "%s (%s)", name, why);
	else
		snprintf(buf, size, "%s", name);
	return buf;
}

static void print_stats(const struct pl_file *f)
{
	char line[768], dropped[24], mode[384], plain[96];
	const char *m = pl_direct_mode(f, mode_name(f, plain, sizeof(plain)), mode, sizeof(mode));
	uint64_t direct, calls;
	size_t len;

	pl_direct_figures(f, &direct, &calls);
	len = policy_read_line(line, sizeof(line), &(struct policy_read_stats){
		.path = f->path, .bytes = f->bytes_read, .runs = f->runs, .seeks = f->seeks,
		.mode = m ? m : plain, .uncached = f->bytes_dontcache + direct,
		.dropped = pl_meter_str(&f->meter, dropped, sizeof(dropped)),
		.kept = f->drop.bytes_kept,
		.syscalls = f->drop.syscalls + f->meter.syscalls + calls });
	if (len)
		stats_out(line, len);
}

/*
 * The dropper's calls, each counted by f->meter over the range it may drop:
 * pcl_dropper_advance() gives the last batch dropped a second chance, so
 * its range starts a batch before dropped_to.
 */
static void drop_advance(struct pl_file *f, int fd, uint64_t pos, int all)
{
	const struct pcl_dropper *d = &f->drop;
	uint64_t from = d->dropped_to > d->batch ? d->dropped_to - d->batch : 0;
	uint64_t to = all ? pcl_align_up(pos, d->page) : pcl_align_down(pos, d->batch);

	if (to <= d->dropped_to && !all)
		return;		/* nothing to drop: no count either */
	pl_meter_begin(&f->meter, fd, from, to > from ? to - from : d->page);
	pcl_dropper_advance(&f->drop, fd, pos, all);
	pl_meter_end(&f->meter, fd);
}

static void drop_seek(struct pl_file *f, int fd, uint64_t pos, uint64_t next)
{
	const struct pcl_dropper *d = &f->drop;
	uint64_t to = pcl_align_down(pos, d->page);

	if (to > d->dropped_to)
		pl_meter_begin(&f->meter, fd, d->dropped_to, to - d->dropped_to);
	pcl_dropper_seek(&f->drop, fd, pos, next);
	pl_meter_end(&f->meter, fd);
}

/*
 * The process-wide budget: bytes read in sequential runs and not dropped yet,
 * over all files.  Each file's share is kept in f->behind and the sum here,
 * so that many files read a little at a time (round robin) stay bounded like
 * one file read fast.  Only runs of two reads or more count: random access
 * (every read a run of its own) is left alone.
 */
static struct pl_file *files;
static uint64_t behind_total;

static void list_add(struct pl_file *f)
{
	f->next = files;
	if (files)
		files->prev = f;
	files = f;
}

static void list_del(struct pl_file *f)
{
	if (f->prev)
		f->prev->next = f->next;
	else if (files == f)
		files = f->next;
	if (f->next)
		f->next->prev = f->prev;
	f->prev = f->next = NULL;
	behind_total -= f->behind;
	f->behind = 0;
}

static void settle(struct pl_file *f)
{
	uint64_t b = 0;

	if (f->have_dropper && !f->mapped && !f->finished &&
	    f->run_reads >= 2 && f->cursor > f->drop.dropped_to)
		b = f->cursor - f->drop.dropped_to;
	behind_total += b - f->behind;
	f->behind = b;
}


/* Over budget: drop behind the file with the most read and not dropped. */
static void enforce_budget(void)
{
	for (int tries = 0; behind_total > pl_cfg.budget && tries < 64; tries++) {
		struct pl_file *max = NULL;

		for (struct pl_file *g = files; g; g = g->next)
			if (g->behind && (!max || g->behind > max->behind))
				max = g;
		if (!max)
			return;
		if (pl_same_file(max, max->fd))
			drop_advance(max, max->fd, pcl_align_down(max->cursor, PCL_PAGE_SIZE), 1);
		else
			max->mapped = 1;	/* its fd was reused behind the shim's back */
		settle(max);
	}
}

/* One line saying why the shim did not act on (part of) a file. */
static void print_untracked(const struct pl_file *f, const char *why)
{
	char line[640];
	int len = snprintf(line, sizeof(line), "pagecliff: %s: %s\n",
			   f->path ? f->path : "?", why);

	if (len <= 0)
		return;
	if ((size_t)len >= sizeof(line)) {
		len = sizeof(line) - 1;
		line[len - 1] = '\n';
	}
	stats_out(line, len);
}

/*
 * At the end: did the fd's offset move further than the reads the shim saw?
 * Then the program read through calls that libc makes internally (getc,
 * getline, fgets and the rest of stdio but fread), or moved it with fseek().
 * If the file had nothing cached at open, what lies there can go now.
 */
static uint64_t unseen_reading(struct pl_file *f, int fd)
{
	off_t real = lseek(fd, 0, SEEK_CUR);
	uint64_t from = f->fpos;

	if (real < 0 || (uint64_t)real <= from || (uint64_t)real - from < pl_cfg.min_size ||
	    f->mapped)
		return 0;
	if (f->have_dropper && !f->drop.warm) {
		pcl_dropper_reset(&f->drop, from);
		drop_advance(f, fd, real, 1);
	}
	return (uint64_t)real - from;
}

static void finish(struct pl_file *f, int fd)
{
	uint64_t unseen = 0;
	char why[640];

	if (f->finished)
		return;
	f->finished = 1;
	if (f->writer) {
		pl_writer_finish(f, fd);
		if (pl_cfg.stats && f->bytes_written >= pl_cfg.min_size) {
			size_t len = pl_writer_stats(f, why, sizeof(why));

			if (len)
				stats_out(why, len);
		}
		return;
	}
	if (pl_same_file(f, fd)) {
		if (f->active && f->have_dropper && !f->mapped)
			drop_advance(f, fd, f->cursor, 1);
		unseen = unseen_reading(f, fd);
	}
	if (!pl_cfg.stats)
		return;
	if (f->unseen_why && f->size_at_open >= pl_cfg.min_size)
		print_untracked(f, f->unseen_why);
	if (unseen) {
		snprintf(why, sizeof(why), "%" PRIu64 " bytes read through stdio calls the shim "
			 "does not see (getc, getline, fgets) or skipped with fseek: not tracked, "
			 "%s", unseen, f->have_dropper && !f->drop.warm ?
			 "dropped at close" : "left as they are");
		print_untracked(f, why);
	}
	/* Files the shim acted on, or could have: not every small file. */
	if (f->runs || f->bytes_read >= pl_cfg.min_size || pl_direct_use(f))
		print_stats(f);
}

/* The file's release (struct pl_file): its last fd is gone. */
static void file_release(struct pl_file *f, int fd)
{
	int saved = errno;

	finish(f, fd);
	pl_direct_release(f);
	list_del(f);
	if (f->have_dropper)
		pcl_dropper_release(&f->drop);
	free(f->path);
	free(f);
	errno = saved;
}

static char *path_of(int fd, const char *path)
{
	char link[64], buf[4096];
	ssize_t n;

	if (path)
		return strdup(path);
	if (!pl_cfg.stats)
		return NULL;
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, buf, sizeof(buf) - 1);
	if (n < 0)
		return NULL;
	buf[n] = 0;
	return strdup(buf);
}

/* A regular file that is not O_DIRECT (that has no cache): its flags. */
static int wanted(int fd, struct stat *st)
{
	int fl = fcntl(fd, F_GETFL);

	if (fl < 0 || (fl & (O_DIRECT | O_PATH)))
		return -1;
	return !fstat(fd, st) && S_ISREG(st->st_mode) ? fl : -1;
}

/* The file's read-ahead limit, from its backing device; 0 when unknown. */
static uint64_t readahead_of(dev_t dev)
{
	char path[96];
	uint64_t kb;

	snprintf(path, sizeof(path), "/sys/class/bdi/%u:%u/read_ahead_kb", major(dev), minor(dev));
	return pcc_read_u64(path, &kb) ? 0 : kb << 10;
}

/*
 * A file with cached pages is snapped PCL_DROPPER_SNAP_AHEAD batches ahead
 * of the reader, so that what its snapshots see cached was cached before.
 * The kernel reads ahead up to four read-ahead windows (doubled by
 * POSIX_FADV_SEQUENTIAL, plus the async window), so with a large
 * read_ahead_kb the batches must grow, or read-ahead pages would pass for
 * cached ones and be kept.
 */
static void start_dropper(struct pl_file *f, int fd, uint64_t from)
{
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
	uint64_t need = readahead_of(f->dev) * 4 / PCL_DROPPER_SNAP_AHEAD + 1;
	struct pcl_residency res;

	/*
	 * A file this user may not write hides its residency (cachestat
	 * refuses, mincore says all resident): the shim cannot tell the pages
	 * others had cached from the ones the program brought in, so it drops
	 * nothing.  Reads of a run go with RWF_DONTCACHE instead where the file
	 * system takes it (it adds nothing and keeps what was cached), or the
	 * file is left alone; the stats line says which.
	 */
	pcl_residency_init(&res, fd);
	if (res.how == PCL_RES_UNKNOWN) {
		f->hidden = 1;
		return;
	}
	f->have_dropper = !pcl_dropper_init(&f->drop, fd, pl_cfg.batch, from);
	if (!f->have_dropper || !f->drop.warm || need <= f->drop.batch)
		return;
	pcl_dropper_release(&f->drop);
	f->have_dropper = !pcl_dropper_init(&f->drop, fd, (need + page - 1) / page * page, from);
}

void pl_track_fd(int fd, const char *path)
{
	int saved = errno;
	struct pl_file *f = NULL;
	struct stat st;
	int flags;
	off_t pos;

	if (pl_cfg.mode == PL_MODE_OFF || fd < 0 || (flags = wanted(fd, &st)) < 0)
		goto out;
	f = calloc(1, sizeof(*f));
	if (!f)
		goto out;
	f->release = file_release;
	f->fd = fd;
	f->dev = st.st_dev;
	f->ino = st.st_ino;
	f->size_at_open = st.st_size;
	if ((flags & O_ACCMODE) != O_RDONLY) {
		pl_writer_init(f, fd, flags);
		f->path = path_of(fd, path);
		goto out;
	}
	pos = lseek(fd, 0, SEEK_CUR);
	f->fpos = f->cursor = f->run_start = pos > 0 ? pos : 0;
	f->dontcache = pl_cfg.mode == PL_MODE_DROPBEHIND ? 0 : -1;
	f->path = path_of(fd, path);
	/* Small files never reach a run; don't pay for a snapshot. */
	if ((uint64_t)st.st_size >= pl_cfg.min_size)
		start_dropper(f, fd, f->fpos);
	list_add(f);
out:
	pl_table_set(fd, f);
	errno = saved;
}

void pl_track_met(int fd, const char *path)
{
	struct pl_file *f = NULL;

	pl_track_fd(fd, path);
	if (pl_table_get(fd, &f) && f)
		f->met = 1;
}

/*
 * A file that was small at open and grew: start dropping only above what it
 * held at open, so nothing that could have been cached before is evicted.
 */
static void late_dropper(struct pl_file *f, int fd)
{
	uint64_t from = f->run_start > f->size_at_open ? f->run_start : f->size_at_open;

	start_dropper(f, fd, from);
	if (f->have_dropper)
		pcl_dropper_reset(&f->drop, pcl_align_up(from, PCL_PAGE_SIZE));
}

/* The program read at @off, not where the last read ended. */
static void new_run(struct pl_file *f, int fd, uint64_t off)
{
	f->seeks++;
	if (f->have_dropper && f->active)
		drop_seek(f, fd, f->cursor, off);
	else if (f->have_dropper)
		pcl_dropper_reset(&f->drop, off);
	f->active = 0;
	f->run_reads = 0;
	f->run_start = off;
	f->cursor = off;
}

/*
 * For reads at the fd's offset, check once per batch that the shim's idea of
 * the offset is right (stdio and fseek() move it behind the shim's back).
 */
static int offset_agrees(struct pl_file *f, int fd, int positional)
{
	off_t real;

	if (positional)
		return 1;
	real = lseek(fd, 0, SEEK_CUR);
	if (real < 0)
		return 0;
	if ((uint64_t)real >= f->fpos && (uint64_t)real - f->fpos <= f->inflight)
		return 1;	/* other threads' reads of the same offset are running */
	if ((f->stdio && (uint64_t)real > f->fpos && (uint64_t)real - f->fpos <= STDIO_SLACK))
		return 1;
	f->fpos = real;
	new_run(f, fd, real);
	return 0;
}

/* @n bytes were read at @off: advance the run, activate, drop behind. */
static void account(struct pl_file *f, int fd, uint64_t off, uint64_t n,
		    int positional)
{
	if (off != f->cursor)
		new_run(f, fd, off);
	f->cursor = off + n;
	f->run_reads++;
	f->bytes_read += n;
	if (f->mapped || pl_cfg.mode == PL_MODE_OFF)
		return;
	if (!f->active) {
		if (!policy_run_reached(pl_cfg.min_size, f->run_start, f->cursor))
			return;
		if (!offset_agrees(f, fd, positional))
			return;
		if (!pl_same_file(f, fd)) {
			f->mapped = 1;	/* fd reused behind the shim's back: hands off */
			return;
		}
		if (!f->have_dropper && !f->hidden)
			late_dropper(f, fd);
		f->active = 1;
		f->runs++;
	}
	if (!f->have_dropper)
		return;
	if (pcl_align_down(f->cursor, f->drop.batch) > f->drop.dropped_to &&
	    offset_agrees(f, fd, positional))
		drop_advance(f, fd, f->cursor, 0);
}

/*
 * The most one read(2) transfers (the kernel's MAX_RW_COUNT).  Above it a
 * preadv2() would not check the buffer the way read() does (the kernel clamps
 * an iovec before checking it, and takes a length over SSIZE_MAX as EINVAL,
 * where read() says EFAULT), so such reads are never turned into preadv2().
 */
static uint64_t max_rw_count(void)
{
	return INT_MAX & ~((uint64_t)sysconf(_SC_PAGESIZE) - 1);
}

static void read_begin(struct pl_read *r, int fd, int64_t off, uint64_t len, int direct)
{
	struct pl_file *f = NULL;
	int saved = errno;
	int huge = len > max_rw_count();

	*r = (struct pl_read){ .fd = fd };
	if (pl_cfg.mode == PL_MODE_OFF || fd < 0)
		return;
	pl_lock();
	pl_table_meet(fd, &f);	/* an fd opened before exec, or by libc */
	if (!f || f->writer)
		goto out;
	f->refs++;			/* held across the read */
	r->file = f;
	r->fd = fd;
	r->positional = off >= 0;
	r->len = huge ? max_rw_count() : len;
	len = r->len;
	r->off = off >= 0 ? (uint64_t)off : f->fpos + f->inflight;
	if (!r->positional)
		f->inflight += len;
	if (direct && !f->direct_tried && !f->finished)
		pl_direct_decide(f, fd);
	if (direct && (r->direct = pl_direct_use(f)))
		goto out;
	r->use_dontcache = !huge && f->active && f->dontcache != 0 && !f->mapped &&
			   (pl_cfg.mode == PL_MODE_DONTCACHE ||
			    ((pl_cfg.mode == PL_MODE_AUTO || pl_cfg.mode == PL_MODE_DIRECT) &&
			     (len >= AUTO_DONTCACHE_MIN || f->hidden)));
	if (f->have_dropper && r->off == f->cursor)
		pcl_dropper_before(&f->drop, fd, r->off, len);
out:
	pl_unlock();
	errno = saved;
}

void pl_read_begin(struct pl_read *r, int fd, int64_t off, uint64_t len)
{
	read_begin(r, fd, off, len, 0);
}

void pl_read_begin_direct(struct pl_read *r, int fd, uint64_t len)
{
	read_begin(r, fd, -1, len, 1);
}

void pl_read_no_dontcache(struct pl_read *r)
{
	pl_lock();
	r->file->dontcache = 0;
	r->use_dontcache = 0;
	pl_unlock();
}

void pl_read_end(struct pl_read *r, int64_t n)
{
	struct pl_file *f = r->file;
	int saved = errno;

	if (!f)
		return;
	pl_lock();
	if (!r->positional) {
		/*
		 * Threads reading one fd's offset at once: each read takes the
		 * next n bytes, in whatever order they finish, so the bytes are
		 * counted where the offset was when this read came back.
		 */
		f->inflight -= f->inflight < r->len ? f->inflight : r->len;
		if (!r->served)
			r->off = f->fpos;
	}
	f->fd = r->fd;
	if (r->served) {
		/* read O_DIRECT ahead: no page cache to follow or drop */
		if (n > 0) {
			f->fpos = r->off + n;
			f->bytes_read += n;
		}
	} else if (n > 0 && !f->finished) {
		if (r->use_dontcache) {
			f->dontcache = 1;
			f->bytes_dontcache += n;
		}
		if (r->stdio)
			f->stdio = 1;
		if (!r->positional)
			f->fpos = r->off + n;
		account(f, r->fd, r->off, n, r->positional);
		settle(f);
		enforce_budget();
	} else if (n == 0 && f->active && f->have_dropper && r->off == f->cursor) {
		drop_advance(f, r->fd, f->cursor, 1);	/* end of file */
		settle(f);
	}
	pl_file_put(f, r->fd);
	pl_unlock();
	errno = saved;
}

void pl_note_stdio(int fd)
{
	struct pl_file *f = NULL;
	int saved = errno;
	off_t real;

	pl_lock();
	pl_table_meet(fd, &f);
	if (!f || f->finished || f->mapped || f->writer)
		goto out;
	real = lseek(fd, 0, SEEK_CUR);
	if (real < 0)
		goto out;
	f->stdio = 1;
	f->fd = fd;
	if ((uint64_t)real > f->fpos) {
		uint64_t from = f->fpos;

		f->fpos = real;
		account(f, fd, from, real - from, 0);
		settle(f);
		enforce_budget();
	} else {
		f->fpos = real;	/* fseek() back: the next read starts a run */
	}
out:
	pl_unlock();
	errno = saved;
}

void pl_note_seek(int fd, int64_t pos)
{
	struct pl_file *f = NULL;

	pl_lock();
	if (pl_table_get(fd, &f) && f) {
		f->fpos = pos;
		pl_direct_seeked(f, pos);
	}
	pl_unlock();
}

void pl_note_mmap(int fd)
{
	pl_note_unseen(fd, "mapped with mmap(2): reads through the map are not seen, "
		       "the shim did not act on the file from then on");
	pl_note_mapped(fd);
}

void pl_note_unseen(int fd, const char *why)
{
	struct pl_file *f = NULL;
	int saved = errno;

	pl_lock();
	pl_table_meet(fd, &f);	/* an fd the shim has not met yet */
	if (f) {
		f->mapped = 1;
		if (!f->unseen_why)
			f->unseen_why = why;
		pl_direct_stop(f, "read another way too (mmap, AIO or io_uring)");
	}
	pl_unlock();
	errno = saved;
}

void pl_note_process(const char *why)
{
	static const char *said[8];
	char line[256];
	int saved = errno, len, i;

	if (!pl_cfg.stats)
		return;
	pl_lock();
	for (i = 0; i < 8 && said[i] && said[i] != why; i++)
		;
	if (i < 8 && !said[i]) {
		said[i] = why;
		len = snprintf(line, sizeof(line), "pagecliff: %s\n", why);
		if (len > 0 && (size_t)len < sizeof(line))
			stats_out(line, len);
	}
	pl_unlock();
	errno = saved;
}

void pl_note_direct(int fd, const char *path)
{
	struct stat st;
	char line[640];
	int saved = errno, len;

	if (!pl_cfg.stats || fstat(fd, &st) || !S_ISREG(st.st_mode) ||
	    (uint64_t)st.st_size < pl_cfg.min_size)
		goto out;
	len = snprintf(line, sizeof(line), "pagecliff: %s: opened with O_DIRECT: no page "
		       "cache to drop, the shim did not act\n", path ? path : "?");
	if (len > 0 && (size_t)len < sizeof(line))
		stats_out(line, len);
out:
	errno = saved;
}

void pl_note_close(int fd)
{
	struct pl_file *f = NULL;
	int saved = errno;

	pl_lock();
	if (pl_table_get(fd, &f) && f && f->writer && f->refs == 1 && !f->finished) {
		/* the last fd of a writer: wait for its writeback outside the lock */
		f->refs++;
		pl_unlock();
		pl_writer_finish(f, fd);
		pl_lock();
		f->refs--;
	}
	pl_table_del(fd);
	pl_direct_closing(fd, fd);
	pl_unlock();
	errno = saved;
}

int pl_writer_hold(int fd)
{
	struct pl_file *f = NULL;
	int held = -1;
	uint64_t calls = 0;

	pl_lock();
	if (pl_table_get(fd, &f) && f && f->writer && !f->finished && !f->mapped) {
		held = pl_dup_high(fd, &calls);
		f->wsyscalls += calls;
		if (held >= 0)
			pl_table_set(held, f);
	}
	pl_unlock();
	return held;
}

void pl_writer_unhold(int held, int64_t n)
{
	int saved = errno;

	pl_note_stdio_write(held, n);
	pl_note_close(held);
	syscall(SYS_close, held);
	errno = saved;
}

void pl_note_dup(int oldfd, int newfd)
{
	struct pl_file *f = NULL;
	int saved = errno;

	pl_lock();
	if (pl_table_get(oldfd, &f))
		pl_table_set(newfd, f);
	else
		pl_table_del(newfd);
	pl_unlock();
	errno = saved;
}

static void finish_fd(int fd)
{
	struct pl_file *f = NULL;

	if (pl_table_get(fd, &f) && f)
		finish(f, fd);
}

/*
 * In a fork() child, lock held: the files are the parent's too, and the
 * parent prints their stats; the child's lines count only its own reads.
 */
void pl_track_forked(int fd)
{
	struct pl_file *f = NULL;

	if (!pl_table_get(fd, &f) || !f)
		return;
	f->bytes_read = f->bytes_dontcache = f->runs = f->seeks = 0;
	f->drop.bytes_dropped = f->drop.bytes_kept = f->drop.syscalls = 0;
	pl_meter_reset(&f->meter);
	f->inflight = 0;	/* the parent's other threads are not here */
	pl_direct_child_forked(f);
	pl_writer_forked(f);
}

/* At exit or _exit: the final drop and the stats of files still open. */
void pl_track_exit(void)
{
	static int done;
	int saved = errno;

	if (pl_busy || pl_foreign())
		return;		/* a signal handler inside the shim, or a vfork child */
	pl_lock();
	if (!done) {
		done = 1;
		pl_table_each(0, ~0u, finish_fd);
	}
	pl_unlock();
	errno = saved;
}
