// SPDX-License-Identifier: MIT
/*
 * bench's kernel events (engine/trace): loading the counters for the run, the
 * shares of time of a timeline row and of a phase from two snapshots, and
 * the kernel work of a phase per GiB moved, from a snapshot at its start to
 * one after its workers ended.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "trace.h"
#include "util.h"

/* In the order of enum bench_work; the first ones are enum trace_count's. */
const struct bench_work_fig bench_work_figs[BENCH_NWORK] = {
	[BENCH_WORK_ADDED] = { "pages_added_per_gib", "added", 0 },
	[BENCH_WORK_DELETED] = { "pages_deleted_per_gib", "deleted", 0 },
	[BENCH_WORK_DELETED_KSWAPD] = { "pages_deleted_by_kswapd_per_gib", "by kswapd", 0 },
	[BENCH_WORK_FADVISE] = { "fadvise_calls_per_gib", "fadvise", 1 },
	[BENCH_WORK_DONTNEED] = { "dontneed_calls_per_gib", "DONTNEED", 1 },
	[BENCH_WORK_DRAIN] = { "drain_work_per_gib", "drain work", 1 },
	[BENCH_WORK_IPI] = { "ipis_per_gib", "IPIs", 1 },
	[BENCH_WORK_LOCK_WAITS] = { "lock_waits_per_gib", "lock waits", 1 },
	[BENCH_WORK_LOCK_MS] = { "lock_wait_ms_per_gib", "lock ms", 2 },
};

/* Where each count lands among the figures. */
static const enum bench_work from_count[TRACE_NCOUNTS] = {
	[TRACE_ADDED] = BENCH_WORK_ADDED,
	[TRACE_DELETED] = BENCH_WORK_DELETED,
	[TRACE_DELETED_KSWAPD] = BENCH_WORK_DELETED_KSWAPD,
	[TRACE_FADVISE] = BENCH_WORK_FADVISE,
	[TRACE_DONTNEED] = BENCH_WORK_DONTNEED,
	[TRACE_DRAIN] = BENCH_WORK_DRAIN,
	[TRACE_IPI] = BENCH_WORK_IPI,
};

/*
 * Load the kernel-event counters for this process's threads; without them
 * (no privilege, no BTF, not built) say so once and go on with /proc.
 */
void bench_trace_start(struct bench_run *run)
{
	int err;

	run->trace = NULL;
	if (run->job.no_trace) {
		snprintf(run->trace_why, sizeof(run->trace_why), "--no-trace given");
		return;
	}
	/* bench's threads and its child's (the workers under a cgroup v2 cap) */
	run->trace_at = malloc(sizeof(*run->trace_at));
	err = !run->trace_at ? -ENOMEM :
	      trace_open(&run->trace, getpid(), run->trace_why, sizeof(run->trace_why));
	if (!err) {
		run->trace_at->t = NAN;		/* no phase marked yet */
		return;
	}
	bench_trace_stop(run);
	fprintf(stderr, "%s: no kernel-event tracing (%s): reclaim and lock time come from the "
		"/proc counters only\n", progname, run->trace_why);
	bench_note(run, "no kernel-event tracing (%s): reclaim figures from the /proc counters only",
		   run->trace_why);
}

void bench_trace_stop(struct bench_run *run)
{
	trace_close(run->trace);	/* unloads everything it attached */
	run->trace = NULL;
	free(run->trace_at);
	run->trace_at = NULL;
}

/*
 * The traced shares from @a to @b (NULL: not read) into *@sh and the five
 * fields @pct points at (direct reclaim, memcg reclaim, lock wait, kswapd
 * busy, dirty throttle), NAN there when not read; whether they were read.
 */
static int put_shares(const struct bench_run *run, const struct trace_snap *a,
		      const struct trace_snap *b, unsigned int nodes,
		      struct trace_shares *sh, double *const pct[5])
{
	for (unsigned int i = 0; i < 5; i++)
		*pct[i] = NAN;
	if (!a || !b)
		return 0;
	trace_interval(a, b, run->nfiles, nodes, sh);
	*pct[0] = sh->direct_pct;
	*pct[1] = sh->memcg_pct;
	*pct[2] = sh->lock_pct;
	*pct[3] = sh->kswapd_pct;
	*pct[4] = sh->throttle_pct;
	return 1;
}

/* @sh's top lock @i as "KIND in NAME" into @name (@size bytes); its share of the time. */
static double top_lock(const struct bench_run *run, const struct trace_shares *sh,
		       unsigned int i, char *name, size_t size)
{
	snprintf(name, size, "%s in %s", sh->top[i].kind, sh->top[i].name);
	return 100.0 * sh->top[i].ns / 1e9 / (sh->secs * run->nfiles);
}

/* The traced shares from @a to @b (NULL: not read) into @r's trace fields. */
void bench_trace_row(const struct bench_run *run, const struct trace_snap *a,
		     const struct trace_snap *b, unsigned int nodes, struct bench_row *r)
{
	double *const pct[] = { &r->direct_reclaim_pct, &r->memcg_reclaim_pct,
				&r->lock_wait_pct, &r->kswapd_busy_pct, &r->dirty_throttle_pct };
	struct trace_shares sh;

	r->top_lock_pct = NAN;
	r->top_lock[0] = '\0';
	if (!put_shares(run, a, b, nodes, &sh, pct))
		return;
	r->top_lock_pct = 0;
	if (sh.ntop)
		r->top_lock_pct = top_lock(run, &sh, 0, r->top_lock, sizeof(r->top_lock));
}

/* The phase's shares and top locks, from its first to its last snapshot. */
void bench_trace_phase(const struct bench_run *run, struct bench_phase *ph,
		       const struct trace_snap *first, const struct trace_snap *last,
		       unsigned int nodes)
{
	double *const pct[] = { &ph->direct_reclaim_pct, &ph->memcg_reclaim_pct,
				&ph->lock_wait_pct, &ph->kswapd_busy_pct, &ph->dirty_throttle_pct };
	struct trace_shares sh;

	ph->ntop_locks = 0;
	if (!put_shares(run, first, last, nodes, &sh, pct))
		return;
	for (unsigned int i = 0; i < sh.ntop && i < 3; i++) {
		ph->top_locks[i].pct = top_lock(run, &sh, i, ph->top_locks[i].name,
						sizeof(ph->top_locks[i].name));
		ph->ntop_locks++;
	}
}

void bench_trace_mark(struct bench_run *run)
{
	if (run->trace && trace_read(run->trace, run->trace_at))
		run->trace_at->t = NAN;		/* not read: no work counted */
}

void bench_trace_work(const struct bench_run *run, struct bench_phase *ph)
{
	struct trace_snap *now = run->trace ? malloc(sizeof(*now)) : NULL;
	struct trace_work w;

	for (unsigned int i = 0; i < BENCH_NWORK; i++)
		ph->work[i] = NAN;
	if (!now || isnan(run->trace_at->t) || trace_read(run->trace, now))
		goto out;
	trace_work(run->trace_at, now, ph->bytes, &w);
	for (unsigned int c = 0; c < TRACE_NCOUNTS; c++)
		ph->work[from_count[c]] = w.count[c];
	ph->work[BENCH_WORK_LOCK_WAITS] = w.lock_waits;
	ph->work[BENCH_WORK_LOCK_MS] = w.lock_ms;
out:
	free(now);
}
