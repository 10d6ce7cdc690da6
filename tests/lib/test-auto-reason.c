// SPDX-License-Identifier: MIT
/*
 * auto's reason gives the share of the file cached before the stream read
 * anything: of the page-rounded size, never above 100%.  A 1-byte and a
 * 5000-byte file, cold, are 0% cached (the probe once said 409600% and 81%,
 * having read a byte first); the same files warm are 100%; and the probe
 * itself brings no page of a cold file in.
 */
#include <string.h>
#include <unistd.h>

#include "helpers.h"
#include "pagecliff.h"

/* The number before the first '%' of the reason, or -1. */
static long reason_pct(const char *reason)
{
	const char *pct = strchr(reason, '%');
	const char *p = pct;

	if (!pct)
		return -1;
	while (p > reason && p[-1] >= '0' && p[-1] <= '9')
		p--;
	return p == pct ? -1 : strtol(p, NULL, 10);
}

static long auto_pct(const char *path, uint64_t size, uint64_t *ret_after_open)
{
	struct pc_stream *s;
	struct pc_stats st;
	char buf[8192];
	long pct;

	T_CHECK(!pc_stream_open(&s, path, NULL), "open %s", path);
	*ret_after_open = t_cached(path);
	T_CHECK(pc_stream_read(s, buf, sizeof(buf)) == (ssize_t)size, "read %s", path);
	T_CHECK(t_pattern_check(buf, 0, size, 5) < 0, "bytes of %s", path);
	pc_stream_stats(s, &st);
	pc_stream_close(s);
	pct = reason_pct(st.reason);
	printf("%5llu bytes: %s\n", (unsigned long long)size, st.reason);
	return pct;
}

/* The file's size in whole pages: what a read of all of it caches. */
static uint64_t page_bytes(uint64_t size)
{
	uint64_t page = sysconf(_SC_PAGESIZE);

	return (size + page - 1) / page * page;
}

static void warm(const char *path, uint64_t size)
{
	char buf[8192];
	FILE *f;

	t_evict(path);
	f = fopen(path, "r");
	T_CHECK(f && fread(buf, 1, size, f) == size, "warm %s", path);
	fclose(f);
}

static void check_file(const char *dir, uint64_t size)
{
	char path[4200];
	uint64_t after_open, cached;
	long pct;

	snprintf(path, sizeof(path), "%s/f%llu", dir, (unsigned long long)size);
	t_make_file(path, size, 5);
	t_evict(path);
	T_CHECK(t_cached(path) == 0, "could not evict %s", path);
	pct = auto_pct(path, size, &after_open);
	T_CHECK(pct == 0, "cold %llu-byte file: reason says %ld%%",
		(unsigned long long)size, pct);
	T_CHECK(after_open == 0, "opening a cold %llu-byte file brought %llu bytes in",
		(unsigned long long)size, (unsigned long long)after_open);

	/* DAMON (FIELD.md) may page the warm file out behind our back before
	 * auto looks; a probe that misreads warm does so every time: three tries. */
	for (int tries = 1;; tries++) {
		warm(path, size);
		cached = t_cached(path);
		pct = cached == page_bytes(size) ? auto_pct(path, size, &after_open) : -1;
		if (pct == 100 || tries == 3)
			break;
		printf("warm %llu-byte file: %llu bytes cached, reason %ld%%: again\n",
		       (unsigned long long)size, (unsigned long long)cached, pct);
	}
	T_CHECK(cached == page_bytes(size), "warm %s: %llu cached", path,
		(unsigned long long)cached);
	T_CHECK(pct == 100, "warm %llu-byte file: reason says %ld%%",
		(unsigned long long)size, pct);
}

int main(void)
{
	char dir[4096];

	t_tmpdir(dir, sizeof(dir), t_workdir());
	check_file(dir, 1);
	check_file(dir, 5000);
	t_rmtree(dir);
	printf("PASS\n");
	return T_EXIT_PASS;
}
