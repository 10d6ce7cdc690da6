// SPDX-License-Identifier: MIT
/*
 * auto's reason gives the share of the file cached before the stream read
 * anything: of the page-rounded size, never above 100%.  A 1-byte and a
 * 5000-byte file, cold, are 0% cached (the probe once said 409600% and 81%,
 * having read a byte first); the same files warm are 100%; and the probe
 * itself brings no page of a cold file in.  Where the kernel lacks what auto
 * would use (cachestat before 6.5, RWF_DONTCACHE before 6.14: refused here
 * with seccomp, and met for real in tests/vm), the reason names it.
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

/* The reason of the last auto_pct(). */
static char last_reason[256];

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
	snprintf(last_reason, sizeof(last_reason), "%s", st.reason);
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

struct warm_run {
	const char *path;
	uint64_t size, cached;
	long pct;		/* auto's reason, -1 when the file did not warm */
};

/* One try: warm the file, then ask auto; T_WARM_LOST unless it says 100%. */
static int warm_try(void *arg)
{
	struct warm_run *w = arg;
	uint64_t after_open;

	warm(w->path, w->size);
	w->cached = t_cached(w->path);
	w->pct = w->cached == page_bytes(w->size) ? auto_pct(w->path, w->size, &after_open) : -1;
	if (w->pct == 100)
		return 0;
	printf("warm %llu-byte file: %llu bytes cached, reason %ld%%\n",
	       (unsigned long long)w->size, (unsigned long long)w->cached, w->pct);
	return T_WARM_LOST;
}

static void check_file(const char *dir, uint64_t size)
{
	char path[4200];
	struct warm_run w = { .path = path, .size = size };
	uint64_t after_open;
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

	/* DAMON (docs/MACHINES.md) may page the warm file out behind our back before
	 * auto looks; a probe that misreads warm does so every time. */
	t_warm_tries(warm_try, &w);
	T_CHECK(w.cached == page_bytes(size), "warm %s: %llu cached", path,
		(unsigned long long)w.cached);
	pct = w.pct;
	T_CHECK(pct == 100, "warm %llu-byte file: reason says %ld%%",
		(unsigned long long)size, pct);
	T_CHECK(!strstr(last_reason, "mincore"), "cachestat works, yet: %s", last_reason);
}

/* As on Linux 6.1: no cachestat, no RWF_DONTCACHE; the reason says both. */
static int check_old_kernel(void *arg)
{
	const char *dir = arg;
	char path[4200];
	uint64_t after_open;

	t_refuse(T_REFUSE_CACHESTAT);
	t_refuse(T_REFUSE_DONTCACHE);
	snprintf(path, sizeof(path), "%s/old", dir);
	t_make_file(path, 5000, 5);
	warm(path, 5000);
	auto_pct(path, 5000, &after_open);
	T_CHECK(strstr(last_reason, "no cachestat"), "reason does not name cachestat: %s",
		last_reason);
	T_CHECK(strstr(last_reason, "RWF_DONTCACHE is refused"),
		"reason does not name RWF_DONTCACHE: %s", last_reason);
	return T_EXIT_PASS;
}

int main(void)
{
	char dir[4096];

	t_tmpdir(dir, sizeof(dir), t_workdir());
	check_file(dir, 1);
	check_file(dir, 5000);
	T_CHECK(t_in_child(check_old_kernel, dir) == T_EXIT_PASS, "old kernel's reason");
	t_rmtree(dir);
	printf("PASS\n");
	return T_EXIT_PASS;
}
