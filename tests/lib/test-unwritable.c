// SPDX-License-Identifier: MIT
/*
 * Files the reader may not write: the kernel hides their residency
 * (cachestat(2) fails with EPERM, mincore(2) says every page is resident).
 * A cold root-owned 0644 file read as `nobody` must still leave the cache
 * (counted by root afterwards), and the counts the library gives `nobody`
 * must say "unknown", never "all cached".
 */
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "helpers.h"
#include "pagecliff.h"

#define FILE_SIZE (24ull << 20)
#define LIMIT (1ull << 20)
#define SEED 77

#ifndef PC_BYTES_UNKNOWN
#define PC_BYTES_UNKNOWN UINT64_MAX	/* before the library said unknown */
#endif

struct job {
	const char *path;
	enum pc_strategy strategy;
	uid_t uid;
	gid_t gid;
};

static void become(const struct job *j)
{
	T_CHECK(!setgroups(0, NULL), "setgroups: %s", strerror(errno));
	T_CHECK(!setresgid(j->gid, j->gid, j->gid), "setresgid: %s", strerror(errno));
	T_CHECK(!setresuid(j->uid, j->uid, j->uid), "setresuid: %s", strerror(errno));
	T_CHECK(geteuid() == j->uid, "still uid %u", (unsigned int)geteuid());
}

/* As `nobody`: the counts say unknown. */
static void check_counts(const char *path)
{
	struct pc_probe p;
	uint64_t bytes = 0;
	FILE *f = fopen(path, "r");
	int ret;

	T_CHECK(f, "nobody cannot open '%s': %s", path, strerror(errno));
	ret = pc_cached_bytes(fileno(f), 0, 0, &bytes);
	T_CHECK(ret == -EPERM, "pc_cached_bytes gave %d (%llu bytes), not -EPERM",
		ret, (unsigned long long)bytes);
	T_CHECK(!pc_probe_fd(fileno(f), &p), "pc_probe_fd");
	T_CHECK(p.cached_bytes == PC_BYTES_UNKNOWN, "probe says %llu bytes cached",
		(unsigned long long)p.cached_bytes);
	fclose(f);
}

/* As `nobody`: read the whole file, check its bytes and the stats. */
static int read_as_nobody(void *arg)
{
	const struct job *j = arg;
	const char *name = pc_strategy_name(j->strategy);
	char *buf = pc_buf_alloc(1 << 20);
	struct pc_stream *s;
	struct pc_stats st;
	struct pc_opts o;
	uint64_t off = 0;
	ssize_t n;

	become(j);
	check_counts(j->path);
	pc_opts_init(&o);
	o.strategy = j->strategy;
	T_CHECK(!pc_stream_open(&s, j->path, &o), "%s: open", name);
	while ((n = pc_stream_read(s, buf, 1 << 20)) > 0) {
		T_CHECK(t_pattern_check(buf, off, n, SEED) < 0, "%s: bad bytes at %llu",
			name, (unsigned long long)off);
		off += n;
	}
	T_CHECK(n == 0 && off == FILE_SIZE, "%s: read %llu bytes (%zd)", name,
		(unsigned long long)off, n);
	pc_stream_stats(s, &st);
	printf("%-10s as nobody: %s, dropped %llu, kept %llu: %s\n", name,
	       pc_strategy_name(st.strategy), (unsigned long long)st.bytes_dropped,
	       (unsigned long long)st.bytes_kept, st.reason);
	if (st.strategy == PC_DROPBEHIND) {
		T_CHECK(st.bytes_kept == 0, "%s: %llu bytes 'kept' of a cold file", name,
			(unsigned long long)st.bytes_kept);
		T_CHECK(st.bytes_dropped >= FILE_SIZE, "%s: dropped %llu of %llu", name,
			(unsigned long long)st.bytes_dropped, FILE_SIZE);
		T_CHECK(strstr(st.reason, "residency unknown"),
			"%s: the reason does not say residency is unknown: %s", name,
			st.reason);
	}
	if (j->strategy == PC_AUTO)
		T_CHECK(strstr(st.reason, "residency unknown") &&
			!strstr(st.reason, "% of the file is cached"),
			"auto: reason claims a share cached: %s", st.reason);
	pc_stream_close(s);
	pc_buf_free(buf, 1 << 20);
	fflush(stdout);
	return 0;
}

int main(void)
{
	static const enum pc_strategy modes[] = {
		PC_DROPBEHIND, PC_AUTO, PC_DONTCACHE, PC_DIRECT,
	};
	struct passwd *pw;
	char dir[4096], path[4200];

	if (geteuid() != 0)
		t_skip("needs root to read a root-owned file as another user");
	pw = getpwnam("nobody");
	if (!pw)
		t_skip("no user 'nobody'");
	t_tmpdir(dir, sizeof(dir), t_workdir());
	T_CHECK(!chmod(dir, 0755), "chmod %s", dir);
	snprintf(path, sizeof(path), "%s/data", dir);
	t_make_file(path, FILE_SIZE, SEED);
	T_CHECK(!chmod(path, 0644), "chmod %s", path);
	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		struct job j = { path, modes[i], pw->pw_uid, pw->pw_gid };
		uint64_t after;

		t_evict(path);
		T_CHECK(t_cached(path) < LIMIT, "could not evict %s", path);
		fflush(stdout);
		T_CHECK(t_in_child(read_as_nobody, &j) == 0, "%s as nobody failed",
			pc_strategy_name(modes[i]));
		after = t_cached(path);	/* root: cachestat tells the truth */
		printf("%-10s left %llu KiB cached (root counts)\n",
		       pc_strategy_name(modes[i]), (unsigned long long)(after >> 10));
		T_CHECK(after <= LIMIT, "%s as nobody left %llu KiB of the file cached",
			pc_strategy_name(modes[i]), (unsigned long long)(after >> 10));
	}
	t_rmtree(dir);
	printf("PASS\n");
	return T_EXIT_PASS;
}
