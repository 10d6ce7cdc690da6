// SPDX-License-Identifier: MIT
/*
 * The data set of pagecliff bench: one file per thread in DIR/pagecliff-bench/,
 * named job<N>.dat, non-zero data with a header in its first bytes
 * ("pagecliff-bench data file v1").  A run holds the folder's lock
 * (bench.lock, flock) from before the first file is made until the last is
 * removed, and records in bench.made (bench-made.c: name, device, inode,
 * birth time, generation) everything bench made there: the folder, the lock,
 * each data file, and bench.made itself.
 * Only what is recorded is reused, rewritten or removed; a header alone does
 * not make a file ours.  A run killed before its end leaves the folder in
 * its state journal (testbed.h); bench_release_stale() then gives it back.
 * With --rw write there is no layout: before each phase bench_fresh_files()
 * makes the files empty (and records them), the phase writes them through
 * the write stream, and bench_remove_files() removes them after it.
 */
#include <errno.h>
#include <limits.h>
#include <sys/file.h>
#include <time.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "bench.h"
#include "bench-made.h"
#include "progress.h"
#include "util.h"
#include "clock.h"

#define HEADER "pagecliff-bench data file v1\n"
#define LAYOUT_BLOCK (1u << 20)
#define LOCK_NAME "bench.lock"

/* A claimed DIR/pagecliff-bench/ (see bench.h). */
struct bench_claim {
	char path[PATH_MAX + 32];
	int dir_fd, lock_fd;
	struct bench_made made;		/* its bench.made (bench-made.h) */
};

/* Record that this run made @name, open as @fd; 0 or -errno. */
static int made_add(struct bench_claim *c, const char *name, int fd)
{
	return bench_made_add(&c->made, c->dir_fd, name, fd);
}

/* Whether @name in the folder is one bench recorded making. */
static int is_made(const struct bench_claim *c, const char *name)
{
	return bench_made_find(&c->made, c->dir_fd, name) >= 0;
}

/* File @k of the job: DIR/pagecliff-bench/job<j>.dat. */
static void file_path(const struct bench_job *job, unsigned int k, char *buf, size_t len)
{
	snprintf(buf, len, "%s/" BENCH_FOLDER "/job%u.dat", job->dirs[k / job->numjobs],
		 k % job->numjobs);
}

/* The claim and the name in its folder of file @k. */
static struct bench_claim *file_claim(const struct bench_run *run, unsigned int k,
				      char *name, size_t len)
{
	snprintf(name, len, "job%u.dat", k % run->job.numjobs);
	return &run->claims[k / run->job.numjobs];
}

/*
 * What is at @name in @c's folder: 0 absent, 1 ours with @size bytes, 2 ours
 * but another size, -1 foreign (not recorded as made by bench, no header,
 * not a regular file, unreadable).
 */
static int classify(const struct bench_claim *c, const char *name, uint64_t size)
{
	char head[sizeof(HEADER)] = "";
	struct stat st;
	int fd;

	if (c->dir_fd < 0)
		return 0;		/* no folder yet (bench_layout_precheck()) */
	if (fstatat(c->dir_fd, name, &st, AT_SYMLINK_NOFOLLOW))
		return errno == ENOENT ? 0 : -1;
	if (!S_ISREG(st.st_mode) || !is_made(c, name))
		return -1;
	fd = openat(c->dir_fd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (pread(fd, head, sizeof(HEADER) - 1, 0) != (ssize_t)sizeof(HEADER) - 1)
		head[0] = '\0';
	close(fd);
	if (memcmp(head, HEADER, sizeof(HEADER) - 1))
		return -1;
	return (uint64_t)st.st_size == size ? 1 : 2;
}

/* Fill @buf with non-zero pseudo-random bytes from @seed. */
static void fill(uint8_t *buf, size_t len, uint64_t seed)
{
	uint64_t x = seed * 0x9e3779b97f4a7c15ull + 1;

	for (size_t i = 0; i + 8 <= len; i += 8) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		memcpy(buf + i, &x, 8);
	}
	for (size_t i = 0; i < len; i++)
		if (!buf[i])
			buf[i] = 0xa5;
}

void bench_fill(uint8_t *buf, size_t len, uint64_t seed, int first)
{
	fill(buf, len, seed);
	if (first && len >= sizeof(HEADER) - 1)
		memcpy(buf, HEADER, sizeof(HEADER) - 1);
}

/* Open @name for writing: new (O_EXCL, then recorded) or ours to rewrite. */
static int open_for_layout(struct bench_claim *c, const char *name, int ours, int *ret_direct)
{
	int flags = O_WRONLY | O_NOFOLLOW | O_CLOEXEC | (ours ? O_TRUNC : O_CREAT | O_EXCL);
	int fd, ret;

	fd = openat(c->dir_fd, name, flags | O_DIRECT, 0644);
	*ret_direct = fd >= 0;
	if (fd < 0 && errno == EINVAL)
		fd = openat(c->dir_fd, name, flags, 0644);
	if (fd < 0)
		return -errno;
	if (!ours && (ret = made_add(c, name, fd))) {
		close(fd);
		unlinkat(c->dir_fd, name, 0);
		return ret;
	}
	return fd;
}

/*
 * All of @len at @off: a short write (a full file system takes what fits) is
 * retried, so that the error returned is the kernel's errno for the rest,
 * never a stale one.
 */
static int pwrite_all(int fd, const char *buf, size_t len, uint64_t off)
{
	while (len) {
		ssize_t n = pwrite(fd, buf, len, (off_t)off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (!n)
			return -EIO;	/* nothing written and no errno: cannot happen */
		buf += n;
		len -= n;
		off += n;
	}
	return 0;
}

/* Write one file of @size bytes; its bytes counted into @p. */
static int write_file(struct bench_claim *c, const char *name, int ours, uint64_t size,
		      unsigned int k, struct progress *p)
{
	uint8_t *buf = pc_buf_alloc(LAYOUT_BLOCK);
	int fd, direct, ret = 0;

	if (!buf)
		return -ENOMEM;
	fd = open_for_layout(c, name, ours, &direct);
	if (fd < 0) {
		ret = fd;
		goto out_free;
	}
	fill(buf, LAYOUT_BLOCK, k + 1);
	for (uint64_t off = 0; off < size && !bench_stop; off += LAYOUT_BLOCK) {
		size_t len = size - off < LAYOUT_BLOCK ? size - off : LAYOUT_BLOCK;

		memcpy(buf + 64, &off, sizeof(off));
		for (int i = 64; i < 72; i++)
			buf[i] |= buf[i] ? 0 : 0x80;	/* data stays non-zero */
		if (!off)
			memcpy(buf, HEADER, sizeof(HEADER) - 1);
		else
			memset(buf, 0x5a, sizeof(HEADER) - 1);
		if (direct && len % BENCH_DIRECT_BLOCK) {
			/* O_DIRECT wants whole blocks: finish the tail buffered */
			close(fd);
			direct = 0;
			fd = openat(c->dir_fd, name, O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
			if (fd < 0) {
				ret = -errno;
				goto out_free;
			}
		}
		ret = pwrite_all(fd, (const char *)buf, len, off);
		if (ret)
			break;
		progress_add(p, len);	/* drawn a few times a second */
	}
	if (!ret && bench_stop)
		ret = -EINTR;
	if (!ret && fdatasync(fd))
		ret = -errno;
	posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	close(fd);
	if (ret)
		unlinkat(c->dir_fd, name, 0);	/* half-written: ours, and useless */
out_free:
	pc_buf_free(buf, LAYOUT_BLOCK);
	return ret;
}

/*
 * Check before anything is made: no foreign files where ours go, enough free
 * space for the files still to write.  0, or an error already reported.
 */
int bench_layout_check(struct bench_run *run, uint64_t *ret_to_write)
{
	struct bench_job *job = &run->job;
	uint64_t need[BENCH_MAX_DIRS] = { 0 }, total = 0;
	unsigned int n = job->ndirs * job->numjobs;
	char a[32], b[32];

	for (unsigned int k = 0; k < n; k++) {
		char *path = run->files[k], name[32];
		struct bench_claim *c = file_claim(run, k, name, sizeof(name));
		int what;

		file_path(job, k, path, sizeof(run->files[k]));
		what = classify(c, name, job->size);
		if (what < 0)
			return error("'%s' was not made by pagecliff bench (%s does not record "
				     "it): refusing to touch it; move it away or choose another "
				     "--directory", path, MADE_NAME);
		if (what != 1 || job->rw == BENCH_WRITE)
			need[k / job->numjobs] += job->size;
	}
	run->nfiles = n;
	for (unsigned int d = 0; d < job->ndirs; d++) {
		struct statvfs vfs;
		uint64_t avail;

		if (statvfs(job->dirs[d], &vfs))
			return error("cannot check free space in '%s': %s", job->dirs[d],
				     strerror(errno));
		avail = (uint64_t)vfs.f_bavail * vfs.f_frsize;
		if (need[d] + need[d] / 50 > avail)
			return error("not enough space in '%s': the data set needs %s more, "
				     "%s are free", job->dirs[d], bench_size(need[d], a, sizeof(a)),
				     bench_size(avail, b, sizeof(b)));
		total += need[d];
	}
	*ret_to_write = total;
	return 0;
}

int bench_layout(struct bench_run *run)
{
	struct bench_job *job = &run->job;
	uint64_t total = 0;
	double t0 = pcc_now_sec();
	char name[32], a[32];

	if (job->rw == BENCH_WRITE) {
		bench_remove_files(run);	/* ours, left by an earlier run */
		return 0;
	}
	for (unsigned int k = 0; k < run->nfiles; k++)
		if (classify(file_claim(run, k, name, sizeof(name)), name, job->size) != 1)
			total += job->size;
	if (total)
		fprintf(stderr, "laying out %s in %u files\n",
			bench_size(total, a, sizeof(a)), run->nfiles);
	progress_start(&run->progress, !job->quiet, "laying out the data set", total);
	for (unsigned int k = 0; k < run->nfiles; k++) {
		struct bench_claim *c = file_claim(run, k, name, sizeof(name));
		int what = classify(c, name, job->size), ret;

		if (what == 1)
			continue;
		if (what < 0) {
			progress_end(&run->progress);
			return error("'%s' appeared and was not made by pagecliff bench: "
				     "refusing to touch it", run->files[k]);
		}
		ret = write_file(c, name, what == 2, job->size, k, &run->progress);
		if (ret)
			progress_end(&run->progress);
		if (ret == -EINTR)
			return error("interrupted while laying out '%s'", run->files[k]);
		if (ret)
			return error("cannot write '%s': %s", run->files[k], strerror(-ret));
	}
	if (total) {
		double secs = pcc_now_sec() - t0;

		progress_end(&run->progress);
		fprintf(stderr, "laid out %s in %.1f s (%.2f GB/s)\n", bench_size(total, a, sizeof(a)),
			secs, secs > 0 ? total / secs / 1e9 : 0.0);
	}
	return 0;
}

/* Make every file of the job empty and new (O_EXCL), recorded as bench's. */
int bench_fresh_files(struct bench_run *run)
{
	char name[32];

	for (unsigned int k = 0; k < run->nfiles; k++) {
		struct bench_claim *c = file_claim(run, k, name, sizeof(name));
		int fd = openat(c->dir_fd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
				O_CLOEXEC, 0644), ret;

		if (fd < 0)
			return error("cannot create '%s': %s", run->files[k], strerror(errno));
		ret = made_add(c, name, fd);
		close(fd);
		if (ret) {
			unlinkat(c->dir_fd, name, 0);
			return error("cannot record '%s' in '%s/" MADE_NAME "': %s",
				     run->files[k], c->path, strerror(-ret));
		}
	}
	return 0;
}

/* Remove the job's files that bench recorded making, and their records. */
void bench_remove_files(struct bench_run *run)
{
	char name[32];

	for (unsigned int k = 0; k < run->nfiles; k++) {
		struct bench_claim *c = file_claim(run, k, name, sizeof(name));
		int i = bench_made_find(&c->made, c->dir_fd, name);

		if (i < 0)
			continue;
		if (unlinkat(c->dir_fd, name, 0)) {
			warning("cannot remove '%s': %s", run->files[k], strerror(errno));
			continue;
		}
		bench_made_drop(&c->made, c->dir_fd, (unsigned int)i);
	}
}

/* Who holds the lock, from the lock file's text, into @buf. */
static void lock_holder(int fd, char *buf, size_t len)
{
	char text[256] = "", when[64] = "an unknown time";
	long long pid = 0, started = 0;
	ssize_t n = pread(fd, text, sizeof(text) - 1, 0);
	const char *p;
	struct tm tm;
	time_t t;

	if (n > 0)
		text[n] = '\0';
	if ((p = strstr(text, "\npid ")))
		pid = strtoll(p + 5, NULL, 10);
	if ((p = strstr(text, "\nstarted ")))
		started = strtoll(p + 9, NULL, 10);
	t = (time_t)started;
	if (started > 0 && gmtime_r(&t, &tm))
		strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S UTC", &tm);
	if (pid > 0)
		snprintf(buf, len, "pid %lld, started %s", pid, when);
	else
		snprintf(buf, len, "it has not said who it is yet");
}

/* Open and take bench.lock in @c's folder: 0, -EWOULDBLOCK (held; who in
 * @who) or -errno.  *ret_made: this call created the file. */
static int take_lock(struct bench_claim *c, char *who, size_t len, int *ret_made)
{
	for (int tries = 0; tries < 8; tries++) {
		struct stat a, b;
		int fd, made = 1;

		fd = openat(c->dir_fd, LOCK_NAME, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW |
			    O_CLOEXEC, 0644);
		if (fd < 0 && errno == EEXIST) {
			made = 0;
			fd = openat(c->dir_fd, LOCK_NAME, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
			if (fd < 0 && errno == EACCES)	/* another user's: flock reads too */
				fd = openat(c->dir_fd, LOCK_NAME, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
		}
		if (fd < 0)
			return -errno;
		if (flock(fd, LOCK_EX | LOCK_NB)) {
			int err = errno == EWOULDBLOCK ? -EWOULDBLOCK : -errno;

			if (err == -EWOULDBLOCK)
				lock_holder(fd, who, len);
			close(fd);
			return err;
		}
		/* the holder may have removed the file before letting go (the open
		 * @fd keeps its inode, whose number no other file can have: here
		 * device and inode are enough) */
		if (fstat(fd, &a) || fstatat(c->dir_fd, LOCK_NAME, &b, AT_SYMLINK_NOFOLLOW) ||
		    a.st_ino != b.st_ino || a.st_dev != b.st_dev) {
			close(fd);
			continue;
		}
		c->lock_fd = fd;
		*ret_made = made;
		return 0;
	}
	return -EAGAIN;
}

/* Say in the lock file who holds it. */
static void lock_say(struct bench_claim *c, double started)
{
	char text[128];
	int n = snprintf(text, sizeof(text), "pagecliff bench\npid %ld\nstarted %lld\n",
			 (long)getpid(), (long long)started);

	if (!ftruncate(c->lock_fd, 0))
		(void)!pwrite(c->lock_fd, text, (size_t)n, 0);
}

/* Make or open the folder of directory @dir; -errno, or 0. */
static int open_folder(struct bench_claim *c, const char *dir, int *ret_made)
{
	struct stat st;
	int r;

	snprintf(c->path, sizeof(c->path), "%s/" BENCH_FOLDER, dir);
	*ret_made = 0;
	r = lstat(c->path, &st);
	if (r && errno == ENOENT) {
		/* EEXIST: another run made it just now; its lock decides */
		if (!mkdir(c->path, 0755))
			*ret_made = 1;
		else if (errno != EEXIST)
			return -errno;
	} else if (!r && S_ISLNK(st.st_mode)) {
		return -ELOOP;
	} else if (!r && !S_ISDIR(st.st_mode)) {
		return -ENOTDIR;
	}
	c->dir_fd = open(c->path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (c->dir_fd < 0) {
		int err = -errno;

		if (*ret_made)
			rmdir(c->path);
		return err;
	}
	return 0;
}

/* The refusals claim_one() and precheck_one() share; -1. */
static int refuse_folder(const struct bench_claim *c, int err)
{
	return error("'%s' is %s: refusing to follow or replace it; move it away or "
		     "choose another --directory", c->path,
		     err == -ELOOP ? "a symbolic link" : "not a directory");
}

static int refuse_in_use(const char *dir, const char *who)
{
	return error("'%s' is in use by another pagecliff bench run (%s): wait for it "
		     "to end or choose another --directory", dir, who);
}

static int refuse_made(const struct bench_claim *c)
{
	return error("'%s/" MADE_NAME "' was not made by pagecliff bench: refusing to "
		     "touch it; move it away or choose another --directory", c->path);
}

static int claim_one(struct bench_run *run, struct bench_claim *c, const char *dir)
{
	char who[128];
	int made, lock_made = 0, ret;

	ret = open_folder(c, dir, &made);
	if (ret == -ELOOP || ret == -ENOTDIR)
		return refuse_folder(c, ret);
	if (ret)
		return error("cannot create '%s': %s", c->path, strerror(-ret));
	ret = take_lock(c, who, sizeof(who), &lock_made);
	if (ret == -EWOULDBLOCK)
		ret = refuse_in_use(dir, who);
	else if (ret)
		ret = error("cannot lock '%s/" LOCK_NAME "': %s", c->path, strerror(-ret));
	if (!ret && bench_made_read(&c->made, c->dir_fd))
		ret = refuse_made(c);
	if (!ret && ((made && (ret = made_add(c, ".", c->dir_fd))) ||
		     (lock_made && (ret = made_add(c, LOCK_NAME, c->lock_fd)))))
		ret = error("cannot record in '%s': %s", c->path, strerror(-ret));
	if (!ret) {
		if (is_made(c, LOCK_NAME))
			lock_say(c, run->started);
		return 0;
	}
	if (lock_made && !is_made(c, LOCK_NAME))
		unlinkat(c->dir_fd, LOCK_NAME, 0);
	if (c->lock_fd >= 0 && is_made(c, LOCK_NAME))
		unlinkat(c->dir_fd, LOCK_NAME, 0);
	if (c->made.created)
		unlinkat(c->dir_fd, MADE_NAME, 0);
	if (c->lock_fd >= 0)
		close(c->lock_fd);
	close(c->dir_fd);
	if (made)
		rmdir(c->path);
	c->dir_fd = c->lock_fd = -1;
	return -1;
}

int bench_claim(struct bench_run *run, unsigned int from)
{
	if (!run->claims) {
		run->claims = calloc(BENCH_MAX_DIRS, sizeof(*run->claims));
		if (!run->claims)
			return error("out of memory");
		for (unsigned int d = 0; d < BENCH_MAX_DIRS; d++)
			run->claims[d].dir_fd = run->claims[d].lock_fd = -1;
	}
	for (unsigned int d = from; d < run->job.ndirs; d++)
		if (claim_one(run, &run->claims[d], run->job.dirs[d]))
			return -1;
	return 0;
}

/* Give one folder back: with @keep record the data files, else remove
 * everything recorded; the lock file goes last, then the folder when bench
 * made it. */
static void release_one(struct bench_claim *c, int keep)
{
	int folder = 0;

	if (c->dir_fd < 0)
		return;
	for (unsigned int i = 0; i < c->made.n; i++) {
		const char *name = c->made.ent[i].name;

		if (!strcmp(name, "."))
			folder = 1;
		else if (!keep && strcmp(name, LOCK_NAME) && is_made(c, name))
			unlinkat(c->dir_fd, name, 0);
	}
	if (keep)
		bench_made_write(&c->made, c->dir_fd, LOCK_NAME);
	else if (c->made.exists)
		unlinkat(c->dir_fd, MADE_NAME, 0);
	if (is_made(c, LOCK_NAME))
		unlinkat(c->dir_fd, LOCK_NAME, 0);
	close(c->lock_fd);
	close(c->dir_fd);
	if (folder && !keep)
		rmdir(c->path);	/* only when empty: foreign files stay */
	c->dir_fd = c->lock_fd = -1;
}

void bench_release(struct bench_run *run)
{
	if (!run->claims)
		return;
	for (unsigned int d = 0; d < BENCH_MAX_DIRS; d++)
		release_one(&run->claims[d], run->job.keep);
	free(run->claims);
	run->claims = NULL;
}

/*
 * What claim_one() checks, taking no lock and making nothing: the folder
 * (when there) is a folder, no live run holds it, its bench.made is bench's.
 */
static int precheck_one(struct bench_claim *c, const char *dir)
{
	char who[128];
	struct stat st;
	int fd, held;

	snprintf(c->path, sizeof(c->path), "%s/" BENCH_FOLDER, dir);
	if (lstat(c->path, &st))
		return errno == ENOENT ? 0 : error("cannot use '%s': %s", c->path, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return refuse_folder(c, S_ISLNK(st.st_mode) ? -ELOOP : -ENOTDIR);
	c->dir_fd = open(c->path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (c->dir_fd < 0)
		return error("cannot use '%s': %s", c->path, strerror(errno));
	fd = openat(c->dir_fd, LOCK_NAME, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	/* shared: two checks at once do not see each other as a run */
	held = fd >= 0 && flock(fd, LOCK_SH | LOCK_NB) && errno == EWOULDBLOCK;
	if (held)
		lock_holder(fd, who, sizeof(who));
	if (fd >= 0)
		close(fd);
	if (held)
		return refuse_in_use(dir, who);
	return bench_made_read(&c->made, c->dir_fd) ? refuse_made(c) : 0;
}

int bench_layout_precheck(struct bench_run *run)
{
	struct bench_claim *claims = calloc(BENCH_MAX_DIRS, sizeof(*claims));
	uint64_t to_write;
	int ret = 0;

	if (!claims)
		return error("out of memory");
	for (unsigned int d = 0; d < BENCH_MAX_DIRS; d++)
		claims[d].dir_fd = claims[d].lock_fd = -1;
	run->claims = claims;
	for (unsigned int d = 0; d < run->job.ndirs && !ret; d++)
		ret = precheck_one(&claims[d], run->job.dirs[d]);
	if (!ret)
		ret = bench_layout_check(run, &to_write);
	for (unsigned int d = 0; d < BENCH_MAX_DIRS; d++)
		if (claims[d].dir_fd >= 0)
			close(claims[d].dir_fd);
	free(claims);
	run->claims = NULL;
	return ret;
}

/* Take the lock of the folder @c->path of a killed run: 0, -EBUSY (a live
 * run holds it now), -ENOENT (nothing to give back) or -errno. */
static int stale_lock(struct bench_claim *c)
{
	struct stat a, b;

	c->dir_fd = open(c->path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (c->dir_fd < 0)
		return errno == ENOENT ? -ENOENT : -errno;
	c->lock_fd = openat(c->dir_fd, LOCK_NAME, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
	if (c->lock_fd < 0)
		return errno == ENOENT ? -ENOENT : -errno;	/* died before it made any */
	if (flock(c->lock_fd, LOCK_EX | LOCK_NB))
		return errno == EWOULDBLOCK ? -EBUSY : -errno;
	if (fstat(c->lock_fd, &a) || fstatat(c->dir_fd, LOCK_NAME, &b, AT_SYMLINK_NOFOLLOW) ||
	    a.st_dev != b.st_dev || a.st_ino != b.st_ino)
		return -EBUSY;		/* removed and made again by a run just now (as
					 * in take_lock(), the fd pins the inode) */
	if (bench_made_read(&c->made, c->dir_fd))
		return -EPERM;		/* not bench's: nothing in it is trusted */
	if (!c->made.exists)
		return -ENOENT;		/* died before it recorded anything */
	return bench_made_is_self(&c->made, c->dir_fd) ? 0 : -EPERM;
}

/* After release_one(): say through @fn each of @names (in @dir_fd) now gone. */
static int stale_said(const struct bench_claim *c, int dir_fd, char (*names)[32],
		      unsigned int n, bench_removed_fn fn, void *arg)
{
	char path[sizeof(c->path) + 40];
	struct stat st;
	int gone = 0;

	for (unsigned int i = 0; i < n; i++) {
		if (!fstatat(dir_fd, names[i], &st, AT_SYMLINK_NOFOLLOW))
			continue;
		snprintf(path, sizeof(path), "%s/%.31s", c->path, names[i]);
		fn("file", path, 0, arg);
		gone++;
	}
	if (lstat(c->path, &st) && errno == ENOENT) {
		fn("dir", c->path, 0, arg);
		gone++;
	}
	return gone;
}

int bench_release_stale(const char *folder, int keep, bench_removed_fn fn, void *arg)
{
	struct bench_claim *c = calloc(1, sizeof(*c));
	char names[MADE_MAX + 2][32];
	unsigned int n = 0;
	int ret, dir_fd = -1;

	if (!c)
		return -ENOMEM;
	c->dir_fd = c->lock_fd = -1;
	snprintf(c->path, sizeof(c->path), "%s", folder);
	ret = stale_lock(c);
	if (!ret && (dir_fd = dup(c->dir_fd)) < 0)
		ret = -errno;
	if (ret) {
		if (c->lock_fd >= 0)
			close(c->lock_fd);
		if (c->dir_fd >= 0)
			close(c->dir_fd);
		free(c);
		return ret == -ENOENT || ret == -EBUSY ? 0 : ret;
	}
	/* what release_one() may remove: recorded and still what was recorded */
	for (unsigned int i = 0; i < c->made.n; i++) {
		const char *name = c->made.ent[i].name;

		if (strcmp(name, ".") && is_made(c, name) && (!keep || !strcmp(name, LOCK_NAME)))
			snprintf(names[n++], sizeof(names[0]), "%s", name);
	}
	if (!keep)
		snprintf(names[n++], sizeof(names[0]), "%s", MADE_NAME);
	release_one(c, keep);
	ret = fn ? stale_said(c, dir_fd, names, n, fn, arg) : 0;
	close(dir_fd);
	free(c);
	return ret;
}
