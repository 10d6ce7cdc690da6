// SPDX-License-Identifier: MIT
/*
 * A writer whose fd number changes under a run: the program writes 16 MiB of
 * out through fd A, moves it with dup(A) = B and close(A), opens another file
 * (warm in the cache), which gets the number A, and writes 48 MiB more of
 * out through B.  The shim's write-behind must act on out, not on whatever
 * the run's first fd number names now: out is not left cached, the other
 * file keeps its cached pages, and no page of it is made dirty or written.
 * A flusher that keeps fd A leaves out cached (its batches judged by the
 * other file's cache) or drops the other file.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "helpers.h"

#define CHUNK (1u << 20)
#define FIRST (16ull << 20)
#define SIZE (64ull << 20)
#define OTHER (64ull << 20)
#define MAX_LEFT (16ull << 20)

/* Read @path into the cache with raw pread64, which the shim does not see
 * (its reads would be dropped behind). */
static void warm(const char *path, char *buf)
{
	int fd = open(path, O_RDONLY);

	T_CHECK(fd >= 0, "open %s: %s", path, strerror(errno));
	for (uint64_t off = 0; off < OTHER; off += CHUNK)
		T_CHECK(syscall(SYS_pread64, fd, buf, CHUNK, off) == CHUNK, "pread: %s",
			 strerror(errno));
	close(fd);
}

static void write_out(int fd, char *buf, uint64_t from, uint64_t to)
{
	for (uint64_t off = from; off < to; off += CHUNK) {
		t_pattern_fill(buf, off, CHUNK, 3);
		T_CHECK(write(fd, buf, CHUNK) == CHUNK, "write at %llu: %s",
			 (unsigned long long)off, strerror(errno));
	}
}

static void check_out(const char *path, char *buf)
{
	int fd = open(path, O_RDONLY);

	T_CHECK(fd >= 0, "open %s: %s", path, strerror(errno));
	for (uint64_t off = 0; off < SIZE; off += CHUNK)
		T_CHECK(read(fd, buf, CHUNK) == CHUNK && (t_pattern_check(buf, off, CHUNK, 3) < 0),
			 "out: wrong bytes at %llu", (unsigned long long)off);
	close(fd);
}

struct files {
	char out[300], other[300], *buf;
};

/*
 * One run of the scenario.  Returns T_WARM_LOST when the other file lost
 * pages, or could not be warmed: DAMON (docs/MACHINES.md) pages out coarse
 * physical regions, 64 MiB at once is possible.  Fails outright on out left
 * cached, wrong bytes or dirty pages.
 */
static int attempt(void *arg)
{
	const struct files *f = arg;
	const char *out = f->out, *other = f->other;
	char *buf = f->buf;
	uint64_t other_before, other_after, left;
	int a, b, c;

	a = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	T_CHECK(a >= 0, "open %s: %s", out, strerror(errno));
	write_out(a, buf, 0, FIRST);
	b = dup(a);
	T_CHECK(b >= 0 && close(a) == 0, "dup/close: %s", strerror(errno));
	warm(other, buf);
	c = open(other, O_RDONLY);
	T_CHECK(c == a, "the other file got fd %d, not the freed %d", c, a);
	other_before = t_cached(other);
	write_out(b, buf, FIRST, SIZE);
	T_CHECK(close(b) == 0, "close: %s", strerror(errno));
	other_after = t_cached(other);
	left = t_cached(out);
	T_CHECK(t_dirty(other) == 0, "the other file has %llu dirty bytes",
		 (unsigned long long)t_dirty(other));
	close(c);
	check_out(out, buf);
	printf("out: %llu MiB of %llu left cached; other: %llu MiB cached before, %llu after\n",
	       (unsigned long long)(left >> 20), (unsigned long long)(SIZE >> 20),
	       (unsigned long long)(other_before >> 20), (unsigned long long)(other_after >> 20));
	T_CHECK(left <= MAX_LEFT, "out: %llu MiB of %llu left cached",
		 (unsigned long long)(left >> 20), (unsigned long long)(SIZE >> 20));
	if (other_before < OTHER / 2 || other_after + (8ull << 20) < other_before)
		return T_WARM_LOST;
	return 0;
}

int main(int argc, char **argv)
{
	struct files f = { .buf = malloc(CHUNK) };

	(void)argc;
	T_CHECK(f.buf, "malloc");
	if (!t_shimmed())
		t_reexec_with_shim(argv);
	snprintf(f.out, sizeof(f.out), "%s/out", t_testdir());
	snprintf(f.other, sizeof(f.other), "%s/other", t_testdir());
	t_make_file(f.other, OTHER, 8);
	t_evict(f.other);
	T_CHECK(t_warm_tries(attempt, &f) == 0,
		"three tries: the other file could not be warmed or lost its cache");
	free(f.buf);
	printf("PASS: write-behind follows the file, not the fd number of the run's first write\n");
	return 0;
}
