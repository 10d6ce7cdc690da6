// SPDX-License-Identifier: MIT
/*
 * Signals arriving during reads: a child process sends SIGUSR1 every 1 ms
 * (the handler has no SA_RESTART, so blocked system calls return EINTR) while every
 * strategy reads a slow faultfs file (each request sleeps 30 ms, so the
 * signals land inside FUSE reads and io_uring waits).  EINTR is retried
 * inside the library: every byte exact, no error, no short read.
 */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "helpers.h"
#include "rig.h"

#define FILE_SIZE ((6ull << 20) + 13)

static volatile sig_atomic_t ticks;

static void on_tick(int sig)
{
	ticks++;
}

/* A process that signals @target every millisecond until killed. */
static pid_t start_pest(pid_t target)
{
	struct timespec ms = { 0, 1000 * 1000 };
	pid_t pid = fork();

	T_CHECK(pid >= 0, "fork: %s", strerror(errno));
	if (pid)
		return pid;
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	for (;;) {
		if (kill(target, SIGUSR1))
			_exit(0);
		nanosleep(&ms, NULL);
	}
}

int main(void)
{
	struct sigaction sa;
	int failed = 0;

	fr_mount();
	fr_watchdog(90);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_tick;	/* no SA_RESTART */
	sigaction(SIGUSR1, &sa, NULL);
	for (unsigned int i = 0; i < fr_nstrategies; i++) {
		enum pc_strategy strat = fr_strategies[i];
		const char *name = pc_strategy_name(strat);
		struct fr_result r;
		struct pc_stream *s;
		pid_t pest;
		int ok;

		ticks = 0;
		pest = start_pest(getpid());
		s = fr_openf(strat, "size=%llu,delay=30,tag=%s", (unsigned long long)FILE_SIZE,
			     name);
		fr_drain_close(s, 1 << 20, &r, NULL);
		kill(pest, SIGKILL);
		waitpid(pest, NULL, 0);
		ok = !r.err && r.bad < 0 && r.bytes == FILE_SIZE && !r.short_reads && ticks;
		printf("%s %-10s %llu bytes, %s, %llu short reads, %d signals\n",
		       ok ? "ok  " : "FAIL", name, (unsigned long long)r.bytes,
		       r.err ? strerror(-r.err) : "end of file",
		       (unsigned long long)r.short_reads, (int)ticks);
		failed += !ok;
	}
	T_CHECK(!failed, "%d strategies failed under signals", failed);
	printf("reads survive signals\n");
	return T_EXIT_PASS;
}
