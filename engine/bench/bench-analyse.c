// SPDX-License-Identifier: MIT
/*
 * What pagecliff bench makes of its timeline: per-mode figures, the cliff
 * detector on each mode, the best mode, and the verdict (bench-verdict.c)
 * with its words, kept in the run for the report, the chart and the summary.
 */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"

#define GIB (1024.0 * 1024 * 1024)

static const struct bench_row *rows_of(const struct bench_run *run,
				       const struct bench_phase *ph)
{
	return run->rows + ph->first_row;
}

/* @v, or 0 when unknown (to start a sum). */
static double nz(double v)
{
	return isnan(v) ? 0 : v;
}

/* A row of the final fdatasync only: no bytes, a worker flushing. */
static int flush_only(const struct bench_row *r)
{
	return !r->bytes && r->flushing;
}

/* Mean of the known values of one share over the phase's rows. */
static double mean_pct(const struct bench_row *r, size_t n, size_t field)
{
	double sum = 0;
	size_t known = 0;

	for (size_t i = 0; i < n; i++) {
		double v = *(const double *)((const char *)&r[i] + field);

		if (!isnan(v)) {
			sum += v;
			known++;
		}
	}
	return known ? sum / known : NAN;
}

/* Write phases: peaks of dirty and writeback, shares of throttling. */
static void write_figures(const struct bench_run *run, struct bench_phase *ph)
{
	const struct bench_row *r = run->rows + ph->first_row;

	ph->peak_dirty = ph->peak_writeback = NAN;	/* unknown until a sample knows it */
	for (size_t i = 0; i < ph->nrows; i++) {
		if (!isnan(r[i].dirty))
			ph->peak_dirty = fmax(ph->peak_dirty, r[i].dirty);
		if (!isnan(r[i].writeback))
			ph->peak_writeback = fmax(ph->peak_writeback, r[i].writeback);
	}
	ph->throttled_pct = mean_pct(r, ph->nrows, offsetof(struct bench_row, throttled_pct));
	ph->reclaim_wait_pct = mean_pct(r, ph->nrows,
					offsetof(struct bench_row, reclaim_wait_pct));
	ph->reclaim_pct = mean_pct(r, ph->nrows, offsetof(struct bench_row, reclaim_pct));
}


/* Averages, medians, CPU per GiB, peak cache and pages reclaimed. */
static void phase_figures(const struct bench_run *run, struct bench_phase *ph)
{
	const struct bench_row *r = rows_of(run, ph);
	double *v = malloc((ph->nrows + 1) * sizeof(*v));
	double proc = 0, sys = 0, ksw = 0, gib = ph->bytes / GIB;
	size_t nv = 0;

	ph->gbps_avg = ph->secs > 0 ? ph->bytes / ph->secs / 1e9 : NAN;
	ph->gbps_min = ph->nrows ? INFINITY : NAN;
	ph->peak_cache = NAN;		/* unknown until a sample knows it */
	ph->pages_reclaimed = NAN;
	write_figures(run, ph);
	for (size_t i = 0; i < ph->nrows; i++) {
		if (!flush_only(&r[i])) {	/* the average counts the flush */
			if (v)
				v[nv++] = r[i].gbps;
			ph->gbps_min = fmin(ph->gbps_min, r[i].gbps);
		}
		proc += isnan(r[i].d.proc_cpu_s) ? 0 : r[i].d.proc_cpu_s;
		sys += isnan(r[i].sys_cpu) ? 0 : r[i].sys_cpu;
		ksw += isnan(r[i].d.kswapd_cpu_s) ? 0 : r[i].d.kswapd_cpu_s;
		if (!isnan(r[i].cache))
			ph->peak_cache = fmax(ph->peak_cache, r[i].cache);
		if (!isnan(r[i].reclaim))
			ph->pages_reclaimed = nz(ph->pages_reclaimed) + r[i].reclaim * r[i].dt;
	}
	ph->gbps_median = v && nv ? detect_median(v, nv) : NAN;
	if (isinf(ph->gbps_min))
		ph->gbps_min = NAN;
	free(v);
	ph->cpu_proc_per_gib = gib > 0 ? proc / gib : NAN;
	ph->cpu_sys_per_gib = gib > 0 ? sys / gib : NAN;
	ph->cpu_kswapd_per_gib = gib > 0 ? ksw / gib : NAN;
}

static void detect_phase(const struct bench_run *run, struct bench_phase *ph)
{
	const struct bench_row *r = rows_of(run, ph);
	struct detect_point *p = calloc(ph->nrows + 1, sizeof(*p));
	size_t n = 0;

	if (!p)
		return;
	for (size_t i = 0; i < ph->nrows; i++) {
		if (flush_only(&r[i]))
			continue;	/* the final fdatasync is no cliff */
		p[n].gib = r[i].bytes_total / GIB;
		p[n].gbps = r[i].gbps;
		p[n].cache = r[i].cache;
		p[n].limit = r[i].cache_limit;
		p[n].reclaim = r[i].reclaim;
		p[n].direct_pct = r[i].direct_reclaim_pct;
		p[n].memcg_pct = r[i].memcg_reclaim_pct;
		p[n].lock_pct = r[i].lock_wait_pct;
		p[n].throttle_pct = r[i].dirty_throttle_pct;
		p[n].kswapd_pct = r[i].kswapd_busy_pct;
		n++;
	}
	detect_cliff(p, n, run->best_gbps, &ph->det);
	free(p);
}

/* Shares of the workers' time (polled stacks) that name a write-side cause. */
#define WRITE_CAUSE_PCT 5.0

/* The write side's cause, where the polled stacks show one. */
static int say_write_cause(const struct bench_phase *ph, char *buf, size_t len)
{
	char a[32], b[32];
	int n;

	if (isnan(ph->throttled_pct))
		return snprintf(buf, len, "; dirty throttling and reclaim waits unknown "
				"(kernel stacks unreadable: needs root)");
	n = snprintf(buf, len, "; peak dirty %s, under writeback %s",
		     bench_size(ph->peak_dirty, a, sizeof(a)),
		     bench_size(ph->peak_writeback, b, sizeof(b)));
	if (ph->throttled_pct >= WRITE_CAUSE_PCT && (size_t)n < len)
		n += snprintf(buf + n, len - n, "; dirty throttling: the writers waited in "
			      "balance_dirty_pages %.0f%% of the time", ph->throttled_pct);
	if (ph->reclaim_wait_pct >= WRITE_CAUSE_PCT && (size_t)n < len)
		n += snprintf(buf + n, len - n, "; reclaim waiting for writeback: the writers "
			      "waited on pages under writeback in reclaim %.0f%% of the time",
			      ph->reclaim_wait_pct);
	if (ph->reclaim_pct >= WRITE_CAUSE_PCT && (size_t)n < len)
		n += snprintf(buf + n, len - n, "; the writers were in direct reclaim %.0f%% "
			      "of the time", ph->reclaim_pct);
	if (ph->throttled_pct < WRITE_CAUSE_PCT && ph->reclaim_wait_pct < WRITE_CAUSE_PCT &&
	    ph->reclaim_pct < WRITE_CAUSE_PCT && (size_t)n < len)
		n += snprintf(buf + n, len - n, "; no dirty throttling or reclaim wait "
			      "(under %.0f%% of the time)", WRITE_CAUSE_PCT);
	return n;
}

/* What the verdict reads of phase @ph. */
static void verdict_input(const struct bench_run *run, const struct bench_phase *ph,
			  struct verdict_mode *vm)
{
	unsigned int top = 0;

	vm->name = pc_strategy_name(ph->mode);
	vm->det = ph->det;
	vm->cpu_per_gib = ph->cpu_proc_per_gib;
	vm->kswapd_per_gib = ph->cpu_kswapd_per_gib;
	vm->bytes = (double)ph->bytes;
	vm->cache_grew = fmax(ph->det.peak_cache - ph->cache_start, 0);
	vm->data_set = (double)run->nfiles * run->job.size;
	for (unsigned int i = 1; i < ph->ntop_locks; i++)
		if (ph->top_locks[i].pct > ph->top_locks[top].pct)
			top = i;
	vm->top_lock = ph->ntop_locks ? ph->top_locks[top].name : "";
	vm->write = run->job.rw == BENCH_WRITE;
}

/* The words of phase @ph from its verdict: the cliff, the write side's
 * cause, interrupted; the gap apart. */
static void phase_words(const struct bench_run *run, struct bench_phase *ph,
			const struct verdict_mode *vm, const struct verdict_ctx *ctx)
{
	size_t n = (size_t)verdict_cliff_words(vm, &ph->v, ctx, ph->verdict, sizeof(ph->verdict));

	if (run->job.rw == BENCH_WRITE && n < sizeof(ph->verdict))
		n += say_write_cause(ph, ph->verdict + n, sizeof(ph->verdict) - n);
	if (ph->interrupted && n < sizeof(ph->verdict))
		snprintf(ph->verdict + n, sizeof(ph->verdict) - n, " (interrupted)");
	verdict_gap_words(vm, &ph->v, ctx, ph->gap, sizeof(ph->gap));
}

/* The verdict of every mode that ran, and the run's summary line. */
static void judge(struct bench_run *run)
{
	struct verdict_mode vm[BENCH_MAX_MODES];
	struct verdict v[BENCH_MAX_MODES];
	unsigned int idx[BENCH_MAX_MODES];
	struct verdict_ctx ctx = { 0 };
	int best = -1;
	size_t n = 0;

	if (!run->cpus) {
		long c = sysconf(_SC_NPROCESSORS_ONLN);

		run->cpus = c > 0 ? (unsigned int)c : 0;
	}
	ctx.memcg = run->cgroup_dir[0] != '\0';
	ctx.traced = !run->trace_why[0];
	ctx.trace_why = run->trace_why;
	ctx.cpus = run->cpus;
	ctx.threads = run->nfiles;
	for (unsigned int m = 0; m < run->job.nmodes; m++) {
		if (!run->phases[m].ran)
			continue;
		if ((int)m == run->best)
			best = (int)n;
		idx[n] = m;
		verdict_input(run, &run->phases[m], &vm[n++]);
	}
	verdict_judge(vm, n, best, &ctx, v);
	for (size_t i = 0; i < n; i++) {
		run->phases[idx[i]].v = v[i];
		phase_words(run, &run->phases[idx[i]], &vm[i], &ctx);
	}
	verdict_summary(vm, v, n, best, &ctx, run->summary, sizeof(run->summary));
}

/*
 * Figures per mode; then the best mode of the run, by the throughput each
 * held once its cache was full (or throughout, when it never filled); then
 * the verdict of each mode against that best.
 */
static void analyse_one(struct bench_run *run);

void bench_analyse(struct bench_run *run)
{
	analyse_one(run);
	if (!run->cluster)
		return;
	for (unsigned int h = 0; h < run->cluster->nhosts; h++)
		if (run->cluster->hosts[h].run != run)
			analyse_one(run->cluster->hosts[h].run);
}

static void analyse_one(struct bench_run *run)
{
	run->best = -1;
	run->best_gbps = NAN;
	for (unsigned int m = 0; m < run->job.nmodes; m++) {
		struct bench_phase *ph = &run->phases[m];

		if (!ph->ran)
			continue;
		phase_figures(run, ph);
		detect_phase(run, ph);
		if (!isnan(ph->det.after_gbps) &&
		    (run->best < 0 || ph->det.after_gbps > run->best_gbps)) {
			run->best = (int)m;
			run->best_gbps = ph->det.after_gbps;
		}
	}
	for (unsigned int m = 0; m < run->job.nmodes; m++)
		if (run->phases[m].ran)
			detect_phase(run, &run->phases[m]);
	judge(run);
}
