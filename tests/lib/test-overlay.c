// SPDX-License-Identifier: MIT
/*
 * overlayfs, as in every container: the overlay file's own mapping is empty
 * and its pages live in the real lower file.  Read through an overlay, each
 * strategy must leave the lower file uncached (counted on the lower path),
 * keep a range that was cached before, and count the cache truthfully.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "helpers.h"
#include "pagecliff.h"

#define FILE_SIZE (48ull << 20)
#define HOT_OFF (8ull << 20)
#define HOT_LEN (4ull << 20)
#define LIMIT (1ull << 20)
#define SEED 91

static char top[4096], merged[4200], upper_fs[4200];
static int mounted_merged, mounted_upper;

static void undo_mounts(void)
{
	if (mounted_merged && !umount2(merged, MNT_DETACH))
		mounted_merged = 0;
	if (mounted_upper && !umount2(upper_fs, MNT_DETACH))
		mounted_upper = 0;
}

static void on_signal(int sig)
{
	undo_mounts();
	signal(sig, SIG_DFL);
	raise(sig);
}

static void mount_overlay(void)
{
	char lower[4200], upper[4300], work[4300], opts[16384];

	snprintf(lower, sizeof(lower), "%s/lower", top);
	snprintf(upper_fs, sizeof(upper_fs), "%s/rw", top);
	snprintf(merged, sizeof(merged), "%s/merged", top);
	T_CHECK(!mkdir(lower, 0755) && !mkdir(upper_fs, 0755) && !mkdir(merged, 0755),
		"mkdir in %s", top);
	atexit(undo_mounts);
	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);
	if (mount("tmpfs", upper_fs, "tmpfs", 0, "size=16m"))
		t_skip("cannot mount tmpfs: %s", strerror(errno));
	mounted_upper = 1;
	snprintf(upper, sizeof(upper), "%s/upper", upper_fs);
	snprintf(work, sizeof(work), "%s/work", upper_fs);
	T_CHECK(!mkdir(upper, 0755) && !mkdir(work, 0755), "mkdir in %s", upper_fs);
	snprintf(opts, sizeof(opts), "lowerdir=%s,upperdir=%s,workdir=%s", lower,
		 upper, work);
	if (mount("overlay", merged, "overlay", 0, opts))
		t_skip("cannot mount overlayfs: %s", strerror(errno));
	mounted_merged = 1;
}

static void warm(const char *path, uint64_t off, uint64_t len)
{
	char *buf = malloc(1 << 20);
	FILE *f = fopen(path, "r");

	T_CHECK(f && buf, "open %s", path);
	/* No readahead: pages still being read would count in cachestat only. */
	T_CHECK(!posix_fadvise(fileno(f), 0, 0, POSIX_FADV_RANDOM), "fadvise %s", path);
	for (uint64_t o = off; o < off + len; o += 1 << 20)
		T_CHECK(pread(fileno(f), buf, 1 << 20, o) == 1 << 20, "warm %s", path);
	fclose(f);
	free(buf);
}

static uint64_t cached_range(const char *path, uint64_t off, uint64_t len)
{
	uint64_t bytes;
	FILE *f = fopen(path, "r");

	T_CHECK(f && !pc_cached_bytes(fileno(f), off, len, &bytes), "count %s", path);
	fclose(f);
	return bytes;
}

/* What one try of a check saw. */
struct run {
	const char *lower, *over;
	enum pc_strategy m;
	struct pc_stats st;
	uint64_t real, seen, before, hot, after;
};

/* Warm the hot range, count through the overlay and in the lower file. */
static int count_try(void *arg)
{
	struct run *r = arg;

	t_evict(r->lower);
	warm(r->lower, HOT_OFF, HOT_LEN);
	r->seen = cached_range(r->over, 0, 0);
	r->real = cached_range(r->lower, 0, 0);
	printf("count: %llu KiB through the overlay, %llu KiB in the lower file\n",
	       (unsigned long long)(r->seen >> 10), (unsigned long long)(r->real >> 10));
	return r->real >= HOT_LEN && r->seen == r->real ? 0 : T_WARM_LOST;
}

/*
 * The count through the overlay is the real file's.  DAMON (docs/MACHINES.md) pages
 * out by coarse regions and may take pages just read, before or between the
 * two counts; an overlay that counts wrong does so every time.
 */
static void check_count(const char *lower, const char *over)
{
	struct run r = { .lower = lower, .over = over };
	uint64_t real, seen;

	t_warm_tries(count_try, &r);
	real = r.real;
	seen = r.seen;
	T_CHECK(real >= HOT_LEN, "the lower file did not warm: %llu KiB cached",
		(unsigned long long)(real >> 10));
	T_CHECK(seen == real, "overlay count %llu, the real file holds %llu",
		(unsigned long long)seen, (unsigned long long)real);
}

static void stream_all(const char *path, enum pc_strategy strategy,
		       struct pc_stats *ret_st)
{
	char *buf = pc_buf_alloc(1 << 20);
	struct pc_stream *s;
	struct pc_opts o;
	uint64_t off = 0;
	ssize_t n;

	pc_opts_init(&o);
	o.strategy = strategy;
	T_CHECK(!pc_stream_open(&s, path, &o), "open %s", path);
	while ((n = pc_stream_read(s, buf, 1 << 20)) > 0) {
		T_CHECK(t_pattern_check(buf, off, n, SEED) < 0, "bad bytes at %llu",
			(unsigned long long)off);
		off += n;
	}
	T_CHECK(n == 0 && off == FILE_SIZE, "read %llu bytes", (unsigned long long)off);
	pc_stream_stats(s, ret_st);
	pc_stream_close(s);
	pc_buf_free(buf, 1 << 20);
}

/* Warm the hot range, stream the file through the overlay, count. */
static int warm_try(void *arg)
{
	struct run *r = arg;

	t_evict(r->lower);
	warm(r->lower, HOT_OFF, HOT_LEN);
	r->before = cached_range(r->lower, 0, 0);	/* the hot range and its readahead */
	stream_all(r->over, r->m, &r->st);
	r->hot = cached_range(r->lower, HOT_OFF, HOT_LEN);
	r->after = cached_range(r->lower, 0, 0);
	printf("%-10s warm: %llu of %llu KiB hot range kept, %llu KiB cached (%llu before), kept %llu\n",
	       pc_strategy_name(r->m), (unsigned long long)(r->hot >> 10),
	       (unsigned long long)(HOT_LEN >> 10), (unsigned long long)(r->after >> 10),
	       (unsigned long long)(r->before >> 10), (unsigned long long)r->st.bytes_kept);
	return r->hot == HOT_LEN ? 0 : T_WARM_LOST;
}

static void check_mode(const char *lower, const char *over, enum pc_strategy m)
{
	struct run r = { .lower = lower, .over = over, .m = m };
	const char *name = pc_strategy_name(m);
	uint64_t after, hot, before;
	struct pc_stats st;

	t_evict(lower);
	T_CHECK(cached_range(lower, 0, 0) < LIMIT, "could not evict %s", lower);
	stream_all(over, m, &st);
	after = cached_range(lower, 0, 0);
	printf("%-10s cold: %s, %llu KiB of the lower file cached, dropped %llu: %s\n",
	       name, pc_strategy_name(st.strategy), (unsigned long long)(after >> 10),
	       (unsigned long long)st.bytes_dropped, st.reason);
	T_CHECK(after <= LIMIT, "%s through overlayfs left %llu KiB in the lower file",
		name, (unsigned long long)(after >> 10));
	if (st.strategy == PC_DROPBEHIND)
		T_CHECK(st.bytes_dropped >= FILE_SIZE - LIMIT && st.bytes_kept == 0,
			"%s: stats dropped %llu kept %llu", name,
			(unsigned long long)st.bytes_dropped,
			(unsigned long long)st.bytes_kept);

	/* Reclaim here (DAMON, by coarse regions) may take warm pages meanwhile;
	 * a strategy that drops them does so every time. */
	t_warm_tries(warm_try, &r);
	before = r.before;
	hot = r.hot;
	after = r.after;
	st = r.st;
	T_CHECK(hot == HOT_LEN, "%s dropped %llu KiB of a range cached before", name,
		(unsigned long long)((HOT_LEN - hot) >> 10));
	T_CHECK(after <= before + LIMIT, "%s left %llu KiB cached, %llu before", name,
		(unsigned long long)(after >> 10), (unsigned long long)(before >> 10));
	if (st.strategy == PC_DROPBEHIND)
		T_CHECK(st.bytes_kept >= HOT_LEN && st.bytes_kept <= before,
			"%s: kept %llu, %llu were cached before", name,
			(unsigned long long)st.bytes_kept, (unsigned long long)before);
}

int main(void)
{
	static const enum pc_strategy modes[] = {
		PC_DROPBEHIND, PC_DONTCACHE, PC_AUTO, PC_DIRECT,
	};
	char lower[4300], over[4300];

	if (geteuid() != 0)
		t_skip("needs root to mount an overlay");
	t_tmpdir(top, sizeof(top), t_workdir());
	mount_overlay();
	snprintf(lower, sizeof(lower), "%s/lower/data", top);
	snprintf(over, sizeof(over), "%s/data", merged);
	t_make_file(lower, FILE_SIZE, SEED);
	check_count(lower, over);
	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++)
		check_mode(lower, over, modes[i]);
	undo_mounts();
	T_CHECK(!mounted_merged && !mounted_upper, "cannot unmount in %s", top);
	t_rmtree(top);
	printf("PASS\n");
	return T_EXIT_PASS;
}
