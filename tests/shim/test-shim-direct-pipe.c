// SPDX-License-Identifier: MIT
/*
 * The shim's io_uring never interrupts the program: a program that reads
 * files direct and writes what it read to a pipe drained slowly (each write
 * blocks) sees every blocking write(2) whole, as without the shim.  io_uring
 * sends task work (completions, io-wq workers, a closed ring's exit) to the
 * thread that made a ring or submitted to it, and that work ended such writes
 * short when the program's own thread had (python3 lost the rest of them).
 * Small files are opened, read and closed between the writes, so that rings
 * are made and closed while the big file's reads are in flight.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "direct-test.h"
#include "helpers.h"

#define MIB (1ull << 20)
#define SIZE (48 * MIB)
#define SMALL 16
#define SEED 41

/* The pipe's other end: read slowly, count, check the pattern. */
static int drain(int fd)
{
	static char buf[65536];
	uint64_t at = 0;
	ssize_t n;

	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		if (t_pattern_check(buf, at, n, SEED) >= 0)
			return 3;
		at += n;
		usleep(200);
	}
	return n == 0 && at == SIZE ? 0 : 4;
}

static void read_small(const char *dir, int i, char *buf)
{
	char path[4200];
	int fd;

	snprintf(path, sizeof(path), "%s/s%d", dir, i % SMALL);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	T_CHECK(fd >= 0 && read(fd, buf, MIB) == 100000, "small file: %s", strerror(errno));
	close(fd);
}

int main(int argc, char **argv)
{
	char path[4096], *buf, *small;
	int p[2], fd, st, shorts = 0;
	uint64_t at = 0;
	pid_t pid;

	if (!t_shimmed())
		direct_reexec(argv, "direct-pipe", "direct", "0");
	buf = malloc(MIB);
	small = malloc(MIB);
	T_CHECK(buf && small, "malloc");
	snprintf(path, sizeof(path), "%s/big", t_testdir());
	direct_cold_file(path, SIZE, SEED);
	for (int i = 0; i < SMALL; i++) {
		char s[4200];

		snprintf(s, sizeof(s), "%s/s%d", t_testdir(), i);
		direct_cold_file(s, 100000, i);
	}
	T_CHECK(pipe2(p, O_CLOEXEC) == 0, "pipe: %s", strerror(errno));
	pid = fork();
	T_CHECK(pid >= 0, "fork: %s", strerror(errno));
	if (!pid) {
		close(p[1]);
		_exit(drain(p[0]));
	}
	close(p[0]);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	T_CHECK(fd >= 0, "open: %s", strerror(errno));
	for (int i = 0;; i++) {
		ssize_t n = read(fd, buf, MIB), w;

		T_CHECK(n >= 0, "read: %s", strerror(errno));
		if (!n)
			break;
		read_small(t_testdir(), i, small);
		w = write(p[1], buf, n);
		T_CHECK(w > 0, "write: %s", strerror(errno));
		if (w < n) {
			shorts++;
			T_CHECK(write(p[1], buf + w, n - w) == n - w, "write: %s", strerror(errno));
		}
		at += n;
	}
	close(p[1]);
	close(fd);
	T_CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st), "the pipe's reader");
	T_CHECK(!WEXITSTATUS(st), "the pipe's reader got other bytes (%d)", WEXITSTATUS(st));
	T_CHECK(!shorts, "%d of %llu blocking writes to the pipe ended short", shorts,
		(unsigned long long)(at / MIB));
	direct_stats_say(path, "mode direct (asked for");
	direct_stats_remove();
	printf("PASS: %llu MiB read direct, every blocking write to the pipe whole\n",
	       (unsigned long long)(at / MIB));
	return 0;
}
