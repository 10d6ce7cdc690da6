// SPDX-License-Identifier: MIT
/*
 * Subprocesses, threads and many files under the shim.
 * - A reader starts a child every 16 MiB the way Python's subprocess does:
 *   vfork(), close_range() in the child, exec.  The child must change none of
 *   the parent's state: the file is dropped behind and has one stats line.
 * - Four threads read() one fd's shared offset: the file is not left cached.
 * - Forty files read round robin, a little of each at a time: the pages read
 *   and not dropped stay within PAGECLIFF_BUDGET over all of them.
 * - A forked child that reads a file and leaves with _exit() prints its line.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "helpers.h"

#ifndef __NR_cachestat
#define __NR_cachestat 451
#endif

#define BIG (128ull << 20)
#define SPAWN_EVERY (16ull << 20)
#define NFILES 40
#define RR_SIZE (16ull << 20)
#define RR_READ (6ull << 20)
#define RR_CHUNK (256u << 10)
#define BUDGET (16ull << 20)
#define MAX_LEFT (16ull << 20)

static char dir[300], stats[320];

static int wait_child(pid_t pid)
{
	int st;

	T_CHECK(waitpid(pid, &st, 0) == pid, "waitpid: %s", strerror(errno));
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* Reader lines of the stats file that name @path (its writer has one too). */
static int stats_lines(const char *path)
{
	char line[1024], want[400];
	FILE *fp = fopen(stats, "r");
	int n = 0;

	snprintf(want, sizeof(want), "pagecliff: %s: ", path);
	while (fp && fgets(line, sizeof(line), fp))
		n += !strncmp(line, want, strlen(want)) && strstr(line, " bytes read, ");
	if (fp)
		fclose(fp);
	return n;
}

/* What Python's _posixsubprocess does: vfork, close_range, exec. */
static void spawn_true(void)
{
	pid_t pid = vfork();

	if (pid == 0) {
		close_range(3, ~0u, 0);
		execl("/bin/true", "true", (char *)NULL);
		_exit(127);
	}
	T_CHECK(pid > 0 && wait_child(pid) == 0, "vfork + close_range + exec failed");
}

static void read_with_children(void)
{
	char path[400];
	char *buf = malloc(1 << 20);
	uint64_t off = 0;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/spawn", dir);
	t_make_file(path, BIG, 3);
	t_evict(path);
	fd = open(path, O_RDONLY);
	T_CHECK(fd >= 0 && buf, "open: %s", strerror(errno));
	while ((n = read(fd, buf, 1 << 20)) > 0) {
		T_CHECK(t_pattern_check(buf, off, n, 3) < 0, "wrong bytes at %llu", (unsigned long long)off);
		off += n;
		if (off % SPAWN_EVERY == 0)
			spawn_true();
	}
	T_CHECK(off == BIG, "read %llu bytes", (unsigned long long)off);
	close(fd);
	free(buf);
	T_CHECK(t_cached(path) <= MAX_LEFT, "vfork children: %llu MiB left cached",
		 (unsigned long long)(t_cached(path) >> 20));
	T_CHECK(stats_lines(path) == 1, "%d stats lines for one file", stats_lines(path));
}

struct shared {
	int fd;
	uint64_t total;
	pthread_mutex_t lock;
};

static void *shared_reader(void *arg)
{
	struct shared *s = arg;
	char *buf = malloc(RR_CHUNK);
	ssize_t n;

	while ((n = read(s->fd, buf, RR_CHUNK)) > 0) {
		pthread_mutex_lock(&s->lock);
		s->total += n;
		pthread_mutex_unlock(&s->lock);
	}
	free(buf);
	return NULL;
}

static void threads_one_offset(void)
{
	struct shared s = { .lock = PTHREAD_MUTEX_INITIALIZER };
	pthread_t t[4];
	char path[400];

	snprintf(path, sizeof(path), "%s/shared", dir);
	t_make_file(path, BIG, 4);
	t_evict(path);
	s.fd = open(path, O_RDONLY);
	T_CHECK(s.fd >= 0, "open: %s", strerror(errno));
	for (int i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, shared_reader, &s);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	T_CHECK(s.total == BIG, "threads read %llu bytes", (unsigned long long)s.total);
	close(s.fd);
	T_CHECK(t_cached(path) <= MAX_LEFT, "threads on one offset: %llu MiB left cached",
		 (unsigned long long)(t_cached(path) >> 20));
}

static uint64_t cached_range(int fd, uint64_t off, uint64_t len)
{
	struct { uint64_t off, len; } r = { off, len };
	struct { uint64_t cache, dirty, wb, ev, rev; } cs;

	T_CHECK(syscall(__NR_cachestat, fd, &r, &cs, 0) == 0, "cachestat: %s", strerror(errno));
	return cs.cache * (uint64_t)sysconf(_SC_PAGESIZE);
}

static void round_robin(void)
{
	char *buf = malloc(RR_CHUNK), path[400];
	uint64_t behind = 0;
	int fd[NFILES];

	for (int i = 0; i < NFILES; i++) {
		snprintf(path, sizeof(path), "%s/rr%d", dir, i);
		t_make_file(path, RR_SIZE, 10 + i);
		t_evict(path);
		fd[i] = open(path, O_RDONLY);
		T_CHECK(fd[i] >= 0, "open %s: %s", path, strerror(errno));
	}
	for (uint64_t off = 0; off < RR_READ; off += RR_CHUNK)
		for (int i = 0; i < NFILES; i++) {
			T_CHECK(read(fd[i], buf, RR_CHUNK) == RR_CHUNK, "read: %s", strerror(errno));
			T_CHECK(t_pattern_check(buf, off, RR_CHUNK, 10 + i) < 0, "wrong bytes");
		}
	for (int i = 0; i < NFILES; i++)
		behind += cached_range(fd[i], 0, RR_READ);
	for (int i = 0; i < NFILES; i++)
		close(fd[i]);
	free(buf);
	/* Each file may hold up to a chunk beyond the budget when it is checked. */
	T_CHECK(behind <= BUDGET + NFILES * (uint64_t)RR_CHUNK,
		 "%d files round robin: %llu MiB read and still cached (budget %llu MiB)",
		 NFILES, (unsigned long long)(behind >> 20), (unsigned long long)(BUDGET >> 20));
}

static void child_exits_early(void)
{
	char path[400], *buf = malloc(1 << 20);
	pid_t pid;

	snprintf(path, sizeof(path), "%s/child", dir);
	t_make_file(path, 32ull << 20, 5);
	t_evict(path);
	pid = fork();
	if (pid == 0) {
		int fd = open(path, O_RDONLY);

		while (fd >= 0 && read(fd, buf, 1 << 20) > 0)
			;
		_exit(0);	/* no close, no destructors */
	}
	T_CHECK(pid > 0 && wait_child(pid) == 0, "child failed");
	free(buf);
	T_CHECK(stats_lines(path) == 1, "the _exit() child printed %d stats lines",
		 stats_lines(path));
}

static void rm_stats(void)
{
	unlink(stats);
}

int main(int argc, char **argv)
{
	if (!t_shimmed()) {
		/* exec keeps the pid: the shimmed run finds and removes the file */
		snprintf(stats, sizeof(stats), "/var/tmp/pagecliff-shimtest-stats.%d", getpid());
		unlink(stats);
		setenv("PAGECLIFF_STATS", stats, 1);
		setenv("PAGECLIFF_BUDGET", "16m", 1);
		t_reexec_with_shim(argv);
	}
	snprintf(dir, sizeof(dir), "%s", t_testdir());
	snprintf(stats, sizeof(stats), "%s", getenv("PAGECLIFF_STATS"));
	atexit(rm_stats);
	read_with_children();
	threads_one_offset();
	round_robin();
	child_exits_early();
	printf("PASS: vfork children change nothing, threads on one offset, %d files within "
	       "the budget, _exit() children print stats\n", NFILES);
	return 0;
}
