// SPDX-License-Identifier: MIT
/*
 * Forced fallbacks of write streams stay exact: with io_uring, RWF_DONTCACHE
 * or O_DIRECT refused by the kernel (a seccomp filter), each strategy still
 * writes the bytes and its reason says what was refused and where it went.
 * Also: a pipe is written with write(2) and no strategy; O_APPEND does not go
 * direct; bad arguments get -EINVAL / -EBADF.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "helpers.h"
#include "pagecliff.h"
#include "wtest.h"

#define MIB (1024ull * 1024)

static char dir[4096];
static char src[MIB + 3];

struct scenario {
	enum t_refuse refuse;		/* -1: nothing refused */
	int flags;			/* extra open flags */
	const char *needle;		/* must appear in the reason */
	enum pc_strategy asked, want;
};

static const struct scenario scenarios[] = {
	{ T_REFUSE_URING, 0, "io_uring unavailable", PC_DIRECT, PC_DONTCACHE },
	{ T_REFUSE_DIRECT, 0, "O_DIRECT refused", PC_DIRECT, PC_DONTCACHE },
	{ T_REFUSE_DONTCACHE, 0, "RWF_DONTCACHE refused", PC_DONTCACHE, PC_DROPBEHIND },
	{ T_REFUSE_DIRECT, 0, "O_DIRECT refused", PC_AUTO, PC_DONTCACHE },
	{ -1, O_APPEND, "O_APPEND", PC_DIRECT, PC_DONTCACHE },
};

static enum pc_strategy write_one(const char *path, const struct scenario *sc,
				  uint64_t size, struct pc_wstats *ret)
{
	struct pc_wstream *s;
	struct pc_wopts o;
	uint64_t off = 0;
	int r;

	pc_wopts_init(&o);
	o.strategy = sc->asked;
	r = pc_wstream_open(&s, path, O_WRONLY | O_CREAT | O_TRUNC | sc->flags, 0644, &o);
	T_CHECK(!r, "open: %s", strerror(-r));
	while (off < size) {
		size_t n = size - off < sizeof(src) ? size - off : sizeof(src);

		t_pattern_fill(src, off, n, 17);
		T_CHECK(pc_wstream_write(s, src, n) == (ssize_t)n, "write");
		off += n;
	}
	r = pc_wstream_close_stats(s, ret);
	T_CHECK(!r, "close: %s", strerror(-r));
	return ret->strategy;
}

static int run_scenario(void *arg)
{
	const struct scenario *sc = arg;
	const uint64_t sizes[] = { 0, 4097, MIB + 1, 64 * MIB + 3 };
	char path[4200];

	if ((int)sc->refuse >= 0)
		t_refuse(sc->refuse);
	snprintf(path, sizeof(path), "%s/f", dir);
	for (unsigned int i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		struct pc_wstats st;

		write_one(path, sc, sizes[i], &st);
		wt_check_file(path, sizes[i], 17);
		/* A build folder whose file system refuses RWF_DONTCACHE goes on. */
		T_CHECK(st.strategy == sc->want ||
			(sc->want == PC_DONTCACHE && st.strategy == PC_DROPBEHIND &&
			 strstr(st.reason, "RWF_DONTCACHE refused")), "asked %s, ended on %s, want %s (%s)",
			pc_strategy_name(sc->asked), pc_strategy_name(st.strategy),
			pc_strategy_name(sc->want), st.reason);
		T_CHECK(strstr(st.reason, sc->needle), "reason '%s' lacks '%s'",
			st.reason, sc->needle);
		if (i == 3)
			printf("%s -> %s: %s\n", pc_strategy_name(sc->asked),
			       pc_strategy_name(st.strategy), st.reason);
	}
	return 0;
}

/* A pipe: write(2), the bytes arrive in order; pwrite is -ESPIPE. */
static void check_pipe(void)
{
	struct pc_wstream *s;
	struct pc_wstats st;
	char got[5000];
	int p[2], r;

	T_CHECK(!pipe(p), "pipe: %s", strerror(errno));
	r = pc_wstream_fdopen(&s, p[1], NULL);
	T_CHECK(!r, "fdopen: %s", strerror(-r));
	t_pattern_fill(src, 0, sizeof(got), 5);
	T_CHECK(pc_wstream_write(s, src, sizeof(got)) == sizeof(got), "write");
	T_CHECK(pc_wstream_pwrite(s, src, 10, 0) == -ESPIPE, "pwrite on a pipe");
	pc_wstream_stats(s, &st);
	T_CHECK(st.strategy == PC_BUFFERED && strstr(st.reason, "not a regular file"),
		"pipe: %s", st.reason);
	T_CHECK(!pc_wstream_close(s), "close");
	T_CHECK(read(p[0], got, sizeof(got)) == sizeof(got), "read");
	T_CHECK(t_pattern_check(got, 0, sizeof(got), 5) < 0, "pipe bytes");
	T_CHECK(fcntl(p[1], F_GETFD) >= 0, "the stream closed the caller's fd");
	close(p[0]);
	close(p[1]);
}

static void check_args(void)
{
	struct pc_wstream *s;
	struct pc_wopts o;
	char path[4200];
	int fd;

	snprintf(path, sizeof(path), "%s/args", dir);
	T_CHECK(pc_wstream_open(&s, path, O_RDONLY | O_CREAT, 0644, NULL) == -EINVAL, "O_RDONLY");
	T_CHECK(pc_wstream_open(&s, path, O_WRONLY | O_CREAT | O_DIRECT, 0644, NULL) == -EINVAL,
		"O_DIRECT");
	T_CHECK(pc_wstream_open(&s, dir, O_WRONLY, 0, NULL) == -EISDIR, "a folder");
	fd = open(path, O_RDONLY | O_CREAT | O_CLOEXEC, 0644);
	T_CHECK(fd >= 0 && pc_wstream_fdopen(&s, fd, NULL) == -EBADF, "read-only fd");
	close(fd);
	pc_wopts_init(&o);
	o.strategy = PC_STRATEGY_COUNT;
	T_CHECK(pc_wstream_open(&s, path, O_WRONLY, 0, &o) == -EINVAL, "bad strategy");
	T_CHECK(pc_wstream_close(NULL) == 0, "close(NULL)");
	T_CHECK(!pc_wstream_open(&s, path, O_WRONLY, 0, NULL), "open");
	T_CHECK(pc_wstream_commit(s, 10) == -EINVAL, "commit without lend");
	T_CHECK(!pc_wstream_close(s), "close");
}

int main(void)
{
	t_tmpdir(dir, sizeof(dir), t_workdir());
	check_pipe();
	check_args();
	for (unsigned int i = 0; i < sizeof(scenarios) / sizeof(scenarios[0]); i++) {
		int rc = t_in_child(run_scenario, (void *)&scenarios[i]);

		if (rc == T_EXIT_SKIP)
			t_skip("seccomp is not available");
		T_CHECK(rc == 0, "scenario %u failed", i);
	}
	t_rmtree(dir);
	printf("every refused feature falls back exactly, with its reason\n");
	return 0;
}
