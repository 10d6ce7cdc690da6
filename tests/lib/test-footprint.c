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

static void check_mode(const char *path, enum pc_strategy strategy)
{
	const char *name = pc_strategy_name(strategy);
	struct pc_stats st;
	uint64_t after, hot;

	/* Buffered keeps what it read, unless DAMON takes it meanwhile: tries. */
	for (int tries = 1;; tries++) {
		t_evict(path);
		T_CHECK(t_cached(path) < (1 << 20), "%s: could not evict the file", name);
		stream_all(path, strategy, &st);
		after = t_cached(path);
		printf("%-10s cold: %4llu MiB cached after (%s)\n", name,
		       (unsigned long long)(after >> 20), pc_strategy_name(st.strategy));
		if (strategy != PC_BUFFERED || after > FILE_SIZE / 2 || tries == 3)
			break;
	}
	if (strategy == PC_BUFFERED)
		T_CHECK(after > FILE_SIZE / 2, "buffered left only %llu MiB",
			(unsigned long long)(after >> 20));
	else
		T_CHECK(after <= LIMIT, "%s left %llu MiB cached", name,
			(unsigned long long)(after >> 20));

	/*
	 * Warm pages this machine's reclaim (DAMON pages out memory it judges
	 * idle, by coarse regions) takes meanwhile look like pages the
	 * strategy dropped: a strategy that drops them does so every time, so
	 * a loss is retried, and only a loss in each of three tries fails.
	 */
	for (int tries = 1;; tries++) {
		t_evict(path);
		warm_range(path);
		hot = cached_range(path);
		if (hot != HOT_LEN) {
			T_CHECK(tries < 3, "%s: warm-up cached %llu of %llu bytes, three times",
				name, (unsigned long long)hot, (unsigned long long)HOT_LEN);
			continue;
		}
		stream_all(path, strategy, &st);
		hot = cached_range(path);
		after = t_cached(path);
		printf("%-10s warm: %4llu of %llu MiB still cached, %4llu MiB total\n",
		       name, (unsigned long long)(hot >> 20),
		       (unsigned long long)(HOT_LEN >> 20),
		       (unsigned long long)(after >> 20));
		if (hot == HOT_LEN || tries == 3)
			break;
		printf("%-10s lost %llu bytes of the warm range: again\n", name,
		       (unsigned long long)(HOT_LEN - hot));
	}
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
