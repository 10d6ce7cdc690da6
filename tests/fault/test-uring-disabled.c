// SPDX-License-Identifier: MIT
/*
 * io_uring switched off for everyone with kernel.io_uring_disabled=2 (root;
 * the old value is put back at exit, on SIGINT/SIGTERM, and as soon as the
 * reads are done, since other programs on the machine see it too).  direct
 * reads synchronously and says io_uring is unavailable and why; auto does
 * not choose direct; every byte is exact.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "helpers.h"
#include "rig.h"

#define SYSCTL "/proc/sys/kernel/io_uring_disabled"
#define FILE_SIZE ((16ull << 20) + 11)

static const char *path;
static char old_value[16];
static volatile sig_atomic_t changed;

static int write_sysctl(const char *value)
{
	int fd = open(SYSCTL, O_WRONLY);
	ssize_t n = -1;

	if (fd >= 0) {
		n = write(fd, value, strlen(value));
		close(fd);
	}
	return n == (ssize_t)strlen(value) ? 0 : -1;
}

/* Put the old value back; safe in a signal handler and twice. */
static void restore(void)
{
	if (changed && !write_sysctl(old_value))
		changed = 0;
}

static void on_signal(int sig)
{
	restore();
	fr_scratch_remove();
	signal(sig, SIG_DFL);
	raise(sig);
}

static void check(enum pc_strategy strat)
{
	struct fr_result r;
	struct pc_stats st;
	struct pc_stream *s = fr_open(path, strat);

	pc_stream_stats(s, &st);
	printf("%-6s: %s (%s)\n", pc_strategy_name(strat),
	       pc_strategy_name(st.strategy), st.reason);
	fflush(stdout);
	fr_drain(s, 1 << 20, FR_SEED, &r);
	pc_stream_close(s);
	T_CHECK(!r.err && r.bad < 0 && r.bytes == FILE_SIZE,
		"%s: %llu bytes, error %d, bad byte %lld", pc_strategy_name(strat),
		(unsigned long long)r.bytes, r.err, (long long)r.bad);
	if (strat == PC_AUTO) {
		T_CHECK(st.strategy != PC_DIRECT, "auto chose direct without io_uring");
		T_CHECK(st.strategy != PC_DROPBEHIND || strstr(st.reason, "io_uring unavailable") ||
			strstr(st.reason, "O_DIRECT refused"),
			"auto does not say why not direct: %s", st.reason);
	} else if (st.strategy == PC_DIRECT) {
		T_CHECK(strstr(st.reason, "io_uring unavailable (Operation not permitted)"),
			"direct does not say io_uring is off: %s", st.reason);
	}
}

static int reads(void *arg)
{
	fr_watchdog(30);
	check(PC_DIRECT);
	check(PC_AUTO);
	return 0;
}

int main(void)
{
	ssize_t n;
	int fd, st;

	if (geteuid())
		t_skip("needs root to change kernel.io_uring_disabled");
	fd = open(SYSCTL, O_RDONLY);
	if (fd < 0)
		t_skip("this kernel has no %s", SYSCTL);
	n = read(fd, old_value, sizeof(old_value) - 1);
	close(fd);
	T_CHECK(n > 0, "cannot read %s", SYSCTL);
	old_value[strcspn(old_value, "\n")] = 0;
	path = fr_scratch_file(FILE_SIZE);
	t_evict(path);

	atexit(restore);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	changed = 1;
	T_CHECK(!write_sysctl("2"), "cannot write %s: %s", SYSCTL, strerror(errno));
	st = t_in_child(reads, NULL);
	restore();
	fr_scratch_remove();
	T_CHECK(!changed, "could not put %s back to %s", SYSCTL, old_value);
	T_CHECK(st == 0, "reads with io_uring disabled failed (status %d)", st);
	printf("io_uring disabled by sysctl: exact, and said so; %s is %s again\n",
	       SYSCTL, old_value);
	return T_EXIT_PASS;
}
