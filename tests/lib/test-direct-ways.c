// SPDX-License-Identifier: MIT
/*
 * The direct strategy's copy API switches between reading into the
 * caller's buffer and reading through its pipeline as it times both (trials
 * of 32 MiB, then 1 GiB the faster way, then trials again).  Read a file
 * past two switches of each kind with aligned and unaligned reads, and
 * check every byte.
 */
#include <string.h>
#include <unistd.h>

#include "helpers.h"
#include "pagecliff.h"

#define FILE_SIZE ((1ull << 30) + (80ull << 20) + 3)

static void read_all(const char *path, size_t misalign)
{
	size_t len = 1 << 20;
	char *mem = pc_buf_alloc(len + 4096), *buf = mem + misalign;
	struct pc_opts o;
	struct pc_stream *s;
	uint64_t off = 0;
	ssize_t n;

	pc_opts_init(&o);
	o.strategy = PC_DIRECT;
	T_CHECK(!pc_stream_open(&s, path, &o), "open %s", path);
	while ((n = pc_stream_read(s, buf, len)) > 0) {
		int64_t bad = t_pattern_check(buf, off, n, 11);

		T_CHECK(bad < 0, "byte %lld differs (buffer at page offset %zu)",
			(long long)bad, misalign);
		off += n;
		/* Now and then a read of an odd length: the pipeline takes over. */
		if ((off >> 20) % 97 == 5)
			len = 12345;
		else
			len = 1 << 20;
	}
	T_CHECK(n == 0 && off == FILE_SIZE, "read %llu of %llu bytes (%zd)",
		(unsigned long long)off, (unsigned long long)FILE_SIZE, n);
	pc_stream_close(s);
	pc_buf_free(mem, (1 << 20) + 4096);
}

int main(void)
{
	char dir[4096], path[4200];

	t_tmpdir(dir, sizeof(dir), t_workdir());
	snprintf(path, sizeof(path), "%s/ways", dir);
	t_make_file(path, FILE_SIZE, 11);
	read_all(path, 0);
	read_all(path, 16);
	t_rmtree(dir);
	printf("direct copy API exact across its switches\n");
	return T_EXIT_PASS;
}
