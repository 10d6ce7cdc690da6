// SPDX-License-Identifier: MIT
/*
 * bench's kernel events (cli/trace): loading the counters for the run, and
 * the shares of time of a timeline row and of a phase from two snapshots.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "trace.h"
#include "util.h"

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
	/* the program counts one process's threads: bench's, not its child's */
	if (run->cgroup_version == 2) {
		snprintf(run->trace_why, sizeof(run->trace_why), "under a cgroup v2 cap the "
			 "workers run in a child process, which it does not follow");
		err = -ENOTSUP;
	} else {
		err = trace_open(&run->trace, getpid(), run->trace_why, sizeof(run->trace_why));
	}
	if (!err)
		return;
	run->trace = NULL;
	fprintf(stderr, "%s: no kernel-event tracing (%s): reclaim and lock time come from the "
		"/proc counters only\n", progname, run->trace_why);
	bench_note(run, "no kernel-event tracing (%s): reclaim figures from the /proc counters only",
		   run->trace_why);
}

void bench_trace_stop(struct bench_run *run)
{
	trace_close(run->trace);	/* unloads everything it attached */
	run->trace = NULL;
}

/* The traced shares from @a to @b (NULL: not read) into @r's trace fields. */
void bench_trace_row(const struct bench_run *run, const struct trace_snap *a,
		     const struct trace_snap *b, unsigned int nodes, struct bench_row *r)
{
	struct trace_shares sh;

	r->direct_reclaim_pct = r->memcg_reclaim_pct = r->lock_wait_pct = NAN;
	r->kswapd_busy_pct = r->dirty_throttle_pct = r->top_lock_pct = NAN;
	r->top_lock[0] = '\0';
	if (!a || !b)
		return;
	trace_interval(a, b, run->nfiles, nodes, &sh);
	r->direct_reclaim_pct = sh.direct_pct;
	r->memcg_reclaim_pct = sh.memcg_pct;
	r->lock_wait_pct = sh.lock_pct;
	r->kswapd_busy_pct = sh.kswapd_pct;
	r->dirty_throttle_pct = sh.throttle_pct;
	r->top_lock_pct = 0;
	if (sh.ntop) {
		snprintf(r->top_lock, sizeof(r->top_lock), "%s in %s", sh.top[0].kind,
			 sh.top[0].name);
		r->top_lock_pct = 100.0 * sh.top[0].ns / 1e9 / (sh.secs * run->nfiles);
	}
}

/* The phase's shares and top locks, from its first to its last snapshot. */
void bench_trace_phase(const struct bench_run *run, struct bench_phase *ph,
		       const struct trace_snap *first, const struct trace_snap *last,
		       unsigned int nodes)
{
	struct trace_shares sh;

	ph->direct_reclaim_pct = ph->memcg_reclaim_pct = ph->lock_wait_pct = NAN;
	ph->kswapd_busy_pct = ph->dirty_throttle_pct = NAN;
	ph->ntop_locks = 0;
	if (!first || !last)
		return;
	trace_interval(first, last, run->nfiles, nodes, &sh);
	ph->direct_reclaim_pct = sh.direct_pct;
	ph->memcg_reclaim_pct = sh.memcg_pct;
	ph->lock_wait_pct = sh.lock_pct;
	ph->kswapd_busy_pct = sh.kswapd_pct;
	ph->dirty_throttle_pct = sh.throttle_pct;
	for (unsigned int i = 0; i < sh.ntop && i < 3; i++) {
		snprintf(ph->top_locks[i].name, sizeof(ph->top_locks[i].name), "%s in %s",
			 sh.top[i].kind, sh.top[i].name);
		ph->top_locks[i].pct = 100.0 * sh.top[i].ns / 1e9 / (sh.secs * run->nfiles);
		ph->ntop_locks++;
	}
}
