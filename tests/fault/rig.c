// SPDX-License-Identifier: MIT
/*
 * The fault rig's side in a test program; see rig.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "helpers.h"
#include "rig.h"

#define FUSE_SUPER_MAGIC 0x65735546

const enum pc_strategy fr_strategies[] = {
	PC_BUFFERED, PC_DONTCACHE, PC_DROPBEHIND, PC_DIRECT, PC_AUTO,
};
const unsigned int fr_nstrategies = sizeof(fr_strategies) / sizeof(fr_strategies[0]);

static struct {
	char scratch_dir[4096];
	char scratch[4200];
	pid_t scratch_owner;
	volatile sig_atomic_t have_scratch;
	char mnt[64];
	pid_t daemon;
	pid_t owner;			/* only the process that mounted unmounts */
	volatile sig_atomic_t mounted;
} rig;

void fr_unmount(void)
{
	if (!rig.mounted || getpid() != rig.owner)
		return;
	rig.mounted = 0;
	umount2(rig.mnt, MNT_DETACH);
	if (rig.daemon > 0) {
		kill(rig.daemon, SIGKILL);
		waitpid(rig.daemon, NULL, 0);
	}
	rmdir(rig.mnt);
}

void fr_scratch_remove(void)
{
	if (!rig.have_scratch || getpid() != rig.scratch_owner)
		return;
	rig.have_scratch = 0;
	unlink(rig.scratch);
	rmdir(rig.scratch_dir);
}

static void on_signal(int sig)
{
	static const char hung[] = "FAIL: hung (watchdog expired)\n";

	fr_unmount();
	fr_scratch_remove();
	if (sig == SIGALRM) {
		if (write(STDERR_FILENO, hung, sizeof(hung) - 1) < 0)
			_exit(T_EXIT_FAIL);
		_exit(T_EXIT_FAIL);
	}
	signal(sig, SIG_DFL);
	raise(sig);
}

void fr_watchdog(unsigned int secs)
{
	alarm(secs);
}

static int is_fuse(const char *dir)
{
	struct statfs sf;

	return !statfs(dir, &sf) && sf.f_type == FUSE_SUPER_MAGIC;
}

static void start_daemon(const char *faultfs)
{
	rig.daemon = fork();
	if (rig.daemon < 0)
		t_fail("fork: %s", strerror(errno));
	if (!rig.daemon) {
		int null = open("/dev/null", O_WRONLY);

		/* SIGTERM: libfuse leaves its loop and unmounts. */
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		/* libfuse 3.14 warns about max_threads on every start. */
		if (null >= 0) {
			dup2(null, STDOUT_FILENO);
			dup2(null, STDERR_FILENO);
		}
		execl(faultfs, faultfs, rig.mnt, "-f", (char *)NULL);
		_exit(127);
	}
}

/* Wait up to 5 s for the mount to show. */
static void wait_mounted(void)
{
	struct timespec tick = { 0, 10 * 1000 * 1000 };

	for (int i = 0; i < 500; i++) {
		int st;

		if (is_fuse(rig.mnt))
			return;
		if (waitpid(rig.daemon, &st, WNOHANG) == rig.daemon) {
			rig.daemon = 0;
			rmdir(rig.mnt);
			t_fail("faultfs exited before mounting (status %d)", st);
		}
		nanosleep(&tick, NULL);
	}
	t_fail("faultfs did not mount %s within 5 s", rig.mnt);
}

static void catch_signals(void)
{
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGALRM, on_signal);
}

const char *fr_scratch_file(uint64_t size)
{
	const char *b = getenv("PAGECLIFF_BUILDDIR");

	t_tmpdir(rig.scratch_dir, sizeof(rig.scratch_dir), b ? b : ".");
	snprintf(rig.scratch, sizeof(rig.scratch), "%s/file", rig.scratch_dir);
	rig.scratch_owner = getpid();
	rig.have_scratch = 1;
	atexit(fr_scratch_remove);
	catch_signals();
	t_make_file(rig.scratch, size, FR_SEED);
	return rig.scratch;
}

const char *fr_mount(void)
{
	const char *faultfs = getenv("FAULTFS");

	if (geteuid())
		t_skip("needs root to mount a FUSE file system");
	if (access("/dev/fuse", R_OK | W_OK))
		t_skip("/dev/fuse is missing");
	if (!faultfs || access(faultfs, X_OK))
		t_skip("$FAULTFS does not name the faultfs binary");
	snprintf(rig.mnt, sizeof(rig.mnt), "/tmp/pagecliff-fault-XXXXXX");
	if (!mkdtemp(rig.mnt))
		t_fail("cannot make a mount point: %s", strerror(errno));
	rig.owner = getpid();
	rig.mounted = 1;
	atexit(fr_unmount);
	catch_signals();
	start_daemon(faultfs);
	wait_mounted();
	return rig.mnt;
}

/* fr_path() with a va_list. */
static void vpath(char *buf, size_t size, const char *fmt, va_list ap)
{
	size_t n = snprintf(buf, size, "%s/", rig.mnt);

	vsnprintf(buf + n, size - n, fmt, ap);
}

void fr_path(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vpath(buf, size, fmt, ap);
	va_end(ap);
}

struct pc_stream *fr_openf(enum pc_strategy strategy, const char *fmt, ...)
{
	char path[512];
	va_list ap;

	va_start(ap, fmt);
	vpath(path, sizeof(path), fmt, ap);
	va_end(ap);
	return fr_open(path, strategy);
}

struct pc_stream *fr_open(const char *path, enum pc_strategy strategy)
{
	struct pc_stream *s;
	struct pc_opts o;
	int ret;

	pc_opts_init(&o);
	o.strategy = strategy;
	ret = pc_stream_open(&s, path, &o);
	if (ret)
		t_fail("cannot open '%s' as %s: %s", path,
		       pc_strategy_name(strategy), strerror(-ret));
	return s;
}

void fr_drain(struct pc_stream *s, size_t len, uint32_t seed,
	      struct fr_result *ret)
{
	char *buf = len ? pc_buf_alloc(len) : NULL;
	struct fr_result r = { .bad = -1 };
	int was_short = 0;

	if (len && !buf)
		t_fail("cannot allocate %zu bytes", len);
	for (;;) {
		const void *p = buf;
		ssize_t n = len ? pc_stream_read(s, buf, len) : pc_stream_next(s, &p);
		int64_t bad;

		if (n <= 0) {
			r.err = n;
			break;
		}
		r.short_reads += was_short;
		was_short = len && (size_t)n < len;
		bad = t_pattern_check(p, r.bytes, n, seed);
		if (bad >= 0 && r.bad < 0)
			r.bad = bad;
		r.bytes += n;
	}
	pc_buf_free(buf, len);
	*ret = r;
}

void fr_drain_close(struct pc_stream *s, size_t len, struct fr_result *ret,
		    struct pc_stats *ret_stats)
{
	fr_drain(s, len, FR_SEED, ret);
	if (ret_stats)
		pc_stream_stats(s, ret_stats);
	pc_stream_close(s);
}
