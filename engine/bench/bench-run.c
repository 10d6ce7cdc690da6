// SPDX-License-Identifier: MIT
/*
 * The phases of pagecliff bench: for each mode, a cold start, the workers
 * (bench-worker.c) started as threads or, under a cgroup v2 cap, in a
 * process of their own in it, the sampler (bench-sampler.c) until they
 * finish, then the phase's figures and failures.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench-run.h"
#include "cgroup.h"
#include "util.h"

/* Write back and evict each file of the job: only bench's own pages go. */
static void evict_files(struct bench_run *run)
{
	for (unsigned int k = 0; k < run->nfiles; k++) {
		int fd = open(run->files[k], O_RDONLY | O_CLOEXEC);

		if (fd < 0)
			continue;
		fdatasync(fd);
		posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
		close(fd);
	}
}

/* Bytes of the job's files in the page cache now. */
static uint64_t cached_total(struct bench_run *run)
{
	uint64_t total = 0;

	for (unsigned int k = 0; k < run->nfiles; k++) {
		int fd = open(run->files[k], O_RDONLY | O_CLOEXEC);
		uint64_t bytes;

		if (fd < 0)
			continue;
		if (!pc_cached_bytes(fd, 0, 0, &bytes))
			total += bytes;
		close(fd);
	}
	return total;
}

/* The whole page cache, as root: only when fadvise left pages behind. */
static void drop_all_caches(struct bench_run *run)
{
	int fd = open("/proc/sys/vm/drop_caches", O_WRONLY | O_CLOEXEC);

	sync();
	if (fd < 0 || write(fd, "1", 1) != 1)
		bench_note(run, "cannot drop caches: %s", strerror(errno));
	if (fd >= 0)
		close(fd);
}

/*
 * Make the files cold with fadvise, which leaves everyone else's cache
 * alone; when pages stay (mapped or pinned by someone), drop the whole page
 * cache as root.  Then count what is still cached.
 */
static void cold_start(struct bench_run *run, struct bench_phase *ph)
{
	uint64_t total;

	evict_files(run);
	total = cached_total(run);
	if (total && !geteuid()) {
		drop_all_caches(run);
		total = cached_total(run);
	}
	ph->cached_before = total;
	ph->cold_ok = total * 100 <= (uint64_t)run->nfiles * run->job.size;
}

/* Wait for the phase's workers: their threads, or their process. */
static void join_workers(struct bench_run *run, struct worker *w)
{
	if (run->workers_pid) {
		while (waitpid(run->workers_pid, NULL, 0) < 0 && errno == EINTR)
			;
		run->workers_pid = 0;
		return;
	}
	for (unsigned int k = 0; k < run->nfiles; k++)
		pthread_join(w[k].thread, NULL);
}

static void finish_phase(struct bench_run *run, struct bench_phase *ph, struct worker *w)
{
	ph->bytes = 0;
	join_workers(run, w);
	for (unsigned int k = 0; k < run->nfiles; k++) {
		ph->bytes += atomic_load(&w[k].bytes);
		if (w[k].error && !ph->error)
			ph->error = w[k].error;
		if (w[k].have_stats && !ph->reason[0] && run->job.rw == BENCH_WRITE) {
			ph->strategy = w[k].wstats.strategy;
			snprintf(ph->reason, sizeof(ph->reason), "%s", w[k].wstats.reason);
		} else if (w[k].have_stats && !ph->reason[0]) {
			ph->strategy = w[k].stats.strategy;
			snprintf(ph->reason, sizeof(ph->reason), "%s", w[k].stats.reason);
		}
		ph->sync_secs = fmax(ph->sync_secs, w[k].sync_secs);
	}
	ph->nrows = run->nrows - ph->first_row;
	ph->interrupted = bench_stop != 0;
	ph->ran = 1;
}

/* A phase's failure in one line; run->failed set. */
static void report_phase(struct bench_run *run, struct bench_phase *ph)
{
	if (ph->error) {
		error("%s phase: cannot %s: %s", pc_strategy_name(ph->mode),
		      run->job.rw == BENCH_WRITE ? "write" : "read", strerror(-ph->error));
		run->failed = 1;
	} else if (!ph->bytes && !ph->interrupted) {
		/* 0.00 GB/s would be a figure of nothing */
		error("%s phase: read nothing in %.1f s: its figures measure no I/O",
		      pc_strategy_name(ph->mode), ph->secs);
		run->failed = 1;
	}
}

/*
 * Where the sampler stands while it starts the workers.  On cgroup v1 it
 * runs outside the memory cap (bench-setup.c), but a thread is born in its
 * creator's cgroup and the workers' kernel objects are theirs to be
 * charged for: the sampler steps into the cap for the clone calls and
 * out again.  0 or -errno; nothing to do without a v1 split.
 */
static int sampler_in_cap(const struct bench_run *run, int in)
{
	if (!run->cgroup_home[0])
		return 0;
	return cgroup_move_thread(in ? run->cgroup_dir : run->cgroup_home,
				  (pid_t)syscall(SYS_gettid));
}

/*
 * cgroup v2 holds whole processes, and the sampler's thousands of /proc,
 * sysfs and cgroup reads an interval are kernel memory charged to the
 * cgroup of whoever makes them: in the cap, next to a cache filled to the
 * limit, they would be charged to it and could bring its OOM killer.  There
 * the workers run in a child process in the capped cgroup (run->cgroup_dir)
 * and the sampler stays in bench's own leaf outside it; the worker structs
 * and the stop flag are in memory shared with that child.  The child dies
 * with bench and leaves signals to it.  0 once the workers run, or -errno.
 */
static int spawn_workers(struct bench_run *run, struct bench_phase *ph, struct worker *w,
			 const int *nodes)
{
	pid_t parent = getpid();
	int fds[2], ret = 0;
	ssize_t n;

	if (pipe2(fds, O_CLOEXEC))
		return -errno;
	run->workers_pid = fork();
	if (run->workers_pid < 0) {
		ret = -errno;
		run->workers_pid = 0;
	} else if (!run->workers_pid) {
		close(fds[0]);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		signal(SIGINT, SIG_IGN);
		signal(SIGTERM, SIG_IGN);
		signal(SIGHUP, SIG_IGN);
		ret = getppid() != parent ? -ESRCH : cgroup_join_dir(run->cgroup_dir, 0);
		if (!ret)
			ret = bench_workers_start(run, ph, w, nodes);
		n = write(fds[1], &ret, sizeof(ret));
		if (!ret)
			for (unsigned int k = 0; k < run->nfiles; k++)
				pthread_join(w[k].thread, NULL);
		_exit(ret || n != sizeof(ret));
	}
	close(fds[1]);
	if (!ret && (n = read(fds[0], &ret, sizeof(ret))) != sizeof(ret))
		ret = -ECHILD;	/* it died before saying */
	close(fds[0]);
	if (ret && run->workers_pid) {
		atomic_store(run->stop_flag, 1);
		join_workers(run, w);
	}
	return ret;
}

static int run_phase(struct bench_run *run, unsigned int mode, struct worker *w,
		     struct tick *ticks, const int *nodes)
{
	struct bench_phase *ph = &run->phases[mode];
	int ret, err;

	ph->mode = run->job.modes[mode];
	ph->strategy = ph->mode;
	if (run->job.rw == BENCH_READ)
		cold_start(run, ph);
	else if (bench_fresh_files(run))
		return -1;
	else
		ph->cold_ok = 1;	/* fresh files: nothing of them is cached */
	if (run->hooks && run->hooks->phase_start(run, mode) != BENCH_SYNC_GO) {
		run->failed = 1;
		if (run->job.rw == BENCH_WRITE)
			bench_remove_files(run);
		return 0;
	}
	ph->first_row = run->nrows;
	run->last_row_rebuilt = 0;
	atomic_store(run->stop_flag, 0);
	memset(w, 0, sizeof(*w) * run->nfiles);
	bench_trace_mark(run);
	ret = sampler_in_cap(run, 1);
	if (ret)
		return error("cannot start the workers in memory cgroup '%s': %s",
			     run->cgroup_dir, strerror(-ret));
	if (run->cgroup_dir[0] && run->cgroup_version == 2) {
		ret = spawn_workers(run, ph, w, nodes);
		if (ret)
			return error("cannot start the workers' process in memory cgroup '%s': %s",
				     run->cgroup_dir, strerror(-ret));
	} else {
		ret = bench_workers_start(run, ph, w, nodes);
	}
	err = sampler_in_cap(run, 0);
	if (ret)
		return error("cannot start worker thread: %s", strerror(-ret));
	if (err)	/* its reads count against the cap: as on v2 */
		bench_note(run, "the sampler stayed in the memory cgroup for the %s phase: "
			   "cannot move it out (%s)", pc_strategy_name(ph->mode), strerror(-err));
	bench_sample_phase(run, ph, mode, w, ticks);
	finish_phase(run, ph, w);
	bench_trace_work(run, ph);
	if (run->job.rw == BENCH_WRITE)
		bench_remove_files(run);
	if (run->hooks && run->failed)
		ph->interrupted = 1;	/* stopped by the other ranks */
	report_phase(run, ph);
	if (run->hooks && run->hooks->phase_end(run, mode) != BENCH_SYNC_GO)
		run->failed = 1;
	return 0;
}

int bench_run_phases(struct bench_run *run)
{
	/* shared: the workers may run in a child process (spawn_workers()) */
	size_t len = 64 + sizeof(struct worker) * run->nfiles;
	char *shared = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	struct worker *w = shared == MAP_FAILED ? NULL : (struct worker *)(shared + 64);
	/* three rotate (a row's start, its end, the row before's start), one the phase's first */
	struct tick *ticks = calloc(4, sizeof(*ticks));
	int nodes[BENCH_MAX_DIRS], ret = 0;

	if (!w || !ticks) {
		ret = error("cannot allocate workers: %s", strerror(ENOMEM));
		goto out;
	}
	run->stop_flag = (atomic_int *)shared;
	bench_numa_plan(run, nodes);
	snprintf(run->cache_desc, sizeof(run->cache_desc), "%s", run->cgroup_dir[0] ?
		 "file pages of the memory cgroup (memory.stat file, v1 cache)" :
		 "file pages system-wide: Cached - Shmem of /proc/meminfo (tmpfs not counted)");
	for (unsigned int m = 0; m < run->job.nmodes && !bench_stop && !ret &&
	     !(run->hooks && run->failed); m++)
		ret = run_phase(run, m, w, ticks, nodes);
	run->interrupted = bench_stop != 0;
out:
	free(ticks);
	if (w)
		munmap(shared, len);
	run->stop_flag = NULL;
	return ret;
}
