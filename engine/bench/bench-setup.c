// SPDX-License-Identifier: MIT
/*
 * pagecliff bench's set-up, each piece undone by its caller on every path:
 * the RAM testbed, the memory cgroup and, on cgroup v1, the sampler thread
 * outside it; the state file's records of what a run claims, and the undo
 * of what killed runs left.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "bench.h"
#include "cgroup.h"
#include "sample.h"
#include "scope.h"
#include "testbed.h"
#include "util.h"

static void print_stale(const char *what, const char *path, int result, void *arg)
{
	(void)arg;
	fprintf(stderr, "removed what a killed run left: %s %s%s%s\n", what, path,
		result ? ": " : "", result ? strerror(-result) : "");
}

static void print_stale_cgroup(const char *path, int result, void *arg)
{
	print_stale("cgroup", path, result, arg);
}

void bench_cleanup_stale(void)
{
	if (geteuid())
		return;
	state_cleanup_stale(print_stale, NULL);
	cgroup_remove_stale(print_stale_cgroup, NULL);
}

int bench_setup_testbed(struct bench_run *run, struct testbed *tb)
{
	unsigned int count = run->job.testbed_devices ? run->job.testbed_devices : 1;
	size_t len = 0, cap = sizeof(run->testbed_desc);
	const char *step;
	char a[32];
	int ret;

	ret = testbed_create(tb, &run->journal, count, run->job.testbed, &bench_stop, &step);
	if (ret == -EINTR)
		return -1;	/* a signal: undone; bench_main says it was interrupted */
	if (ret)
		return error("cannot build the RAM testbed (%s): %s", step, strerror(-ret));
	for (unsigned int i = 0; i < tb->ndev; i++)
		run->job.dirs[run->job.ndirs++] = strdup(tb->dev[i].mnt);
	if (count == 1)
		len = snprintf(run->testbed_desc, cap, "%s on %s over a %s file in a tmpfs, "
			       "mounted at %s", tb->fstype, tb->dev[0].loopdev,
			       bench_size(tb->size, a, sizeof(a)), tb->dev[0].mnt);
	else
		len = snprintf(run->testbed_desc, cap, "%u devices, each %s on a loop device "
			       "over a %s file in one tmpfs, mounted at %s/mnt0-%u (", count,
			       tb->fstype, bench_size(tb->size, a, sizeof(a)), tb->base, count - 1);
	for (unsigned int i = 0; count > 1 && i < tb->ndev && len < cap; i++)
		len += snprintf(run->testbed_desc + len, cap - len, "%s%s", i ? " " : "",
				tb->dev[i].loopdev);
	if (count > 1 && len < cap)
		snprintf(run->testbed_desc + len, cap - len, ")");
	if (strcmp(tb->fstype, "xfs"))
		bench_note(run, "the testbed uses ext4: no mkfs.xfs, or under the 320 MiB XFS needs");
	fprintf(stderr, "testbed: %s\n", run->testbed_desc);
	return 0;
}

/*
 * Whether systemd owns the cgroup @own: systemd runs the host, and neither
 * put bench in a scope of its own nor delegated @own.  Processes there are
 * systemd's to place, never bench's to move.
 */
static int systemd_owns(const char *own)
{
	return scope_systemd_booted(NULL) && !getenv(SCOPE_ENV) && !cgroup_delegated(own);
}

/* Whether bench is alone in @own, or @own is the hierarchy's root. */
static int cgroup_free(const char *own)
{
	char mnt[PATH_MAX];
	int version;

	if (!sample_memcg_hierarchy(NULL, &version, mnt, sizeof(mnt)) && !strcmp(mnt, own))
		return 1;
	return cgroup_v2_others(own, getpid()) == 0;
}

/* Run @argv (systemd-run's) in place of bench; returns on failure, said. */
static void exec_scope(const char *srun, const char *own, int argc, char **argv)
{
	char exe[PATH_MAX], unit[128];
	const char **cmd = calloc((size_t)argc + 16, sizeof(*cmd));
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	int ret;

	if (!cmd || n <= 0) {
		error("cannot run again in a systemd scope: %s", !cmd ? "out of memory" :
		      "/proc/self/exe is unreadable");
		free(cmd);
		return;
	}
	exe[n] = '\0';
	ret = scope_command(cmd, (size_t)argc + 16, unit, sizeof(unit), srun, exe, "bench",
			    getpid(), argc, argv);
	if (!ret && !setenv(SCOPE_ENV, unit + strlen("--unit="), 1)) {
		fprintf(stderr, "memory cap: %s is systemd's and holds other processes: running "
			"again in the transient scope %s (systemd-run --scope -p Delegate=yes)\n",
			own, unit + strlen("--unit="));
		fflush(NULL);
		execv(srun, (char **)cmd);
		ret = -errno;
		unsetenv(SCOPE_ENV);
	}
	error("cannot run again in a systemd scope through %s: %s", srun, strerror(-ret));
	free(cmd);
}

void bench_scope_reexec(struct bench_run *run)
{
	char own[PATH_MAX], srun[PATH_MAX];
	int version;

	if (!run->argv || !run->job.mem_limit || geteuid())
		return;
	if (cgroup_detect(&version, own) || version != 2 || !systemd_owns(own) ||
	    cgroup_free(own) || scope_find_systemd_run(srun))
		return;		/* bench_make_cgroup() says why it cannot */
	exec_scope(srun, own, run->argc, run->argv);
}

/* The advice after a refusal to make the cgroup on v2, for @own. */
static const char *v2_advice(const char *own)
{
	char srun[PATH_MAX];

	if (geteuid())
		return "; on cgroup v2 it needs a cgroup delegated to it that holds no other "
		       "process: run it as root, or under `systemd-run --user --scope -p "
		       "Delegate=yes`";
	if (systemd_owns(own) && scope_find_systemd_run(srun))
		return "; systemd runs this host and no systemd-run is in PATH to give bench a "
		       "scope of its own (systemd-run --scope -p Delegate=yes)";
	return "; on cgroup v2 bench needs a cgroup that holds no other process than its "
	       "own tree (the shell or script that started it and their children), or "
	       "systemd as PID 1 with systemd-run";
}

int bench_make_cgroup(struct bench_run *run, struct cgroup *cg)
{
	char own[PATH_MAX] = "";
	int version = 0;
	unsigned int flags;
	char a[32];
	int ret;

	cgroup_detect(&version, own);
	/* the own tree moves to the leaf "leader" only where systemd does not own it */
	flags = version == 2 && own[0] && !systemd_owns(own) ? CGROUP_OWN_TREE : 0;
	ret = cgroup_create_flags(cg, run->job.mem_limit, 0, flags);
	if (!ret && cg->moved_tree)
		fprintf(stderr, "memory cap: moved this process's own tree (the processes of %s) "
			"to %s until bench ends\n", cg->home, cg->leader);
	if (!ret) {
		state_record(&run->journal, "cgroup", cg->top);
		run->cgroup_version = cg->version;
		return 0;
	}
	cg->path[0] = '\0';
	if (run->job.builtin) {
		bench_note(run, "no memory cap: cannot create a memory cgroup (%s); the cliff "
			   "comes only after all of free memory", cg->why);
		return 0;
	}
	/* v2: only below the own cgroup, so the answer says how to get one */
	error("cannot create a memory cgroup of %s: %s%s",
	      bench_size(run->job.mem_limit, a, sizeof(a)), cg->why,
	      ret == -ENOENT ? "" : version == 2 ? v2_advice(own) :
	      "; --mem-limit needs root on cgroup v1");
	return -EXIT_USAGE;
}

int bench_join_cgroup(struct bench_run *run, struct cgroup *cg)
{
	char a[32];
	int ret;

	if (!cg->path[0])
		return 0;
	ret = cg->version == 1 ? cgroup_attach(cg, getpid()) : 0;
	if (ret)
		return error("cannot join memory cgroup '%s': %s", cg->path, strerror(-ret));
	snprintf(run->cgroup_dir, sizeof(run->cgroup_dir), "%s", cg->path);
	run->cgroup_version = cg->version;
	fprintf(stderr, "memory cap: %s (cgroup v%d %s)\n",
		bench_size(run->job.mem_limit, a, sizeof(a)), cg->version, cg->path);
	return 0;
}

struct sampler {
	struct bench_run *run;
	sigset_t mask;			/* the caller's: signals come to this thread */
	int ret;
};

static void *sampler_main(void *arg)
{
	struct sampler *s = arg;
	struct bench_run *run = s->run;
	int ret;

	pthread_sigmask(SIG_SETMASK, &s->mask, NULL);
	ret = cgroup_move_thread(run->cgroup_home, (pid_t)syscall(SYS_gettid));
	if (ret) {
		s->ret = error("cannot move the sampler out of memory cgroup '%s': %s",
			       run->cgroup_dir, strerror(-ret));
		return NULL;
	}
	s->ret = bench_run_phases(run);
	return NULL;
}

/*
 * Run the phases in the cap.  On cgroup v1 the thread that samples and
 * starts the workers lives outside it: v1 charges the process's page cache
 * and anonymous memory to the cgroup of its leader (this thread, which
 * stays in the cap and waits) but a thread's kernel objects to its own,
 * and the sampler's are its thousands of /proc, sysfs and cgroup reads an
 * interval.  Charged to a cap full of page cache, one of those could not
 * be had and the cap's OOM killer took bench (seen 1 run in 12 under ASan:
 * killed in getdents and seq_read with 250 MiB of clean cache there).  A v2
 * cgroup holds whole processes: there the workers run in a child process
 * in the cap and this one stays outside it (bench-run.c).
 */
int bench_run_capped(struct bench_run *run, const struct cgroup *cg)
{
	struct sampler s = { .run = run };
	pthread_t thread;
	sigset_t all;
	int ret;

	if (!cg->path[0] || cg->version != 1)
		return bench_run_phases(run);
	snprintf(run->cgroup_home, sizeof(run->cgroup_home), "%s", cg->home);
	/* the handler sets bench_stop on the thread that reads it: this one
	 * takes no signal while the sampler lives */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &s.mask);
	ret = -pthread_create(&thread, NULL, sampler_main, &s);
	if (!ret)
		pthread_join(thread, NULL);
	pthread_sigmask(SIG_SETMASK, &s.mask, NULL);
	if (ret)
		return error("cannot start the sampler thread: %s", strerror(-ret));
	return s.ret;
}

void bench_record_folders(struct bench_run *run)
{
	char real[PATH_MAX], folder[PATH_MAX + 32];

	for (unsigned int d = 0; d < run->job.ndirs; d++) {
		if (!realpath(run->job.dirs[d], real))
			continue;	/* the claim says why */
		snprintf(folder, sizeof(folder), "%s/" BENCH_FOLDER, real);
		state_record(&run->journal, run->job.keep ? STATE_FOLDER_KEEP : STATE_FOLDER,
			     folder);
	}
}
