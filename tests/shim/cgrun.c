// SPDX-License-Identifier: MIT
/*
 * shim-cgrun: run a command in a fresh memory cgroup and report the peak page
 * cache of that cgroup while it ran.  For the shim's tests and
 * bench/shim-vs-nocache.sh.
 *
 *   shim-cgrun LIMIT REPORT CMD [ARGS...]
 *
 * LIMIT is in fio units (256m).  REPORT gets "peak_cache BYTES\nseconds S\n".
 * Exits with CMD's status (128 + signal when killed), 77 without root or a
 * memory cgroup controller, 1 when the cgroup cannot be made.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cgroup.h"
#include "util.h"
#include "clock.h"

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	stop = sig;
}

/* Child: wait until the parent has moved it into the cgroup, then exec. */
static void child(int gate, char **argv)
{
	char c;

	if (read(gate, &c, 1) != 1)
		_exit(125);
	close(gate);
	execvp(argv[0], argv);
	fprintf(stderr, "shim-cgrun: cannot run '%s': %s\n", argv[0], strerror(errno));
	_exit(errno == ENOENT ? 127 : 126);
}

/* Sample the cgroup's page cache every 5 ms until @pid exits. */
static int watch(struct cgroup *cg, pid_t pid, uint64_t *ret_peak)
{
	struct timespec tick = { 0, 5 * 1000 * 1000 };
	struct cgroup_usage u;
	int status = 0;

	for (;;) {
		pid_t w = waitpid(pid, &status, WNOHANG);

		if (!cgroup_read(cg, &u) && u.cache > *ret_peak)
			*ret_peak = u.cache;
		if (w == pid)
			break;
		if (stop)
			kill(pid, SIGKILL);
		nanosleep(&tick, NULL);
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_signal };
	uint64_t limit, peak = 0;
	struct cgroup cg;
	int gate[2], ret, version;
	double t0;
	pid_t pid;
	FILE *rep;

	if (argc < 4 || parse_size(argv[1], &limit)) {
		fprintf(stderr, "usage: shim-cgrun LIMIT REPORT CMD [ARGS...]\n");
		return 2;
	}
	if (geteuid()) {
		printf("SKIP: memory cgroups need root\n");
		return 77;
	}
	if (cgroup_detect(&version, NULL)) {
		printf("SKIP: no memory cgroup controller\n");
		return 77;
	}
	cgroup_remove_stale(NULL, NULL);
	ret = cgroup_create(&cg, limit, 0);
	if (ret) {
		fprintf(stderr, "shim-cgrun: cannot make a memory cgroup: %s\n", strerror(-ret));
		return 1;
	}
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	if (pipe(gate) || (pid = fork()) < 0) {
		cgroup_remove(&cg);
		return 1;
	}
	if (pid == 0) {
		close(gate[1]);
		child(gate[0], argv + 3);
	}
	close(gate[0]);
	ret = cgroup_attach(&cg, pid);
	t0 = pcc_now_sec();
	if (ret || write(gate[1], "x", 1) != 1) {
		fprintf(stderr, "shim-cgrun: cannot move the command into %s: %s\n",
			cg.path, strerror(-ret));
		kill(pid, SIGKILL);
	}
	close(gate[1]);
	ret = watch(&cg, pid, &peak);
	rep = fopen(argv[2], "w");
	if (rep) {
		fprintf(rep, "peak_cache %llu\nseconds %.3f\n", (unsigned long long)peak,
			pcc_now_sec() - t0);
		fclose(rep);
	}
	cgroup_remove(&cg);
	return ret;
}
