// SPDX-License-Identifier: MIT
/*
 * The public structs keep room to grow (pagecliff.h): each ends in resv[],
 * their sizes stay as released, a caller's options with non-zero resv are
 * refused (so that a later field at 0 means "as before"), callers that
 * zero-initialise instead of calling pc_opts_init() still work, and what the
 * library fills has resv zero.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "helpers.h"
#include "pagecliff.h"

#define SIZE (3u << 20)
#define SEED 5

static int resv_zero(const uint64_t *resv, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (resv[i])
			return 0;
	return 1;
}

#define RESV_ZERO(s) resv_zero((s).resv, sizeof((s).resv) / sizeof((s).resv[0]))

/* The sizes of the released ABI (LP64: x86-64, arm64). */
static void check_sizes(void)
{
	if (sizeof(void *) != 8 || sizeof(long) != 8) {
		printf("sizes: not LP64, not checked\n");
		return;
	}
	T_CHECK(sizeof(struct pc_opts) == 80, "struct pc_opts is %zu bytes", sizeof(struct pc_opts));
	T_CHECK(sizeof(struct pc_probe) == 88, "struct pc_probe is %zu bytes", sizeof(struct pc_probe));
	T_CHECK(sizeof(struct pc_stats) == 232, "struct pc_stats is %zu bytes", sizeof(struct pc_stats));
	T_CHECK(sizeof(struct pc_wopts) == 64, "struct pc_wopts is %zu bytes", sizeof(struct pc_wopts));
	T_CHECK(sizeof(struct pc_wstats) == 232, "struct pc_wstats is %zu bytes", sizeof(struct pc_wstats));
	printf("sizes: opts 80, probe 88, stats 232, wopts 64, wstats 232\n");
}

/* Options zeroed by the caller read the file right; non-zero resv is refused. */
static void check_read(const char *path)
{
	struct pc_opts o = { .strategy = PC_BUFFERED };
	static char buf[1 << 20];
	struct pc_stream *s;
	struct pc_stats st;
	struct pc_probe p;
	uint64_t off = 0;
	ssize_t n;
	int fd;

	T_CHECK(!pc_stream_open(&s, path, &o), "zeroed pc_opts refused");
	while ((n = pc_stream_read(s, buf, sizeof(buf))) > 0) {
		T_CHECK(t_pattern_check(buf, off, n, SEED) < 0, "bad bytes at %llu",
			(unsigned long long)off);
		off += n;
	}
	T_CHECK(n == 0 && off == SIZE, "read %llu bytes", (unsigned long long)off);
	memset(&st, 0xff, sizeof(st));
	pc_stream_stats(s, &st);
	T_CHECK(RESV_ZERO(st), "pc_stats.resv not zero");
	pc_stream_close(s);

	o.resv[3] = 1;
	T_CHECK(pc_stream_open(&s, path, &o) == -EINVAL, "pc_opts with resv set accepted");
	pc_opts_init(&o);
	T_CHECK(RESV_ZERO(o), "pc_opts_init() left resv set");

	fd = open(path, O_RDONLY | O_CLOEXEC);
	T_CHECK(fd >= 0, "open %s", path);
	memset(&p, 0xff, sizeof(p));
	T_CHECK(!pc_probe_fd(fd, &p), "probe %s", path);
	T_CHECK(RESV_ZERO(p) && p.file_size == SIZE, "pc_probe.resv not zero");
	close(fd);
}

static void check_write(const char *path)
{
	struct pc_wopts o = { 0 };
	static char buf[1 << 20];
	struct pc_wstream *s;
	struct pc_wstats st;

	T_CHECK(!pc_wstream_open(&s, path, O_WRONLY | O_CREAT | O_TRUNC, 0644, &o),
		"zeroed pc_wopts refused");
	for (uint64_t off = 0; off < SIZE; off += sizeof(buf)) {
		t_pattern_fill(buf, off, sizeof(buf), SEED);
		T_CHECK(pc_wstream_write(s, buf, sizeof(buf)) == (ssize_t)sizeof(buf),
			"write at %llu", (unsigned long long)off);
	}
	memset(&st, 0xff, sizeof(st));
	T_CHECK(!pc_wstream_close_stats(s, &st), "close %s", path);
	T_CHECK(RESV_ZERO(st) && st.bytes_written == SIZE, "pc_wstats.resv not zero");
	o.resv[0] = 1;
	T_CHECK(pc_wstream_open(&s, path, O_WRONLY, 0, &o) == -EINVAL,
		"pc_wopts with resv set accepted");
}

int main(void)
{
	char dir[4096], path[4200];

	check_sizes();
	t_tmpdir(dir, sizeof(dir), t_workdir());
	snprintf(path, sizeof(path), "%s/data", dir);
	check_write(path);
	check_read(path);
	t_rmtree(dir);
	printf("resv: zero in what the library fills, refused when a caller sets it\n");
	return T_EXIT_PASS;
}
