// SPDX-License-Identifier: MIT
/*
 * direct's memory is bounded: with 1 GiB chunks and 4096 reads in flight
 * (once 8 GB and 4.2 GB of RSS), a stream's peak resident memory grows by
 * at most PC_DIRECT_INFLIGHT_MAX, and by no more than the file for a small
 * one, while every byte read is exact.
 */
#include <string.h>
#include <unistd.h>

#include "helpers.h"
#include "pagecliff.h"

#ifndef PC_DIRECT_INFLIGHT_MAX
#define PC_DIRECT_INFLIGHT_MAX (64ull << 20)	/* before there was a bound */
#endif

#define SLACK (8ull << 20)

/* VmHWM of this process in bytes. */
static uint64_t peak_rss(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	unsigned long long kib = 0;
	char line[256];

	T_CHECK(f, "open /proc/self/status");
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmHWM: %llu kB", &kib) == 1)
			break;
	fclose(f);
	T_CHECK(kib, "no VmHWM");
	return kib << 10;
}

struct job {
	const char *path;
	uint64_t size;
	unsigned int inflight;
	int lend;
};

/* In a child, so that each case starts from its own peak. */
static int run_case(void *arg)
{
	const struct job *j = arg;
	char *buf = pc_buf_alloc(1 << 20);
	uint64_t before, grown, off = 0, bound;
	struct pc_stream *s;
	struct pc_stats st;
	struct pc_opts o;
	ssize_t n;

	T_CHECK(buf, "alloc");
	memset(buf, 0, 1 << 20);
	before = peak_rss();
	pc_opts_init(&o);
	o.strategy = PC_DIRECT;
	o.chunk_size = 1024u << 20;
	o.inflight = j->inflight;
	T_CHECK(!pc_stream_open(&s, j->path, &o), "open %s with 1 GiB chunks", j->path);
	for (;;) {
		const void *p;

		if (j->lend) {
			n = pc_stream_next(s, &p);
			if (n > 0)
				T_CHECK(t_pattern_check(p, off, n, 3) < 0, "bytes at %llu",
					(unsigned long long)off);
		} else {
			n = pc_stream_read(s, buf, 1 << 20);
			if (n > 0)
				T_CHECK(t_pattern_check(buf, off, n, 3) < 0, "bytes at %llu",
					(unsigned long long)off);
		}
		if (n <= 0)
			break;
		off += n;
	}
	T_CHECK(n == 0 && off == j->size, "read %llu of %llu bytes (%zd)",
		(unsigned long long)off, (unsigned long long)j->size, n);
	pc_stream_stats(s, &st);
	grown = peak_rss() - before;
	bound = j->size < PC_DIRECT_INFLIGHT_MAX ? j->size : PC_DIRECT_INFLIGHT_MAX;
	printf("%llu MiB file, inflight %u, %s: peak RSS grew %llu MiB (bound %llu MiB): %s\n",
	       (unsigned long long)(j->size >> 20), j->inflight, j->lend ? "next" : "read",
	       (unsigned long long)(grown >> 20), (unsigned long long)(bound >> 20),
	       st.reason);
	fflush(stdout);
	T_CHECK(st.strategy == PC_DIRECT, "not direct: %s", st.reason);
	T_CHECK(grown <= bound + SLACK, "peak RSS grew %llu MiB, the bound is %llu MiB",
		(unsigned long long)(grown >> 20), (unsigned long long)(bound >> 20));
	pc_stream_close(s);
	pc_buf_free(buf, 1 << 20);
	return 0;
}

int main(void)
{
	char dir[4096], small[4200], large[4200];

	t_tmpdir(dir, sizeof(dir), t_workdir());
	snprintf(small, sizeof(small), "%s/small", dir);
	snprintf(large, sizeof(large), "%s/large", dir);
	t_make_file(small, (3ull << 20) + 77, 3);
	t_make_file(large, 200ull << 20, 3);
	const struct job jobs[] = {
		{ small, (3ull << 20) + 77, 8, 0 },
		{ small, (3ull << 20) + 77, 4096, 1 },
		{ large, 200ull << 20, 4096, 0 },
		{ large, 200ull << 20, 8, 1 },
	};
	fflush(stdout);
	for (size_t i = 0; i < sizeof(jobs) / sizeof(jobs[0]); i++)
		T_CHECK(t_in_child(run_case, (void *)&jobs[i]) == 0, "case %zu failed", i);
	t_rmtree(dir);
	printf("PASS\n");
	return T_EXIT_PASS;
}
