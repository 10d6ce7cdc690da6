// SPDX-License-Identifier: MIT
/*
 * Page-cache footprint: after streaming a 512 MiB file, dontcache,
 * dropbehind, direct and auto leave at most 64 MiB of it cached and buffered
 * leaves most of it; a range cached before the stream is still cached after
 * it, for every strategy, when keeping is asked for (the default).
 */
#include <string.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "helpers.h"
#include "pagecliff.h"

#define FILE_SIZE (512ull << 20)
#define LIMIT (64ull << 20)
#define HOT_OFF (100ull << 20)
#define HOT_LEN (32ull << 20)

static void stream_all(const char *path, enum pc_strategy strategy,
		       struct pc_stats *ret_st)
{
	struct pc_opts o;
	struct pc_stream *s;
	char *buf = pc_buf_alloc(1 << 20);
	ssize_t n;

	pc_opts_init(&o);
	o.strategy = strategy;
	T_CHECK(!pc_stream_open(&s, path, &o), "open %s", path);
	while ((n = pc_stream_read(s, buf, 1 << 20)) > 0)
		;
	T_CHECK(n == 0, "read %s failed", path);
	pc_stream_stats(s, ret_st);
	pc_stream_close(s);
	pc_buf_free(buf, 1 << 20);
}

/* Bring [HOT_OFF, HOT_OFF + HOT_LEN) into the cache with plain reads. */
static void warm_range(const char *path)
{
	char *buf = malloc(1 << 20);
	FILE *f = fopen(path, "r");

	T_CHECK(f && buf, "open %s", path);
	for (uint64_t o = HOT_OFF; o < HOT_OFF + HOT_LEN; o += 1 << 20)
		T_CHECK(pread(fileno(f), buf, 1 << 20, o) == 1 << 20, "warm %s", path);
	fclose(f);
	free(buf);
}

static uint64_t cached_range(const char *path)
{
	uint64_t bytes;
	FILE *f = fopen(path, "r");

	T_CHECK(f && !pc_cached_bytes(fileno(f), HOT_OFF, HOT_LEN, &bytes),
		"cachestat %s", path);
	fclose(f);
	return bytes;
}

struct run {
	const char *path;
	enum pc_strategy strategy;
	uint64_t after, hot;
};

/* Cold: buffered keeps what it read, unless DAMON takes it meanwhile. */
static int cold_try(void *arg)
{
	struct run *r = arg;
	struct pc_stats st;

	t_evict(r->path);
	T_CHECK(t_cached(r->path) < (1 << 20), "%s: could not evict the file",
		pc_strategy_name(r->strategy));
	stream_all(r->path, r->strategy, &st);
	r->after = t_cached(r->path);
	printf("%-10s cold: %4llu MiB cached after (%s)\n", pc_strategy_name(r->strategy),
	       (unsigned long long)(r->after >> 20), pc_strategy_name(st.strategy));
	return r->strategy == PC_BUFFERED && r->after <= FILE_SIZE / 2 ? T_WARM_LOST : 0;
}

/*
 * Warm: pages this machine's reclaim (DAMON pages out memory it judges
 * idle, by coarse regions) takes meanwhile look like pages the strategy
 * dropped, or like a warm-up that did not take.
 */
static int warm_try(void *arg)
{
	struct run *r = arg;
	struct pc_stats st;

	t_evict(r->path);
	warm_range(r->path);
	r->hot = cached_range(r->path);
	if (r->hot != HOT_LEN) {
		printf("%-10s warm-up cached %llu of %llu bytes\n", pc_strategy_name(r->strategy),
		       (unsigned long long)r->hot, (unsigned long long)HOT_LEN);
		return T_WARM_LOST;
	}
	stream_all(r->path, r->strategy, &st);
	r->hot = cached_range(r->path);
	r->after = t_cached(r->path);
	printf("%-10s warm: %4llu of %llu MiB still cached, %4llu MiB total\n",
	       pc_strategy_name(r->strategy), (unsigned long long)(r->hot >> 20),
	       (unsigned long long)(HOT_LEN >> 20), (unsigned long long)(r->after >> 20));
	return r->hot == HOT_LEN ? 0 : T_WARM_LOST;
}

static void check_mode(const char *path, enum pc_strategy strategy)
{
	const char *name = pc_strategy_name(strategy);
	struct run r = { .path = path, .strategy = strategy };
	uint64_t after, hot;

	t_warm_tries(cold_try, &r);
	after = r.after;
	if (strategy == PC_BUFFERED)
		T_CHECK(after > FILE_SIZE / 2, "buffered left only %llu MiB",
			(unsigned long long)(after >> 20));
	else
		T_CHECK(after <= LIMIT, "%s left %llu MiB cached", name,
			(unsigned long long)(after >> 20));

	t_warm_tries(warm_try, &r);
	hot = r.hot;
	after = r.after;
	T_CHECK(hot == HOT_LEN, "%s dropped pages cached before: %llu of %llu left",
		name, (unsigned long long)hot, (unsigned long long)HOT_LEN);
	if (strategy != PC_BUFFERED)
		T_CHECK(after <= LIMIT + HOT_LEN, "%s left %llu MiB cached", name,
			(unsigned long long)(after >> 20));
}

int main(void)
{
	char dir[4096], path[4200];
	struct statfs sf;

	if (statfs(t_workdir(), &sf) == 0 && sf.f_type == 0x01021994)
		t_skip("the build folder is on tmpfs, which has no cache to drop");
	t_tmpdir(dir, sizeof(dir), t_workdir());
	snprintf(path, sizeof(path), "%s/big", dir);
	t_make_file(path, FILE_SIZE, 42);
	for (int st = PC_AUTO; st < PC_STRATEGY_COUNT; st++)
		check_mode(path, st);
	t_rmtree(dir);
	return T_EXIT_PASS;
}
