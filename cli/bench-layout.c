// SPDX-License-Identifier: MIT
/*
 * The data set of pagecliff bench: one file per thread in DIR/pagecliff-bench/,
 * named job<N>.dat, non-zero data, recognised as bench's own by a header in
 * its first bytes ("pagecliff-bench data file v1").  Files with the header
 * and the right size are reused; bench never opens for writing a file
 * without the header, and removes only files with it.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "bench.h"
#include "util.h"

#define HEADER "pagecliff-bench data file v1\n"
#define LAYOUT_BLOCK (1u << 20)

/* File @k of the job: DIR/pagecliff-bench/job<j>.dat. */
static void file_path(const struct bench_job *job, unsigned int k, char *buf, size_t len)
{
	snprintf(buf, len, "%s/" BENCH_FOLDER "/job%u.dat", job->dirs[k / job->numjobs],
		 k % job->numjobs);
}

/*
 * What is at @path: 0 absent, 1 ours with @size bytes, 2 ours but another
 * size, -1 foreign (no header, not a regular file, unreadable).
 */
static int classify(const char *path, uint64_t size)
{
	char head[sizeof(HEADER)] = "";
	struct stat st;
	int fd;

	if (lstat(path, &st))
		return errno == ENOENT ? 0 : -1;
	if (!S_ISREG(st.st_mode))
		return -1;
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
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

static void progress(uint64_t done, uint64_t total, double t0)
{
	char a[32], b[32];
	double secs = now_sec() - t0;

	if (!isatty(STDERR_FILENO))
		return;
	fprintf(stderr, "\rlaying out the data set: %s of %s, %.2f GB/s   ",
		bench_size(done, a, sizeof(a)), bench_size(total, b, sizeof(b)),
		secs > 0 ? done / secs / 1e9 : 0.0);
}

/* Open @path for writing: new (O_EXCL) or ours to rewrite (truncated). */
static int open_for_layout(const char *path, int ours, int *ret_direct)
{
	int flags = O_WRONLY | O_NOFOLLOW | O_CLOEXEC | (ours ? O_TRUNC : O_CREAT | O_EXCL);
	int fd;

	fd = open(path, flags | O_DIRECT, 0644);
	*ret_direct = fd >= 0;
	if (fd < 0 && errno == EINVAL)
		fd = open(path, flags, 0644);
	return fd < 0 ? -errno : fd;
}

/* Write one file of @size bytes; counts progress into *done. */
static int write_file(const char *path, int ours, uint64_t size, unsigned int k,
		      uint64_t *done, uint64_t total, double t0)
{
	uint8_t *buf = pc_buf_alloc(LAYOUT_BLOCK);
	int fd, direct, ret = 0;

	if (!buf)
		return -ENOMEM;
	fd = open_for_layout(path, ours, &direct);
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
			fd = open(path, O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
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
		if (!(*done % (64u << 20)))
			progress(*done, total, t0);
	}
	if (!ret && bench_stop)
		ret = -EINTR;
	if (!ret && fdatasync(fd))
		ret = -errno;
	posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	close(fd);
	if (ret)
		unlink(path);	/* half-written: ours, and useless */
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
		char *path = run->files[k];
		int what;

		file_path(job, k, path, sizeof(run->files[k]));
		what = classify(path, job->size);
		if (what < 0)
			return error("'%s' was not made by pagecliff bench (it lacks the "
				     "pagecliff-bench header): refusing to touch it; move it "
				     "away or choose another --directory", path);
		if (what != 1)
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
	char dir[4096 + 32], a[32];

	for (unsigned int k = 0; k < run->nfiles; k++)
		if (classify(run->files[k], job->size) != 1)
			total += job->size;
	for (unsigned int d = 0; d < job->ndirs; d++) {
		snprintf(dir, sizeof(dir), "%s/" BENCH_FOLDER, job->dirs[d]);
		if (mkdir(dir, 0755) && errno != EEXIST)
			return error("cannot create '%s': %s", dir, strerror(errno));
	}
	if (total)
		fprintf(stderr, "laying out %s in %u files\n",
			bench_size(total, a, sizeof(a)), run->nfiles);
	for (unsigned int k = 0; k < run->nfiles; k++) {
		int what = classify(run->files[k], job->size), ret;

		if (what == 1)
			continue;
		if (what < 0)
			return error("'%s' appeared and was not made by pagecliff bench: "
				     "refusing to touch it", run->files[k]);
		ret = write_file(run->files[k], what == 2, job->size, k, &done, total, t0);
		if (ret == -EINTR)
			return error("interrupted while laying out '%s'", run->files[k]);
		if (ret)
			return error("cannot write '%s': %s", run->files[k], strerror(-ret));
	}
	if (total) {
		double secs = now_sec() - t0;

		progress(done, total, t0);
		fprintf(stderr, "%slaid out %s in %.1f s (%.2f GB/s)\n",
			isatty(STDERR_FILENO) ? "\n" : "", bench_size(total, a, sizeof(a)),
			secs, secs > 0 ? total / secs / 1e9 : 0.0);
	}
	return 0;
}

void bench_unlayout(struct bench_run *run)
{
	char dir[4096 + 32];

	for (unsigned int k = 0; k < run->nfiles; k++)
		if (run->files[k][0] && classify(run->files[k], run->job.size) > 0)
			unlink(run->files[k]);
	for (unsigned int d = 0; d < run->job.ndirs; d++) {
		snprintf(dir, sizeof(dir), "%s/" BENCH_FOLDER, run->job.dirs[d]);
		rmdir(dir);	/* only when empty: foreign files stay */
	}
}
