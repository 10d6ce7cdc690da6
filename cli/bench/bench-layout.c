// SPDX-License-Identifier: MIT
/*
 * The data set of pagecliff bench: one file per thread in DIR/pagecliff-bench/,
 * named job<N>.dat, non-zero data with a header in its first bytes
 * ("pagecliff-bench data file v1").  A run holds the folder's lock
 * (bench.lock, flock) from before the first file is made until the last is
 * removed, and records in bench.made (device, inode, name) everything bench
 * made there: the folder, the lock, each data file.  Only what is recorded
 * is reused, rewritten or removed; a header alone does not make a file ours.
 * With --rw write there is no layout: before each phase bench_fresh_files()
 * makes the files empty (and records them), the phase writes them through
 * the write stream, and bench_remove_files() removes them after it.
 */
#include <errno.h>
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
#include "progress.h"
#include "util.h"

#define HEADER "pagecliff-bench data file v1\n"
#define LAYOUT_BLOCK (1u << 20)
#define LOCK_NAME "bench.lock"
#define MADE_NAME "bench.made"
#define MADE_MAGIC "pagecliff-bench made v1\n"
#define MADE_MAX (BENCH_MAX_JOBS + 2)

/* One thing bench made in a folder: "." is the folder itself. */
struct made {
	dev_t dev;
	ino_t ino;
	char name[32];
};

/* A claimed DIR/pagecliff-bench/ (see bench.h). */
struct bench_claim {
	char path[4096 + 32];
	int dir_fd, lock_fd;
	struct made made[MADE_MAX];
	unsigned int nmade;
	int have_made;			/* bench.made exists (ours to rewrite) */
	int made_new;			/* this run created bench.made */
};

static int made_find(const struct bench_claim *c, const char *name, const struct stat *st)
{
	for (unsigned int i = 0; i < c->nmade; i++)
		if (!strcmp(c->made[i].name, name) && c->made[i].dev == st->st_dev &&
		    c->made[i].ino == st->st_ino)
			return (int)i;
	return -1;
}

/* Rewrite bench.made from c->made (without @skip, "" none); 0 or -errno. */
static int made_write(struct bench_claim *c, const char *skip)
{
	char line[128];
	int fd, ret = 0;

	fd = openat(c->dir_fd, MADE_NAME, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC,
		    0644);
	if (fd < 0)
		return -errno;
	c->made_new |= !c->have_made;
	c->have_made = 1;
	ret = write_all(fd, MADE_MAGIC, strlen(MADE_MAGIC));
	for (unsigned int i = 0; i < c->nmade && !ret; i++) {
		int n;

		if (!strcmp(c->made[i].name, skip))
			continue;
		n = snprintf(line, sizeof(line), "%llu %llu %s\n",
			     (unsigned long long)c->made[i].dev,
			     (unsigned long long)c->made[i].ino, c->made[i].name);
		ret = write_all(fd, line, (size_t)n);
	}
	if (close(fd) && !ret)
		ret = -errno;
	return ret;
}

/* Record that this run made @name (already there); 0 or -errno. */
static int made_add(struct bench_claim *c, const char *name)
{
	struct stat st;

	if (fstatat(c->dir_fd, name, &st, AT_SYMLINK_NOFOLLOW))
		return -errno;
	if (made_find(c, name, &st) >= 0)
		return 0;
	if (c->nmade == MADE_MAX)
		return -ENOSPC;
	c->made[c->nmade].dev = st.st_dev;
	c->made[c->nmade].ino = st.st_ino;
	snprintf(c->made[c->nmade].name, sizeof(c->made[0].name), "%s", name);
	c->nmade++;
	return made_write(c, "");
}

/* Read bench.made: 0 (also when absent), -1 when it is not bench's. */
static int made_read(struct bench_claim *c)
{
	char line[128];
	FILE *f;
	int fd, ret = -1;

	fd = openat(c->dir_fd, MADE_NAME, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? 0 : -1;
	if (!(f = fdopen(fd, "r"))) {
		close(fd);
		return -1;
	}
	if (fgets(line, sizeof(line), f) && !strcmp(line, MADE_MAGIC)) {
		ret = 0;
		c->have_made = 1;
		while (c->nmade < MADE_MAX && fgets(line, sizeof(line), f)) {
			unsigned long long dev, ino;
			struct made *m = &c->made[c->nmade];

			if (sscanf(line, "%llu %llu %31s", &dev, &ino, m->name) != 3)
				continue;
			m->dev = (dev_t)dev;
			m->ino = (ino_t)ino;
			c->nmade++;
		}
	}
	fclose(f);
	return ret;
}

/* Whether @name in the folder is one bench recorded making. */
static int is_made(const struct bench_claim *c, const char *name)
{
	struct stat st;

	return !fstatat(c->dir_fd, name, &st, AT_SYMLINK_NOFOLLOW) && made_find(c, name, &st) >= 0;
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

	if (fstatat(c->dir_fd, name, &st, AT_SYMLINK_NOFOLLOW))
		return errno == ENOENT ? 0 : -1;
	if (!S_ISREG(st.st_mode) || made_find(c, name, &st) < 0)
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

/* The layout's line on a terminal (progress.h), started by bench_layout(). */
static struct progress layout_progress;

static void progress(uint64_t done, uint64_t total, double t0)
{
	progress_set(&layout_progress, done);
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
	if (!ours && (ret = made_add(c, name))) {
		close(fd);
		unlinkat(c->dir_fd, name, 0);
		return ret;
	}
	return fd;
}

/* Write one file of @size bytes; counts progress into *done. */
static int write_file(struct bench_claim *c, const char *name, int ours, uint64_t size,
		      unsigned int k, uint64_t *done, uint64_t total, double t0)
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
		if (direct && len % 4096) {
			/* O_DIRECT wants whole blocks: finish the tail buffered */
			close(fd);
			direct = 0;
			fd = openat(c->dir_fd, name, O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
			if (fd < 0) {
				ret = -errno;
				goto out_free;
			}
		}
		if (pwrite(fd, buf, len, (off_t)off) != (ssize_t)len) {
			ret = errno ? -errno : -EIO;
			break;
		}
		*done += len;
		progress(*done, total, t0);	/* drawn a few times a second */
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
	uint64_t total = 0, done = 0;
	double t0 = now_sec();
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
	progress_start(&layout_progress, !job->quiet, "laying out the data set", total);
	for (unsigned int k = 0; k < run->nfiles; k++) {
		struct bench_claim *c = file_claim(run, k, name, sizeof(name));
		int what = classify(c, name, job->size), ret;

		if (what == 1)
			continue;
		if (what < 0) {
			progress_end(&layout_progress);
			return error("'%s' appeared and was not made by pagecliff bench: "
				     "refusing to touch it", run->files[k]);
		}
		ret = write_file(c, name, what == 2, job->size, k, &done, total, t0);
		if (ret)
			progress_end(&layout_progress);
		if (ret == -EINTR)
			return error("interrupted while laying out '%s'", run->files[k]);
		if (ret)
			return error("cannot write '%s': %s", run->files[k], strerror(-ret));
	}
	if (total) {
		double secs = now_sec() - t0;

		progress_end(&layout_progress);
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
		close(fd);
		ret = made_add(c, name);
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
		struct stat st;
		int i;

		if (fstatat(c->dir_fd, name, &st, AT_SYMLINK_NOFOLLOW) ||
		    (i = made_find(c, name, &st)) < 0)
			continue;
		if (unlinkat(c->dir_fd, name, 0)) {
			warning("cannot remove '%s': %s", run->files[k], strerror(errno));
			continue;
		}
		c->made[i] = c->made[--c->nmade];
		made_write(c, "");
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
		/* the holder may have removed the file before letting go */
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

static int claim_one(struct bench_run *run, struct bench_claim *c, const char *dir)
{
	char who[128];
	int made, lock_made = 0, ret;

	ret = open_folder(c, dir, &made);
	if (ret == -ELOOP || ret == -ENOTDIR)
		return error("'%s' is %s: refusing to follow or replace it; move it away or "
			     "choose another --directory", c->path,
			     ret == -ELOOP ? "a symbolic link" : "not a directory");
	if (ret)
		return error("cannot create '%s': %s", c->path, strerror(-ret));
	ret = take_lock(c, who, sizeof(who), &lock_made);
	if (ret == -EWOULDBLOCK)
		ret = error("'%s' is in use by another pagecliff bench run (%s): wait for it "
			    "to end or choose another --directory", dir, who);
	else if (ret)
		ret = error("cannot lock '%s/" LOCK_NAME "': %s", c->path, strerror(-ret));
	if (!ret && made_read(c))
		ret = error("'%s/" MADE_NAME "' was not made by pagecliff bench: refusing to "
			    "touch it; move it away or choose another --directory", c->path);
	if (!ret && ((made && (ret = made_add(c, "."))) ||
		     (lock_made && (ret = made_add(c, LOCK_NAME)))))
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
	if (c->made_new)
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
	for (unsigned int i = 0; i < c->nmade; i++) {
		const char *name = c->made[i].name;

		if (!strcmp(name, "."))
			folder = 1;
		else if (!keep && strcmp(name, LOCK_NAME) && is_made(c, name))
			unlinkat(c->dir_fd, name, 0);
	}
	if (keep)
		made_write(c, LOCK_NAME);
	else if (c->have_made)
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
