// SPDX-License-Identifier: MIT
/*
 * Errors and changes under the reader: a missing file, a directory and a
 * file without read permission give the open error; a file truncated while
 * it is read yields exactly its remaining bytes and then end of file, for
 * every strategy; a file that grows after end of file is read on.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "helpers.h"
#include "pagecliff.h"

static void check_open_errors(const char *dir)
{
	char path[4200];
	struct pc_opts o;
	struct pc_stream *s;
	int ret;

	snprintf(path, sizeof(path), "%s/missing", dir);
	ret = pc_stream_open(&s, path, NULL);
	T_CHECK(ret == -ENOENT, "missing file gave %d", ret);
	ret = pc_stream_open(&s, dir, NULL);
	T_CHECK(ret == -EISDIR, "directory gave %d", ret);
	ret = pc_stream_fdopen(&s, -1, NULL);
	T_CHECK(ret == -EBADF, "fd -1 gave %d", ret);
	pc_opts_init(&o);
	o.strategy = PC_DROPBEHIND;
	o.drop_lag = 5 * o.drop_batch;	/* past the 4 batches allowed */
	ret = pc_stream_open(&s, dir, &o);
	T_CHECK(ret == -EINVAL || ret == -EISDIR, "drop lag of 5 batches gave %d", ret);
	snprintf(path, sizeof(path), "%s/lag", dir);
	t_make_file(path, 4096, 1);
	ret = pc_stream_open(&s, path, &o);
	T_CHECK(ret == -EINVAL, "drop lag of 5 batches gave %d", ret);
	o.drop_lag = 4 * o.drop_batch;
	ret = pc_stream_open(&s, path, &o);
	T_CHECK(ret == 0, "drop lag of 4 batches gave %d", ret);
	pc_stream_close(s);
}

/* As a user without rights (root drops to nobody in a child). */
static int open_unreadable(void *arg)
{
	struct pc_stream *s;
	int ret;

	if (geteuid() == 0 && setuid(65534))
		return T_EXIT_SKIP;
	ret = pc_stream_open(&s, arg, NULL);
	return ret == -EACCES ? 0 : 1;
}

static void check_permission(const char *dir)
{
	char path[4200];
	int st;

	snprintf(path, sizeof(path), "%s/secret", dir);
	t_make_file(path, 4096, 3);
	chmod(path, 0600);
	chmod(dir, 0755);
	st = t_in_child(open_unreadable, path);
	T_CHECK(st == 0 || st == T_EXIT_SKIP, "unreadable file: child exit %d", st);
	if (st == T_EXIT_SKIP)
		printf("permission check skipped: cannot drop to an unprivileged user\n");
}

/* Read 3 MiB of 16, truncate to 5 MiB + 7, read on: exactly 5 MiB + 7. */
static void check_truncate(const char *dir, enum pc_strategy strategy)
{
	const uint64_t size = 16 << 20, cut = (5 << 20) + 7;
	char path[4200], *buf = pc_buf_alloc(1 << 20);
	struct pc_opts o;
	struct pc_stream *s;
	uint64_t off = 0;
	ssize_t n;

	snprintf(path, sizeof(path), "%s/trunc-%s", dir, pc_strategy_name(strategy));
	t_make_file(path, size, 9);
	t_evict(path);
	pc_opts_init(&o);
	o.strategy = strategy;
	o.inflight = 8;
	T_CHECK(!pc_stream_open(&s, path, &o), "open %s", path);
	while (off < (3 << 20) && (n = pc_stream_read(s, buf, 1 << 20)) > 0)
		off += n;
	T_CHECK(truncate(path, cut) == 0, "truncate: %s", strerror(errno));
	while ((n = pc_stream_read(s, buf, 65536)) > 0) {
		T_CHECK(t_pattern_check(buf, off, n, 9) < 0, "%s: stale bytes at %llu",
			pc_strategy_name(strategy), (unsigned long long)off);
		off += n;
	}
	T_CHECK(n == 0, "%s: read after truncate failed: %zd", pc_strategy_name(strategy), n);
	T_CHECK(off == cut, "%s: read %llu bytes of a file cut to %llu",
		pc_strategy_name(strategy), (unsigned long long)off,
		(unsigned long long)cut);
	/* It grows again: the next read continues, as read(2) would. */
	T_CHECK(truncate(path, cut + 100) == 0, "grow: %s", strerror(errno));
	n = pc_stream_read(s, buf, 1 << 20);
	T_CHECK(n == 100, "%s: after growing by 100 bytes, read gave %zd",
		pc_strategy_name(strategy), n);
	T_CHECK(pc_stream_read(s, buf, 1 << 20) == 0, "%s: no end of file after growth",
		pc_strategy_name(strategy));
	pc_stream_close(s);
	pc_buf_free(buf, 1 << 20);
	unlink(path);
}

int main(void)
{
	char dir[4096];

	t_tmpdir(dir, sizeof(dir), t_workdir());
	check_open_errors(dir);
	check_permission(dir);
	for (int st = PC_AUTO; st < PC_STRATEGY_COUNT; st++)
		check_truncate(dir, st);
	t_rmtree(dir);
	printf("open errors, permission, truncation and growth handled\n");
	return T_EXIT_PASS;
}
