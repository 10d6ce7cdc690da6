// SPDX-License-Identifier: MIT
/*
 * Where io_uring is refused (a seccomp filter here; the io_uring_disabled
 * sysctl, a container's profile elsewhere), --mode direct still reads a cold
 * file O_DIRECT, one synchronous pread() at a time, with the same bytes and
 * nothing left in the page cache, and says so; auto does not choose direct
 * there (as the library's auto), and the file gets today's handling.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "direct-test.h"
#include "helpers.h"

#define MIB (1ull << 20)
#define SIZE (16 * MIB + 99)
#define SEED 51

/* The shimmed run in @mode: read the file through, check bytes and cache. */
static int shimmed(const char *mode)
{
	char path[4096], line[2048], *buf = malloc(MIB);
	uint64_t at = 0;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/f", t_testdir());
	direct_cold_file(path, SIZE, SEED);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	T_CHECK(buf && fd >= 0, "open: %s", strerror(errno));
	while ((n = read(fd, buf, 131072 + 7)) > 0) {
		T_CHECK(t_pattern_check(buf, at, n, SEED) < 0, "%s: wrong bytes at %llu", mode,
			(unsigned long long)at);
		at += n;
	}
	T_CHECK(n == 0 && at == SIZE, "%s: read %llu: %s", mode, (unsigned long long)at,
		strerror(errno));
	close(fd);
	if (!strcmp(mode, "direct")) {
		T_CHECK(t_cached(path) == 0, "direct: %llu bytes cached",
			(unsigned long long)t_cached(path));
		direct_stats_say(path, "mode direct (asked for");
		T_CHECK(strstr(direct_stats_last(path, line, sizeof(line)),
			       "io_uring unavailable"), "direct: %s", line);
	} else {
		direct_stats_last(path, line, sizeof(line));
		T_CHECK(!strstr(line, "mode direct"), "auto read direct without io_uring: %s", line);
	}
	direct_stats_remove();
	printf("%s: the file's bytes; %s\n", mode, strcmp(mode, "direct") ? "not direct" :
	       "direct, synchronously");
	return 0;
}

/* Run this program with the shim in @mode, io_uring refused. */
static int run(const char *mode, char *self)
{
	char *argv[] = { self, (char *)mode, NULL };
	pid_t pid = fork();
	int st;

	T_CHECK(pid >= 0, "fork: %s", strerror(errno));
	if (!pid)
		direct_reexec(argv, mode, mode, "1m");
	T_CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st), "the %s run", mode);
	return WEXITSTATUS(st);
}

int main(int argc, char **argv)
{
	int ret;

	if (t_shimmed())
		return shimmed(argc > 1 ? argv[1] : "direct");
	t_refuse(T_REFUSE_URING);
	ret = run("direct", argv[0]);
	if (ret)
		return ret;
	ret = run("auto", argv[0]);
	if (ret)
		return ret;
	printf("PASS: direct without io_uring reads O_DIRECT synchronously; auto does not\n");
	return 0;
}
