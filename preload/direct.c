// SPDX-License-Identifier: MIT
/*
 * Direct readers: a file the program opened read-only through the shim and
 * reads at its offset, with nothing of it cached (auto) or whatever it holds
 * (mode direct), is read with O_DIRECT ahead of the program by the library's
 * direct pipeline (lib/strategy/direct-shim.h) into the shim's own aligned
 * buffers, and each read(2) of the program becomes a copy out of them, the
 * same one copy a buffered read makes, and one lseek() that moves the file
 * offset as read(2) would.  The page cache is never touched: nothing to drop,
 * no fadvise.
 *
 * What read(2) promises still holds.  The lseek(fd, n, SEEK_CUR) claims the
 * bytes atomically, as read(2) does; when it finds the offset was not where
 * the shim left it (moved by fseek, a stdio refill, a process sharing the
 * file), the read is served again from where it was.  A write, truncate or
 * fallocate through the shim on the same file makes the reader forget what
 * it read ahead (O_DIRECT reads write dirty pages back first, so the next
 * read sees them); an mmap of it, a descriptor of its shared with a fork()
 * child across exec, a buffer the shim cannot check, random access, or an
 * offset that keeps moving under it stop the reader for good: the file is
 * read the normal way (track.c) from there on.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>
#include <linux/magic.h>

#include "direct-shim.h"
#include "internal.h"
#include "preload.h"

/* Buffers one reader may use: 8 MiB in flight to start, the tuner may double it. */
#define READER_BYTES (16ull << 20)
/* Random access: this many jumps with less than RUN_BYTES read a jump on average. */
#define JUMPS_MAX 16
#define RUN_BYTES (1ull << 20)
/* Writes that made a reader forget, and reads that found the offset moved, before it stops. */
#define CHANGES_MAX 16
#define MOVES_MAX 8

struct pl_direct {
	pthread_mutex_t lock;	/* one read at a time; after pl_lock(), never before */
	struct pc_stream *s;	/* NULL: not reading (never began, or stopped) */
	int live;		/* s serves reads (atomic: read without the lock) */
	int began;		/* s was opened */
	const char *win;	/* lent by the stream: the bytes of [win_off, win_off + win_len) */
	uint64_t win_off;
	size_t win_len;
	uint64_t cur;		/* the stream's cursor */
	uint64_t pos;		/* the fd's offset as the shim last saw it (atomic; a hint) */
	dev_t dev;
	ino_t ino;
	uint64_t bytes;		/* served */
	uint64_t syscalls;	/* the shim's own: probe, lseeks, buffer checks */
	uint64_t stream_syscalls;	/* the stream's, once closed */
	uint64_t jumps, moved, changes;
	char why[200];		/* why direct, or why not */
	char stop[128];		/* why it stopped; "" while it serves */
	struct pl_direct *prev, *next;	/* the readers of all files decided */
};

static struct pl_direct *readers;
static unsigned int nlive;		/* readers serving (atomic) */
/* The kernel will not check the program's buffers here (a seccomp filter,
 * say): its errno, and no reader begins (atomic). */
static int cannot_check;

int pl_direct_live(void)
{
	return __atomic_load_n(&nlive, __ATOMIC_RELAXED) != 0;
}

static void list_add(struct pl_direct *d)
{
	d->next = readers;
	if (readers)
		readers->prev = d;
	readers = d;
}

static void list_del(struct pl_direct *d)
{
	if (d->prev)
		d->prev->next = d->next;
	else if (readers == d)
		readers = d->next;
	if (d->next)
		d->next->prev = d->prev;
}

/* With d->lock held: close the stream; the file is read the normal way from now on. */
static void stop_locked(struct pl_direct *d, const char *why)
{
	if (!d->s)
		return;
	__atomic_store_n(&d->live, 0, __ATOMIC_RELAXED);
	__atomic_fetch_sub(&nlive, 1, __ATOMIC_RELAXED);
	d->stream_syscalls = pcl_direct_stats(d->s)->syscalls;
	pcl_direct_close(d->s);
	d->s = NULL;
	d->win_len = 0;
	snprintf(d->stop, sizeof(d->stop), "%s", why);
}

static void stop(struct pl_direct *d, const char *why)
{
	pthread_mutex_lock(&d->lock);
	stop_locked(d, why);
	pthread_mutex_unlock(&d->lock);
}

/* The stream's descriptors, out of the program's way (overlay.c). */
static int place_high(int fd)
{
	uint64_t calls = 0;
	int high = pl_dup_high(fd, &calls);

	if (high < 0)
		return -1;
	syscall(SYS_close, fd);
	return high;
}

/*
 * Whether auto may read the file direct, from its residency alone (one count,
 * no ring): a file the kernel hides residency of (one this user may not
 * write) cannot be told cold, and one with more than an eighth of it cached
 * goes the library's auto's other ways.  Says why not in d->why.
 */
static int auto_cold(struct pl_direct *d, int fd)
{
	struct pc_probe p;
	uint64_t pages;

	if (pcl_probe_cache(fd, &p, &d->syscalls)) {
		snprintf(d->why, sizeof(d->why), "auto: cannot count its pages: not direct");
		return 0;
	}
	if (p.cached_bytes == PC_BYTES_UNKNOWN) {
		snprintf(d->why, sizeof(d->why), "auto: residency hidden (file not writable): "
			 "cannot tell it is cold, not direct");
		return 0;
	}
	pages = pcl_align_up(p.file_size, pcl_page_size());
	if (p.cached_bytes > pages / 8) {
		snprintf(d->why, sizeof(d->why), "auto: %llu%% cached: not direct",
			 (unsigned long long)(p.cached_bytes * 100 / (pages ? pages : 1)));
		return 0;
	}
	return 1;
}

/*
 * What auto does with a cold file: as the library's auto (pcl_auto_read(),
 * from a full probe, whose ring is the io thread's), and only where the
 * O_DIRECT alignment is known.  Says why in d->why either way.
 */
struct probe_call {
	int fd;
	struct pc_probe *p;
	uint64_t *calls;
};

static int probe_call(void *arg)
{
	struct probe_call *c = arg;

	return pcl_probe_fd(c->fd, c->p, c->calls);
}

static int auto_direct(struct pl_direct *d, int fd)
{
	char reason[160];
	struct pc_probe p;
	struct probe_call c = { fd, &p, &d->syscalls };
	int ret = pl_io_call(probe_call, &c);

	if (ret) {
		snprintf(d->why, sizeof(d->why), "auto: probe failed (%s): not direct", strerror(-ret));
		return 0;
	}
	if (pcl_auto_read(&p, 8, reason, sizeof(reason)) != PC_DIRECT) {
		snprintf(d->why, sizeof(d->why), "not direct: %s", reason);
		return 0;
	}
	if (!p.dioalign_known) {
		snprintf(d->why, sizeof(d->why), "auto: O_DIRECT alignment unknown "
			 "(no STATX_DIOALIGN): not direct");
		return 0;
	}
	snprintf(d->why, sizeof(d->why), "auto: %llu%% cached, O_DIRECT, io_uring and "
		 "STATX_DIOALIGN work", (unsigned long long)(p.cached_bytes * 100 /
		 pcl_align_up(p.file_size ? p.file_size : 1, pcl_page_size())));
	return 1;
}

struct open_call {
	struct pl_direct *d;
	int fd;
	uint64_t pos;
	char *reason;
	size_t size;
};

static int open_call(void *arg)
{
	struct open_call *c = arg;

	return pcl_direct_open(&c->d->s, c->fd, c->pos, READER_BYTES, place_high, pl_submit,
			       c->reason, c->size);
}

/*
 * A FUSE server answers O_DIRECT reads as it likes: one that replies short
 * ends a buffered read there (end of file) but not a direct one, so the
 * program would see other bytes.  Never direct on FUSE, even asked for.
 */
static int on_fuse(struct pl_direct *d, int fd)
{
	struct statfs sfs;

	d->syscalls++;
	if (fstatfs(fd, &sfs) || sfs.f_type != FUSE_SUPER_MAGIC)
		return 0;
	snprintf(d->why, sizeof(d->why), "not direct: FUSE (its server may answer direct "
		 "reads otherwise than buffered ones)");
	return 1;
}

/* Open the stream at @fd's offset; 0, or -1 with d->why saying why not. */
static int begin(struct pl_direct *d, int fd)
{
	char reason[160];
	struct open_call c = { d, fd, 0, reason, sizeof(reason) };
	int64_t pos = syscall(SYS_lseek, fd, 0, SEEK_CUR);
	int fds[2], ret;

	d->syscalls++;
	if (pos < 0 || on_fuse(d, fd))
		return -1;
	if (__atomic_load_n(&nlive, __ATOMIC_RELAXED) * READER_BYTES + READER_BYTES >
	    pl_cfg.budget) {
		snprintf(d->why, sizeof(d->why), "not direct: the readers' buffers would pass "
			 "PAGECLIFF_BUDGET");
		return -1;
	}
	c.pos = (uint64_t)pos;
	ret = pl_io_call(open_call, &c);	/* the ring is the io thread's */
	if (ret) {
		snprintf(d->why, sizeof(d->why), "not direct: %s", reason);
		return -1;
	}
	if (pl_cfg.mode == PL_MODE_AUTO && pcl_direct_fds(d->s, fds) < 2) {
		snprintf(d->why, sizeof(d->why), "not direct: %s", pcl_direct_stats(d->s)->reason);
		pcl_direct_close(d->s);
		d->s = NULL;
		return -1;
	}
	if (pl_cfg.mode == PL_MODE_DIRECT)
		snprintf(d->why, sizeof(d->why), "asked for");
	if (pcl_direct_stats(d->s)->reason[0])
		snprintf(d->why + strlen(d->why), sizeof(d->why) - strlen(d->why), "; %s",
			 pcl_direct_stats(d->s)->reason);
	d->cur = d->pos = d->win_off = (uint64_t)pos;
	d->began = 1;
	__atomic_store_n(&d->live, 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&nlive, 1, __ATOMIC_RELAXED);
	return 0;
}

/* Opened through the shim, read-only, large enough, not given up on. */
static int eligible(const struct pl_file *f)
{
	return (pl_cfg.mode == PL_MODE_DIRECT || pl_cfg.mode == PL_MODE_AUTO) && !f->met &&
	       !f->writer && !f->mapped && !f->finished && f->size_at_open >= pl_cfg.min_size;
}

void pl_direct_decide(struct pl_file *f, int fd)
{
	struct pl_direct *d;
	int ret;

	f->direct_tried = 1;
	if (!eligible(f) || __atomic_load_n(&cannot_check, __ATOMIC_RELAXED))
		return;
	d = calloc(1, sizeof(*d));
	if (!d)
		return;
	pthread_mutex_init(&d->lock, NULL);
	d->dev = f->dev;
	d->ino = f->ino;
	f->direct = d;
	list_add(d);
	if (pl_cfg.mode == PL_MODE_AUTO && !auto_cold(d, fd))
		return;
	if ((ret = pl_submitter_start())) {
		snprintf(d->why, sizeof(d->why), "not direct: cannot start the shim's io_uring "
			 "thread (%s)", strerror(-ret));
		return;
	}
	if (pl_cfg.mode == PL_MODE_AUTO && !auto_direct(d, fd))
		return;
	begin(d, fd);
}

struct pl_direct *pl_direct_use(const struct pl_file *f)
{
	struct pl_direct *d = f->direct;

	return d && __atomic_load_n(&d->live, __ATOMIC_RELAXED) ? d : NULL;
}

/*
 * The buffers the program handed in can take the bytes: checked once per
 * buffer and thread (a few remembered), by the kernel, which copies each
 * onto itself and fails where read(2) would fail with EFAULT.  A buffer it
 * refuses, or cannot check, is read plainly, so the program sees the errno
 * and the count read(2) gives.
 */
#define CHECKED 4
static __thread struct { uintptr_t lo, hi; } checked[CHECKED]
	__attribute__((tls_model("initial-exec")));
static __thread unsigned int checked_next __attribute__((tls_model("initial-exec")));

static int writable(struct pl_direct *d, void *buf, size_t len)
{
	uintptr_t lo = (uintptr_t)buf, hi = lo + len;
	struct iovec iov = { buf, len };
	ssize_t n;

	if (!len)
		return 1;
	if (hi < lo)
		return 0;
	for (unsigned int i = 0; i < CHECKED; i++)
		if (lo >= checked[i].lo && hi <= checked[i].hi)
			return 1;
	d->syscalls += 2;
	n = syscall(SYS_process_vm_writev, (pid_t)syscall(SYS_getpid), &iov, 1, &iov, 1, 0);
	if (n != (ssize_t)len) {
		/* short: a page past the first is not writable; -1 EFAULT: none is */
		if (n < 0 && errno != EFAULT && errno != ENOMEM) {
			__atomic_store_n(&cannot_check, errno, __ATOMIC_RELAXED);
			stop_locked(d, "the kernel will not check the program's buffers "
				    "(process_vm_writev refused)");
		}
		return 0;
	}
	checked[checked_next].lo = lo;
	checked[checked_next].hi = hi;
	checked_next = (checked_next + 1) % CHECKED;
	return 1;
}

static int buffers_ok(struct pl_direct *d, const struct iovec *iov, int cnt, uint64_t len)
{
	for (int i = 0; i < cnt && len; i++) {
		size_t take = iov[i].iov_len < len ? iov[i].iov_len : len;

		if (!writable(d, iov[i].iov_base, take))
			return 0;
		len -= take;
	}
	return 1;
}

/* Lend the bytes at @at into the window, moving the stream there first. */
static ssize_t refill(struct pl_direct *d, uint64_t at)
{
	const void *data;
	ssize_t n;

	d->win_len = 0;
	if (at != d->cur) {
		pcl_direct_seek(d->s, at);
		d->cur = at;
	}
	n = pcl_direct_next(d->s, &data);
	if (n > 0) {
		d->win = data;
		d->win_off = at;
		d->win_len = n;
		d->cur = at + n;
	}
	return n;
}

/* Copy up to @len bytes at @at into @buf: short only at the end of the file. */
static ssize_t copy_out(struct pl_direct *d, uint64_t at, char *buf, size_t len)
{
	size_t done = 0;

	while (done < len) {
		uint64_t p = at + done;
		ssize_t n;

		if (p >= d->win_off && p - d->win_off < d->win_len) {
			size_t k = d->win_len - (p - d->win_off);

			if (k > len - done)
				k = len - done;
			memcpy(buf + done, d->win + (p - d->win_off), k);
			done += k;
			continue;
		}
		n = refill(d, p);
		if (n <= 0)
			return done ? (ssize_t)done : n;
	}
	return done;
}

static ssize_t copy_iov(struct pl_direct *d, uint64_t at, const struct iovec *iov, int cnt,
			uint64_t len)
{
	uint64_t done = 0;

	for (int i = 0; i < cnt && done < len; i++) {
		size_t want = iov[i].iov_len < len - done ? iov[i].iov_len : len - done;
		ssize_t k = copy_out(d, at + done, iov[i].iov_base, want);

		if (k < 0)
			return done ? (ssize_t)done : k;
		done += k;
		if ((size_t)k < want)
			break;
	}
	return done;
}

/*
 * Move the fd's offset past the @n bytes copied from @at (none for 0 or an
 * error), as read(2) would, and return where it was: @at, or where someone
 * else left it (then the offset is put back there, nothing claimed), or -1.
 */
static int64_t claim(struct pl_direct *d, int fd, uint64_t at, ssize_t n)
{
	int64_t step = n > 0 ? n : 0, got, start;

	d->syscalls++;
	got = syscall(SYS_lseek, fd, step, SEEK_CUR);
	if (got < 0)
		return -1;
	start = got - step;
	if (start != (int64_t)at && step) {
		d->syscalls++;
		syscall(SYS_lseek, fd, start, SEEK_SET);
	}
	return start;
}

/* A jump away from the window and the stream's cursor; 1 when random access. */
static int too_random(struct pl_direct *d, uint64_t at)
{
	if ((at >= d->win_off && at - d->win_off < d->win_len) || at == d->cur)
		return 0;
	d->jumps++;
	return d->jumps >= JUMPS_MAX && d->bytes < d->jumps * RUN_BYTES;
}

/* With d->lock held: serve the read; 1 and *@res (bytes or -errno), *@at; 0: plainly. */
static int serve(struct pl_direct *d, int fd, const struct iovec *iov, int cnt, uint64_t len,
		 ssize_t *res, uint64_t *at)
{
	uint64_t pos = __atomic_load_n(&d->pos, __ATOMIC_RELAXED);

	for (int tries = 0; tries < 2; tries++) {
		ssize_t n;
		int64_t start;

		if (too_random(d, pos)) {
			stop_locked(d, "random access");
			return 0;
		}
		n = copy_iov(d, pos, iov, cnt, len);
		start = claim(d, fd, pos, n);
		if (start < 0)
			return 0;
		if ((uint64_t)start == pos) {
			*res = n;
			*at = pos;
			if (n > 0)
				d->bytes += n;
			__atomic_store_n(&d->pos, pos + (n > 0 ? n : 0), __ATOMIC_RELAXED);
			return 1;
		}
		pos = start;	/* moved behind the shim's back: serve it from there */
		if (++d->moved >= MOVES_MAX) {
			stop_locked(d, "the file offset kept moving under the shim");
			return 0;
		}
	}
	return 0;
}

int pl_direct_read(struct pl_read *r, const struct iovec *iov, int cnt, uint64_t len,
		   ssize_t *ret)
{
	struct pl_direct *d = r->direct;
	int saved = errno, served = 0;
	ssize_t res = 0;
	uint64_t at = 0;

	pl_busy++;
	pthread_mutex_lock(&d->lock);
	if (d->s && buffers_ok(d, iov, cnt, len))
		served = serve(d, r->fd, iov, cnt, len, &res, &at);
	pthread_mutex_unlock(&d->lock);
	pl_busy--;
	errno = saved;
	if (!served)
		return 0;
	r->served = 1;
	r->off = at;
	*ret = res < 0 ? -1 : res;
	if (res < 0)
		errno = (int)-res;
	return 1;
}

void pl_direct_seeked(struct pl_file *f, uint64_t pos)
{
	if (f->direct)
		__atomic_store_n(&f->direct->pos, pos, __ATOMIC_RELAXED);
}

void pl_direct_changed(dev_t dev, ino_t ino)
{
	if (!pl_direct_live())
		return;
	for (struct pl_direct *d = readers; d; d = d->next) {
		if (d->dev != dev || d->ino != ino || !__atomic_load_n(&d->live, __ATOMIC_RELAXED))
			continue;
		pthread_mutex_lock(&d->lock);
		if (d->s) {
			pcl_direct_forget(d->s);
			d->win_len = 0;
			if (++d->changes >= CHANGES_MAX)
				stop_locked(d, "written through the shim while read, again and again");
		}
		pthread_mutex_unlock(&d->lock);
	}
}

void pl_direct_mapped(dev_t dev, ino_t ino)
{
	for (struct pl_direct *d = readers; d && pl_direct_live(); d = d->next)
		if (d->dev == dev && d->ino == ino && __atomic_load_n(&d->live, __ATOMIC_RELAXED))
			stop(d, "the file was mapped with mmap(2)");
}

void pl_direct_stop(struct pl_file *f, const char *why)
{
	if (pl_direct_use(f))
		stop(f->direct, why);
}

void pl_direct_closing(unsigned int lo, unsigned int hi)
{
	for (struct pl_direct *d = readers; d && pl_direct_live(); d = d->next) {
		int fds[2], n;

		pthread_mutex_lock(&d->lock);
		n = d->s ? pcl_direct_fds(d->s, fds) : 0;
		for (int i = 0; i < n; i++)
			if ((unsigned int)fds[i] >= lo && (unsigned int)fds[i] <= hi) {
				stop_locked(d, "the program closed the shim's descriptor");
				break;
			}
		pthread_mutex_unlock(&d->lock);
	}
}

void pl_direct_parent_forked(int fd)
{
	struct pl_file *f = NULL;
	long fl;

	if (!pl_direct_live() || !pl_table_get(fd, &f) || !f || !pl_direct_use(f))
		return;
	pl_busy++;
	fl = syscall(SYS_fcntl, fd, F_GETFD);
	if (fl >= 0 && !(fl & FD_CLOEXEC))
		stop(f->direct, "shared with a fork() child across exec");
	pl_busy--;
}

void pl_direct_child_forked(struct pl_file *f)
{
	struct pl_direct *d = f->direct;

	if (!d)
		return;
	pthread_mutex_init(&d->lock, NULL);	/* a thread of the parent may have held it */
	if (!d->s)
		return;
	pl_busy++;
	pcl_direct_abandon(d->s);
	pl_busy--;
	d->s = NULL;
	d->live = 0;
	d->win_len = 0;
	__atomic_fetch_sub(&nlive, 1, __ATOMIC_RELAXED);
	d->bytes = d->syscalls = 0;
	snprintf(d->stop, sizeof(d->stop), "a fork() child");
}

void pl_direct_release(struct pl_file *f)
{
	struct pl_direct *d = f->direct;

	if (!d)
		return;
	stop(d, "closed");
	list_del(d);
	pthread_mutex_destroy(&d->lock);
	free(d);
	f->direct = NULL;
}

/*
 * A file auto did not read direct keeps today's line; one direct was asked
 * for and refused says why; one read direct says why and, if it stopped,
 * why and what came after.
 */
const char *pl_direct_mode(const struct pl_file *f, const char *plain, char *buf, size_t size)
{
	const struct pl_direct *d = f->direct;
	int stopped = d && d->stop[0] && strcmp(d->stop, "closed");

	if (!d || !d->why[0] || (!d->began && pl_cfg.mode != PL_MODE_DIRECT))
		return NULL;
	if (!d->began)
		snprintf(buf, size, "%s (%s)", plain, d->why);
	else if (stopped)
		snprintf(buf, size, "direct, then %s (%s; stopped: %s)", plain, d->why, d->stop);
	else
		snprintf(buf, size, "direct (%s)", d->why);
	return buf;
}

void pl_direct_figures(const struct pl_file *f, uint64_t *ret_bytes, uint64_t *ret_syscalls)
{
	const struct pl_direct *d = f->direct;

	*ret_bytes = d ? d->bytes : 0;
	*ret_syscalls = d ? d->syscalls + (d->s ? pcl_direct_stats(d->s)->syscalls :
					   d->stream_syscalls) : 0;
}

/* The file behind @fd, from the table or fstat(); 0 when found. */
static int inode_of(int fd, dev_t *dev, ino_t *ino)
{
	struct pl_file *f = NULL;
	struct stat st;

	if (pl_table_get(fd, &f) && f) {
		*dev = f->dev;
		*ino = f->ino;
		return 0;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode))
		return -1;
	*dev = st.st_dev;
	*ino = st.st_ino;
	return 0;
}

/* @act on the file behind @fd, under pl_lock(), when a reader is live. */
static void note_inode(int fd, void (*act)(dev_t dev, ino_t ino))
{
	int saved = errno;
	dev_t dev;
	ino_t ino;

	if (!pl_direct_live())
		return;
	pl_lock();
	if (!inode_of(fd, &dev, &ino))
		act(dev, ino);
	pl_unlock();
	errno = saved;
}

void pl_note_changed(int fd)
{
	note_inode(fd, pl_direct_changed);
}

void pl_note_mapped(int fd)
{
	note_inode(fd, pl_direct_mapped);
}

void pl_note_changed_path(const char *path)
{
	int saved = errno;
	struct stat st;

	if (!pl_direct_live())
		return;
	pl_lock();
	if (!stat(path, &st) && S_ISREG(st.st_mode))
		pl_direct_changed(st.st_dev, st.st_ino);
	pl_unlock();
	errno = saved;
}
