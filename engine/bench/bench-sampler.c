// SPDX-License-Identifier: MIT
/*
 * The sampler of bench's phases: the main thread samples the system every
 * interval (via sample.c) and the workers' byte counts into timeline rows,
 * polls the write workers' kernel stacks to tell dirty throttling from
 * reclaim waiting for writeback, draws the live line and, across hosts,
 * meets the other ranks each interval.
 */
#include <errno.h>
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench-run.h"
#include "progress.h"
#include "sample.h"
#include "trace.h"
#include "util.h"
#include "clock.h"

/* /proc/TID/stack: some dozens of frames. */
#define STACK_TEXT 4096

/* Kernel-stack polls of the write workers within one interval. */
struct polls {
	unsigned int n, throttled, reclaim_wait, reclaim;
	int unreadable;
};

static int push_row(struct bench_run *run, const struct bench_row *row)
{
	if (run->nrows == run->cap_rows) {
		size_t cap = run->cap_rows ? run->cap_rows * 2 : 256;
		struct bench_row *rows = realloc(run->rows, cap * sizeof(*rows));

		if (!rows)
			return -ENOMEM;
		run->rows = rows;
		run->cap_rows = cap;
	}
	run->rows[run->nrows++] = *row;
	return 0;
}

int bench_keep_row(struct bench_run *run, const struct bench_row *row)
{
	return push_row(run, row);
}

static void take(struct bench_run *run, struct worker *w, struct tick *tk)
{
	/* CPU and D state: the workers' process when apart (until reaped, a
	 * zombie's figures are still there) */
	struct sample_opts so = { .cgroup_dir = run->cgroup_dir[0] ? run->cgroup_dir : NULL,
				  .kswapd = 1, .kswapd_pids = &run->kswapd_pids,
				  .pid = run->workers_pid };
	for (unsigned int k = 0; k < run->nfiles; k++)
		tk->bytes[k] = atomic_load(&w[k].bytes);
	tk->t = pcc_now_sec();
	sample_take(&tk->s, &so);
	tk->tr_ok = run->trace && !trace_read(run->trace, &tk->tr);
}

/* kswapd's share is of its nodes' time: one kswapd thread per node. */
static unsigned int kswapd_nodes(const struct tick *b)
{
	return b->s.kswapd_ok && b->s.kswapd_threads ? b->s.kswapd_threads : 1;
}

/*
 * Where each write worker's kernel stack is now: throttled for dirty pages
 * (balance_dirty_pages), in reclaim waiting for writeback (reclaim_throttle,
 * or shrink_folio_list waiting on a folio), or elsewhere in direct reclaim.
 * A running thread has an empty stack; reading stacks needs root.
 */
static void poll_stacks(const struct bench_run *run, struct worker *w, struct polls *pl)
{
	char path[64], text[STACK_TEXT];
	int err;

	for (unsigned int k = 0; k < run->nfiles; k++) {
		pid_t tid = atomic_load(&w[k].tid);

		if (!tid || atomic_load(&w[k].done))
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%d/stack",
			 (int)(run->workers_pid ? run->workers_pid : getpid()), (int)tid);
		err = sample_read_text(NULL, path, text, sizeof(text));
		if (err) {
			/*
			 * Refused: the shares are unknown.  Gone (the worker
			 * ended after the check above): nothing to count.
			 */
			if (err == -EACCES || err == -EPERM)
				pl->unreadable = 1;
			continue;
		}
		pl->n++;
		if (strstr(text, "balance_dirty_pages"))
			pl->throttled++;
		else if (strstr(text, "reclaim_throttle") ||
			 (strstr(text, "shrink_folio_list") && strstr(text, "folio_wait")))
			pl->reclaim_wait++;
		else if (strstr(text, "try_to_free_mem_cgroup_pages") ||
			 strstr(text, "try_to_free_pages"))
			pl->reclaim++;
	}
}

/* The polls' shares into the row; NAN when no stack could be read. */
static void row_polls(const struct bench_run *run, struct bench_row *r, struct polls *pl)
{
	int known = run->job.rw == BENCH_WRITE && (pl->n || !pl->unreadable);

	r->throttled_pct = !known ? NAN : pl->n ? 100.0 * pl->throttled / pl->n : 0;
	r->reclaim_wait_pct = !known ? NAN : pl->n ? 100.0 * pl->reclaim_wait / pl->n : 0;
	r->reclaim_pct = !known ? NAN : pl->n ? 100.0 * pl->reclaim / pl->n : 0;
	memset(pl, 0, sizeof(*pl));
}

/* @v, or 0 when unknown (for sums). */
static double nz(double v)
{
	return isnan(v) ? 0 : v;
}

/*
 * File pages in the page cache system-wide: Cached less Shmem, so that the
 * RAM testbed's own tmpfs (and every other tmpfs) is not counted.
 */
static double system_file_cache(const struct sample *s)
{
	if (!sample_known(s->mem.cached) || !sample_known(s->mem.shmem))
		return NAN;
	return s->mem.cached > s->mem.shmem ? (double)(s->mem.cached - s->mem.shmem) : 0;
}

/* The row for the interval from @a to @b. */
static void make_row(const struct bench_run *run, unsigned int mode, double t0,
		     const struct tick *a, const struct tick *b, struct bench_row *r)
{
	struct sample_delta d;
	uint64_t dirb[BENCH_MAX_DIRS] = { 0 };

	memset(r, 0, sizeof(*r));
	sample_delta(&a->s, &b->s, &d);
	r->mode = mode;
	r->dt = b->t - a->t;
	r->t = b->t - t0;
	for (unsigned int k = 0; k < run->nfiles; k++) {
		r->bytes += b->bytes[k] - a->bytes[k];
		r->bytes_total += b->bytes[k];
		dirb[k / run->job.numjobs] += b->bytes[k] - a->bytes[k];
	}
	r->gbps = r->dt > 0 ? r->bytes / r->dt / 1e9 : 0;
	for (unsigned int i = 0; i < run->job.ndirs; i++)
		r->dir_gbps[i] = r->dt > 0 ? dirb[i] / r->dt / 1e9 : 0;
	r->d = d;
	r->sys_cpu = isnan(d.idle_pct) ? NAN :
		(100 - d.idle_pct - nz(d.iowait_pct) - (isnan(d.steal_pct) ? 0 : d.steal_pct)) / 100 *
		sysconf(_SC_NPROCESSORS_ONLN) * r->dt;
	r->dstate = b->s.dstate;
	if (run->cgroup_dir[0] && b->s.cg_ok) {
		r->dirty = sample_known(b->s.cg.dirty) ? (double)b->s.cg.dirty : NAN;
		r->writeback = sample_known(b->s.cg.writeback) ? (double)b->s.cg.writeback : NAN;
	} else {
		r->dirty = sample_known(b->s.mem.dirty) ? (double)b->s.mem.dirty : NAN;
		r->writeback = sample_known(b->s.mem.writeback) ? (double)b->s.mem.writeback : NAN;
	}
	if (run->cgroup_dir[0] && b->s.cg_ok) {
		r->cache = sample_known(b->s.cg.file) ? (double)b->s.cg.file : NAN;
		r->cache_limit = sample_known(b->s.cg.limit) ? (double)b->s.cg.limit : NAN;
		/* v2 counts the cgroup's reclaim in pages; v1 memory.stat has
		 * none (pgpgout counts folios, and lags), but the kernel adds
		 * cgroup reclaim to the global pgsteal_file */
		r->reclaim = !isnan(d.cg_pgsteal) ? d.cg_pgsteal : d.pgsteal_file;
	} else {
		r->cache = system_file_cache(&b->s);
		r->cache_limit = NAN;
		r->reclaim = isnan(d.pgsteal_direct) ? NAN : d.pgsteal_direct + nz(d.pgsteal_kswapd);
	}
	bench_trace_row(run, a->tr_ok ? &a->tr : NULL, b->tr_ok ? &b->tr : NULL,
			kswapd_nodes(b), r);
}

/* The row from @a to @b with the stack polls since @a (@pl, then emptied). */
static void fill_row(const struct bench_run *run, unsigned int mode, double t0,
		     struct worker *w, const struct tick *a, const struct tick *b,
		     struct polls *pl, struct bench_row *r)
{
	make_row(run, mode, t0, a, b, r);
	row_polls(run, r, pl);
	for (unsigned int k = 0; k < run->nfiles; k++)
		r->flushing += atomic_load(&w[k].flushing) && !atomic_load(&w[k].done);
}

/* The phase's line on a terminal (run->progress): a few redraws a second at most. */
static void status_line(struct bench_run *run, const struct bench_phase *ph,
			const struct bench_row *r)
{
	char c[32];
	double avg = r->t > 0 ? r->bytes_total / r->t / 1e9 : 0;
	double eta = run->job.runtime > 0 ? run->job.runtime - r->t : NAN;

	if (run->hooks) {	/* the sum over ranks: the cache is each host's own */
		fprintf(stderr, "\r%-10s %5.1f s  %6.2f GB/s now  %6.2f avg  total of %u ranks, "
			"%s so far ", pc_strategy_name(ph->mode), r->t, r->gbps, avg,
			run->cluster ? run->cluster->nhosts : 1,
			bench_size((double)r->bytes_total, c, sizeof(c)));
		return;
	}
	if (!isnan(r->gbps) && avg > 0 && !run->job.time_based) {
		double left = ((double)run->nfiles * run->job.size - r->bytes_total) / (avg * 1e9);

		eta = isnan(eta) ? left : fmin(eta, left);
	}
	progress_status(&run->progress, 0,
		"%-10s %5.1f s  %6.2f GB/s now  %6.2f avg  cache %s  reclaim %7.0f pages/s  ETA %3.0f s",
		pc_strategy_name(ph->mode), r->t, r->gbps, avg,
		bench_size(r->cache, c, sizeof(c)), isnan(r->reclaim) ? 0 : r->reclaim,
		isnan(eta) || eta < 0 ? 0 : eta);
}

/* Sleep until @deadline (monotonic seconds) or a signal. */
static void sleep_until(double deadline)
{
	struct timespec ts = { (time_t)deadline, (long)((deadline - (time_t)deadline) * 1e9) };

	clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
}

static int all_done(const struct bench_run *run, struct worker *w)
{
	for (unsigned int k = 0; k < run->nfiles; k++)
		if (!atomic_load(&w[k].done))
			return 0;
	return 1;
}

/*
 * Across hosts: give this interval's row (NULL: none) and state to the
 * other ranks; rank 0 shows their sum.  Returns the hook's answer.
 */
static int sync_interval(struct bench_run *run, const struct bench_phase *ph,
			 unsigned int mode, const struct bench_row *row,
			 enum bench_rank_state state, int tty)
{
	struct bench_row total = { 0 };
	int sync = run->hooks->interval(run, mode, row, state, &total);

	if (tty && row && total.dt > 0)
		status_line(run, ph, &total);
	if (sync == BENCH_SYNC_FAIL)
		run->failed = 1;
	return sync;
}

/* A worker ended on an error (read after its done flag: set after it). */
static int workers_failed(const struct bench_run *run, struct worker *w)
{
	for (unsigned int k = 0; k < run->nfiles; k++)
		if (atomic_load(&w[k].done) && w[k].error)
			return 1;
	return 0;
}

/* The rank's state for the others: failed once a signal came or a worker
 * failed, so that the others stop now, not at their runtime. */
static enum bench_rank_state rank_state(const struct bench_run *run, struct worker *w,
					int finished)
{
	if (bench_stop || workers_failed(run, w))
		return BENCH_RANK_FAILED;
	return finished ? BENCH_RANK_DONE : BENCH_RANK_RUNNING;
}

/* A phase's sampling as it goes: the ticks rotate, a row from @a to @b. */
struct sampler {
	struct bench_run *run;
	struct bench_phase *ph;
	unsigned int mode;
	struct worker *w;
	struct tick *first, *a, *b, *prev;	/* the phase's first; a row's start, its
						 * end, the row before's start */
	int tty, writes;
	int sync, waiting;		/* across hosts: the last answer; all done here */
	struct polls pl;
	double t0, next, done_at;	/* across hosts: when this rank's were done */
};

/* What an interval's sample became. */
enum { KEPT_NONE, KEPT_ROW, KEPT_FOLDED, KEPT_FAILED };

static void sampler_start(struct sampler *s)
{
	struct bench_run *run = s->run;

	progress_start(&run->progress, !run->job.quiet && !run->hooks, NULL, 0);
	take(run, s->w, s->a);
	*s->first = *s->a;
	s->t0 = s->next = s->a->t;
	s->ph->cache_start = run->cgroup_dir[0] && s->a->s.cg_ok &&
			     sample_known(s->a->s.cg.file) ? (double)s->a->s.cg.file :
			     run->cgroup_dir[0] ? NAN : system_file_cache(&s->a->s);
}

/* Sleep to the next sample, polling the write workers' stacks meanwhile. */
static void sampler_wait(struct sampler *s)
{
	s->next += s->run->job.interval;
	while (pcc_now_sec() < s->next && !bench_stop && s->sync == BENCH_SYNC_GO &&
	       (s->waiting || !all_done(s->run, s->w))) {
		sleep_until(fmin(s->next, pcc_now_sec() + 0.05));
		if (s->writes && !s->waiting)
			poll_stacks(s->run, s->w, &s->pl);
	}
}

static void swap_ticks(struct tick **x, struct tick **y)
{
	struct tick *tmp = *x;

	*x = *y;
	*y = tmp;
}

/*
 * Sample the interval's end into @b and keep a row from @a to it.  A read
 * phase's tail too short for a row of its own goes into the last row,
 * rebuilt from that row's start, so that the rows add up; a write phase
 * keeps its short last row, where its flush ends.
 */
static int sampler_keep(struct sampler *s, int finished)
{
	struct bench_run *run = s->run;
	struct bench_row row;

	take(run, s->w, s->b);
	if (s->b->t - s->a->t >= run->job.interval / 4 || run->nrows == s->ph->first_row ||
	    (finished && s->writes)) {
		fill_row(run, s->mode, s->t0, s->w, s->a, s->b, &s->pl, &row);
		if (push_row(run, &row)) {
			error("cannot keep the timeline: %s", strerror(ENOMEM));
			atomic_store(run->stop_flag, 1);
			return KEPT_FAILED;
		}
		if (s->tty && !run->hooks)
			status_line(run, s->ph, &row);
		swap_ticks(&s->prev, &s->a);	/* prev = a, a = b, b = prev */
		swap_ticks(&s->a, &s->b);
		return KEPT_ROW;
	}
	if (!finished)
		return KEPT_NONE;
	fill_row(run, s->mode, s->t0, s->w, s->prev, s->b, &s->pl, &run->rows[run->nrows - 1]);
	run->last_row_rebuilt = 1;
	swap_ticks(&s->a, &s->b);
	return KEPT_FOLDED;
}

/*
 * Across hosts: the interval to the others; 1 when the phase goes on for
 * this rank whatever it did (stopped by the others: one last sample; its
 * workers finished: wait for the others' without rows).
 */
static int sampler_meet(struct sampler *s, int finished, int kept)
{
	const struct bench_row *row = kept == KEPT_ROW ? &s->run->rows[s->run->nrows - 1] : NULL;

	s->sync = sync_interval(s->run, s->ph, s->mode, row, rank_state(s->run, s->w, finished),
				s->tty);
	if (s->sync != BENCH_SYNC_GO && !finished)
		return 1;
	s->waiting = finished && s->sync == BENCH_SYNC_GO && !bench_stop;
	/* its figures end at its last sample, not when all are done */
	if (s->waiting)
		s->done_at = kept == KEPT_NONE ? s->b->t : s->a->t;
	return s->waiting;
}

/* One interval of a rank that waits for the others: 0 once the phase is over. */
static int sampler_wait_others(struct sampler *s)
{
	s->sync = sync_interval(s->run, s->ph, s->mode, NULL, rank_state(s->run, s->w, 1), 0);
	return s->sync == BENCH_SYNC_GO && !bench_stop;
}

static void sampler_end(struct sampler *s)
{
	struct bench_run *run = s->run;

	if (s->tty && run->hooks)
		fprintf(stderr, "\r%*s\r", 120, "");
	progress_end(&run->progress);
	/* the rank's own active time: to its last sample, never a wait for others */
	s->ph->secs = (isnan(s->done_at) ? s->a->t : s->done_at) - s->t0;
	bench_trace_phase(run, s->ph, s->first->tr_ok ? &s->first->tr : NULL,
			  s->a->tr_ok ? &s->a->tr : NULL, kswapd_nodes(s->a));
}

void bench_sample_phase(struct bench_run *run, struct bench_phase *ph, unsigned int mode,
			struct worker *w, struct tick *ticks)
{
	struct sampler s = {
		.run = run, .ph = ph, .mode = mode, .w = w,
		.a = &ticks[0], .b = &ticks[1], .prev = &ticks[2], .first = &ticks[3],
		.tty = (isatty(STDERR_FILENO) || (run->hooks && run->hooks->live)) &&
		       !run->job.quiet,
		.writes = run->job.rw == BENCH_WRITE, .sync = BENCH_SYNC_GO, .done_at = NAN,
	};

	sampler_start(&s);
	for (;;) {
		int finished, timeout, kept;

		sampler_wait(&s);
		if (s.waiting) {
			if (!sampler_wait_others(&s))
				break;
			continue;
		}
		timeout = run->job.runtime > 0 && pcc_now_sec() - s.t0 >= run->job.runtime - 1e-3;
		/* writers stop at the runtime but their fdatasync counts */
		finished = all_done(run, w) || bench_stop || (timeout && !s.writes) ||
			   s.sync != BENCH_SYNC_GO;
		if (finished || timeout)
			atomic_store(run->stop_flag, 1);
		kept = sampler_keep(&s, finished);
		if (kept == KEPT_FAILED)
			break;
		if (run->hooks && s.sync == BENCH_SYNC_GO && sampler_meet(&s, finished, kept))
			continue;
		if (finished)
			break;
	}
	sampler_end(&s);
}
