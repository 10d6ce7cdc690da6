// SPDX-License-Identifier: MIT
/*
 * direct finishes a read that came back short before the end of the file
 * through O_DIRECT, so the page cache stays out of it.  A short completion
 * made for real: the pipeline reads the chunk at the file's end (short, at
 * the old size), then the file grows and its pages are evicted; finishing
 * that chunk must bring none of them into the cache (it used a buffered
 * pread on the stream's own descriptor, ~1 MiB cached).
 */
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "helpers.h"
#include "pagecliff.h"

#define MIB (1ull << 20)
#define OLD_SIZE (MIB + 100)
#define GROW MIB
#define SEED 21

static void append(const char *path)
{
	char *buf = malloc(GROW);
	int fd = open(path, O_WRONLY | O_APPEND);

	T_CHECK(buf && fd >= 0, "open %s", path);
	t_pattern_fill(buf, OLD_SIZE, GROW, SEED);
	T_CHECK(write(fd, buf, GROW) == (ssize_t)GROW, "append");
	T_CHECK(!fdatasync(fd), "fdatasync");
	close(fd);
	free(buf);
	t_evict(path);
}

int main(void)
{
	char dir[4096], path[4200];
	struct pc_stream *s;
	struct pc_stats st;
	struct pc_opts o;
	uint64_t off = 0, cached;
	const void *p;
	ssize_t n;

	t_tmpdir(dir, sizeof(dir), t_workdir());
	snprintf(path, sizeof(path), "%s/f", dir);
	t_make_file(path, OLD_SIZE, SEED);
	t_evict(path);
	pc_opts_init(&o);
	o.strategy = PC_DIRECT;
	o.chunk_size = MIB;
	T_CHECK(!pc_stream_open(&s, path, &o), "open %s", path);
	pc_stream_stats(s, &st);
	if (st.strategy != PC_DIRECT)
		t_skip("direct not available here: %s", st.reason);
	n = pc_stream_next(s, &p);	/* both chunks in flight; the second short */
	T_CHECK(n == (ssize_t)MIB && t_pattern_check(p, 0, n, SEED) < 0,
		"first chunk: %zd bytes", n);
	off = n;
	append(path);
	T_CHECK(t_cached(path) == 0, "could not evict %s", path);
	while ((n = pc_stream_next(s, &p)) > 0) {
		T_CHECK(t_pattern_check(p, off, n, SEED) < 0, "bytes at %llu",
			(unsigned long long)off);
		off += n;
	}
	T_CHECK(n == 0, "read failed: %zd", n);
	/* End of file at the size the pipeline saw; the next call sees the rest. */
	while ((n = pc_stream_next(s, &p)) > 0) {
		T_CHECK(t_pattern_check(p, off, n, SEED) < 0, "bytes at %llu",
			(unsigned long long)off);
		off += n;
	}
	T_CHECK(n == 0, "read failed: %zd", n);
	cached = t_cached(path);
	printf("read %llu of %llu bytes; %llu bytes cached after\n",
	       (unsigned long long)off, OLD_SIZE + GROW, (unsigned long long)cached);
	T_CHECK(off == OLD_SIZE + GROW, "read %llu bytes, the file has %llu",
		(unsigned long long)off, OLD_SIZE + GROW);
	T_CHECK(cached == 0, "finishing the short read cached %llu bytes",
		(unsigned long long)cached);
	pc_stream_close(s);
	t_rmtree(dir);
	printf("PASS\n");
	return T_EXIT_PASS;
}
