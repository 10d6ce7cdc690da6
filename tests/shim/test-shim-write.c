// SPDX-License-Identifier: MIT
/*
 * Writers under the shim: every way a program writes a file sequentially
 * (write, pwrite, writev, pwritev2, O_APPEND, fwrite, and the destination of
 * copy_file_range, sendfile and splice) gets the right bytes with errno left
 * alone, and the file is not left in the page cache after close.  Pages that
 * someone else dirtied before are left dirty: the shim starts no writeback
 * of them.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sendfile.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "helpers.h"

#ifndef __NR_cachestat
#define __NR_cachestat 451
#endif

#define SIZE (64ull << 20)
#define CHUNK (1u << 20)
#define MAX_LEFT (16ull << 20)

enum way { W_WRITE, W_PWRITE, W_WRITEV, W_PWRITEV2, W_APPEND, W_FWRITE, W_COPY_FILE_RANGE,
	   W_SENDFILE, W_SPLICE, W_NWAYS };
static const char *const way_name[] = { "write", "pwrite", "writev", "pwritev2", "O_APPEND",
					"fwrite", "copy_file_range", "sendfile", "splice" };
static char dir[300], src[400];

static void write_chunk(enum way way, int fd, FILE *fp, char *buf, uint64_t off)
{
	struct iovec iov[2] = { { buf, CHUNK / 2 }, { buf + CHUNK / 2, CHUNK / 2 } };
	ssize_t n = -1;

	errno = EDOM;
	switch (way) {
	case W_WRITE: case W_APPEND: n = write(fd, buf, CHUNK); break;
	case W_PWRITE: n = pwrite(fd, buf, CHUNK, off); break;
	case W_WRITEV: n = writev(fd, iov, 2); break;
	case W_PWRITEV2: n = pwritev2(fd, iov, 2, off, 0); break;
	case W_FWRITE: n = (ssize_t)fwrite(buf, 1, CHUNK, fp); break;
	default: break;
	}
	T_CHECK(n == CHUNK, "%s at %llu: %zd (%s)", way_name[way], (unsigned long long)off, n,
		 strerror(errno));
	T_CHECK(errno == EDOM, "%s changed errno to %d", way_name[way], errno);
}

/* The in-kernel copies, from the pattern file @src. */
static void copy_in_kernel(enum way way, int out)
{
	int in = open(src, O_RDONLY), p[2];
	uint64_t done = 0;
	ssize_t n;

	T_CHECK(in >= 0, "open %s: %s", src, strerror(errno));
	if (way == W_COPY_FILE_RANGE) {
		while ((n = copy_file_range(in, NULL, out, NULL, SIZE, 0)) > 0)
			done += n;
	} else if (way == W_SENDFILE) {
		while ((n = sendfile(out, in, NULL, SIZE)) > 0)
			done += n;
	} else {
		T_CHECK(pipe(p) == 0, "pipe: %s", strerror(errno));
		while ((n = splice(in, NULL, p[1], NULL, 1 << 16, 0)) > 0)
			for (ssize_t left = n; left > 0; left -= n, done += n)
				T_CHECK((n = splice(p[0], NULL, out, NULL, left, 0)) > 0,
					 "splice out: %s", strerror(errno));
		close(p[0]);
		close(p[1]);
	}
	T_CHECK(done == SIZE, "%s copied %llu bytes (%s)", way_name[way],
		 (unsigned long long)done, strerror(errno));
	close(in);
}

static void check_file(const char *path, uint32_t seed)
{
	char *buf = malloc(CHUNK);
	int fd = open(path, O_RDONLY);

	for (uint64_t off = 0; off < SIZE; off += CHUNK) {
		T_CHECK(pread(fd, buf, CHUNK, off) == CHUNK, "read back: %s", strerror(errno));
		T_CHECK(t_pattern_check(buf, off, CHUNK, seed) < 0, "%s: wrong bytes at %llu", path,
			 (unsigned long long)off);
	}
	close(fd);
	free(buf);
}

static void one_way(enum way way)
{
	char path[400], *buf = malloc(CHUNK);
	int flags = O_WRONLY | O_CREAT | O_TRUNC | (way == W_APPEND ? O_APPEND : 0);
	uint64_t left;
	FILE *fp = NULL;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, way_name[way]);
	fd = open(path, flags, 0644);
	T_CHECK(fd >= 0 && buf, "open %s: %s", path, strerror(errno));
	if (way == W_FWRITE)
		fp = fdopen(fd, "w");
	if (way >= W_COPY_FILE_RANGE) {
		copy_in_kernel(way, fd);
	} else {
		for (uint64_t off = 0; off < SIZE; off += CHUNK) {
			t_pattern_fill(buf, off, CHUNK, 1);
			write_chunk(way, fd, fp, buf, off);
		}
	}
	errno = EDOM;
	T_CHECK((fp ? fclose(fp) : close(fd)) == 0 && errno == EDOM, "%s: close: errno %d",
		 way_name[way], errno);
	left = t_cached(path);
	check_file(path, 1);
	T_CHECK(left <= MAX_LEFT, "%s: %llu MiB of %llu left cached", way_name[way],
		 (unsigned long long)(left >> 20), (unsigned long long)(SIZE >> 20));
	printf("%s: %llu MiB left cached\n", way_name[way], (unsigned long long)(left >> 20));
	unlink(path);
	free(buf);
}

static uint64_t dirty_range(const char *path, uint64_t off, uint64_t len)
{
	struct { uint64_t off, len; } r = { off, len };
	struct { uint64_t cache, dirty, wb, ev, rev; } cs;
	int fd = open(path, O_RDONLY);

	T_CHECK(syscall(__NR_cachestat, fd, &r, &cs, 0) == 0, "cachestat: %s", strerror(errno));
	close(fd);
	return cs.dirty * (uint64_t)sysconf(_SC_PAGESIZE);
}

/* [0, 16 MiB) dirtied behind the shim's back, then the program writes on. */
static void others_dirty(void)
{
	char path[400], *buf = malloc(CHUNK);
	uint64_t before, after;
	int fd;

	snprintf(path, sizeof(path), "%s/others", dir);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	for (uint64_t off = 0; off < (16u << 20); off += CHUNK) {
		t_pattern_fill(buf, off, CHUNK, 2);
		T_CHECK(syscall(SYS_pwrite64, fd, buf, CHUNK, off) == CHUNK, "raw pwrite");
	}
	before = dirty_range(path, 0, 16u << 20);
	T_CHECK(lseek(fd, 16u << 20, SEEK_SET) == 16u << 20, "lseek");
	for (uint64_t off = 16u << 20; off < SIZE; off += CHUNK) {
		t_pattern_fill(buf, off, CHUNK, 2);
		T_CHECK(write(fd, buf, CHUNK) == CHUNK, "write: %s", strerror(errno));
	}
	close(fd);
	after = dirty_range(path, 0, 16u << 20);
	T_CHECK(after >= before - before / 10,
		 "someone else's dirty pages went from %llu to %llu bytes: writeback was started",
		 (unsigned long long)before, (unsigned long long)after);
	check_file(path, 2);
	free(buf);
}

int main(int argc, char **argv)
{
	if (!t_shimmed())
		t_reexec_with_shim(argv);
	snprintf(dir, sizeof(dir), "%s", t_testdir());
	snprintf(src, sizeof(src), "%s/src", dir);
	t_make_file(src, SIZE, 1);
	t_evict(src);
	for (enum way w = 0; w < W_NWAYS; w++)
		one_way(w);
	others_dirty();
	printf("PASS: %d ways of writing: right bytes, errno kept, not left cached; "
	       "others' dirty pages left dirty\n", W_NWAYS);
	return 0;
}
