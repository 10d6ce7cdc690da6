// SPDX-License-Identifier: MIT
/*
 * fork() and a file the shim reads O_DIRECT ahead of the program: the child
 * and the parent share the file offset as read(2) shares it.  The parent
 * reads, the child reads on from where the parent stopped (plainly: the
 * parent's ring is not the child's), and the parent reads on from where the
 * child stopped: with a close-on-exec descriptor the parent keeps reading
 * direct to the end, one that a child could carry across exec stops the
 * parent's reader (the file is read the normal way).  A child can read a
 * file of its own direct (its own io_uring thread).
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "direct-test.h"
#include "helpers.h"

#define MIB (1ull << 20)
#define SIZE (16 * MIB + 5)
#define SEED 31

static char *buf;

static void read_check(int fd, uint64_t at, size_t len)
{
	ssize_t n = read(fd, buf, len);

	T_CHECK(n == (ssize_t)len, "read of %zu at %llu: %zd (%s)", len, (unsigned long long)at,
		n, strerror(errno));
	T_CHECK(t_pattern_check(buf, at, len, SEED) < 0, "wrong bytes at %llu",
		(unsigned long long)at);
}

static void read_rest(int fd, uint64_t at)
{
	ssize_t n;

	while ((n = read(fd, buf, MIB)) > 0) {
		T_CHECK(t_pattern_check(buf, at, n, SEED) < 0, "wrong bytes at %llu",
			(unsigned long long)at);
		at += n;
	}
	T_CHECK(n == 0 && at == SIZE, "read to %llu: %s", (unsigned long long)at, strerror(errno));
}

static int child_status(pid_t pid)
{
	int st;

	T_CHECK(waitpid(pid, &st, 0) == pid, "waitpid: %s", strerror(errno));
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* Parent 1 MiB, child 1 MiB, parent the rest: each where the other stopped. */
static void shared_offset(const char *path, int flags)
{
	int fd = open(path, O_RDONLY | flags);
	pid_t pid;

	T_CHECK(fd >= 0, "open: %s", strerror(errno));
	read_check(fd, 0, MIB);
	pid = fork();
	T_CHECK(pid >= 0, "fork: %s", strerror(errno));
	if (!pid) {
		read_check(fd, MIB, MIB);
		_exit(0);
	}
	T_CHECK(child_status(pid) == 0, "the child failed");
	read_check(fd, 2 * MIB, MIB);	/* no lseek() first: the shim must find it moved */
	T_CHECK(lseek(fd, 0, SEEK_CUR) == (off_t)(3 * MIB), "offset after the child's read");
	read_rest(fd, 3 * MIB);
	close(fd);
}

/* A child begins a reader of its own, after its parent's. */
static int child_reads(void *arg)
{
	const char *other = arg;
	int fd = open(other, O_RDONLY | O_CLOEXEC);

	T_CHECK(fd >= 0, "open: %s", strerror(errno));
	read_rest(fd, 0);
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	char path[4096], cloexec[4096], other[4096], line[2048];

	if (!t_shimmed())
		direct_reexec(argv, "direct-fork", "direct", "1m");
	buf = malloc(MIB);
	T_CHECK(buf, "malloc");
	snprintf(path, sizeof(path), "%s/inherited", t_testdir());
	snprintf(cloexec, sizeof(cloexec), "%s/cloexec", t_testdir());
	snprintf(other, sizeof(other), "%s/other", t_testdir());
	direct_cold_file(path, SIZE, SEED);
	direct_cold_file(cloexec, SIZE, SEED);
	direct_cold_file(other, SIZE, SEED);

	shared_offset(cloexec, O_CLOEXEC);
	shared_offset(path, 0);
	T_CHECK(t_in_child(child_reads, other) == 0, "the child's own reader");

	direct_stats_say(cloexec, "mode direct (asked for");
	direct_stats_say(other, "mode direct (asked for");
	T_CHECK(strstr(direct_stats_last(path, line, sizeof(line)),
		       "stopped: shared with a fork() child across exec"), "%s", line);
	direct_stats_remove();
	printf("PASS: the file offset is shared across fork() as read(2) shares it\n");
	return 0;
}
