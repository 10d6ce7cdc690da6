// SPDX-License-Identifier: MIT
/*
 * fork() under the shim.  A reader forks halfway through a file and the child
 * reads on through the shared fd: every byte right, the offset shared as
 * without the shim.  Then the process forks a hundred times while another
 * thread keeps the shim busy; each child must be able to read (the shim's
 * lock is not inherited held) and vfork() + exec must work.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "helpers.h"

#define FILE_SIZE (64ull << 20)
#define CHUNK (256u << 10)

static char path[300];
static atomic_int stop;

static uint64_t read_on(int fd, uint64_t off, uint64_t to)
{
	char *buf = malloc(CHUNK);
	ssize_t n;

	while (off < to && (n = read(fd, buf, CHUNK)) > 0) {
		T_CHECK(t_pattern_check(buf, off, n, 7) < 0, "pid %d: wrong bytes at %llu", getpid(),
			 (unsigned long long)off);
		off += n;
	}
	free(buf);
	return off;
}

static int wait_child(pid_t pid)
{
	int st;

	T_CHECK(waitpid(pid, &st, 0) == pid, "waitpid: %s", strerror(errno));
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static void fork_halfway(void)
{
	int fd = open(path, O_RDONLY);
	uint64_t off = read_on(fd, 0, FILE_SIZE / 2);
	pid_t pid = fork();

	if (pid == 0)
		_exit(read_on(fd, off, FILE_SIZE) == FILE_SIZE ? 0 : 1);
	T_CHECK(wait_child(pid) == 0, "the child did not read to the end");
	T_CHECK(lseek(fd, 0, SEEK_CUR) == (off_t)FILE_SIZE, "shared offset not at the end");
	close(fd);
	T_CHECK(t_cached(path) <= (16ull << 20), "%llu bytes left cached",
		 (unsigned long long)t_cached(path));
}

static void *busy(void *arg)
{
	char buf[4096];

	while (!atomic_load(&stop)) {
		int fd = open(path, O_RDONLY);

		for (int i = 0; i < 64 && read(fd, buf, sizeof(buf)) > 0; i++)
			;
		close(fd);
	}
	return NULL;
}

static void fork_while_busy(void)
{
	pthread_t t;

	pthread_create(&t, NULL, busy, NULL);
	for (int i = 0; i < 100; i++) {
		pid_t pid = fork();

		if (pid == 0) {
			int fd = open(path, O_RDONLY);

			alarm(10);	/* a deadlock fails the test instead of hanging it */
			_exit(fd >= 0 && read_on(fd, 0, 1 << 20) == 1 << 20 ? 0 : 1);
		}
		T_CHECK(wait_child(pid) == 0, "child %d failed or hung", i);
	}
	for (int i = 0; i < 10; i++) {
		pid_t pid = vfork();

		if (pid == 0) {
			execl("/bin/true", "true", (char *)NULL);
			_exit(127);
		}
		T_CHECK(wait_child(pid) == 0, "vfork + exec of /bin/true failed");
	}
	atomic_store(&stop, 1);
	pthread_join(t, NULL);
}

int main(int argc, char **argv)
{
	if (!t_shimmed())
		t_reexec_with_shim(argv);
	snprintf(path, sizeof(path), "%s/f", t_testdir());
	t_make_file(path, FILE_SIZE, 7);
	t_evict(path);
	fork_halfway();
	fork_while_busy();
	printf("PASS: child reads on after fork; 100 forks and 10 vforks while busy\n");
	return 0;
}
