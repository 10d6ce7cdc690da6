// SPDX-License-Identifier: MIT
/*
 * What pagecliff bench makes of its timeline: per-mode figures, the cliff
 * detector's verdict in words, and the report as text, JSON or CSV, plus
 * the timeline CSV with every interval.
 */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench.h"

#define GIB (1024.0 * 1024 * 1024)

const char *bench_size(double bytes, char *buf, size_t len)
{
	static const char *units[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	int u = 0;

	if (isnan(bytes)) {
		snprintf(buf, len, "?");
		return buf;
	}
	while (bytes >= 1024 && u < 4) {
		bytes /= 1024;
		u++;
	}
	snprintf(buf, len, u ? "%.1f %s" : "%.0f %s", bytes, units[u]);
	return buf;
}

void bench_note(struct bench_run *run, const char *fmt, ...)
{
	va_list ap;

	if (run->nnotes >= sizeof(run->notes) / sizeof(run->notes[0]))
		return;
	va_start(ap, fmt);
	vsnprintf(run->notes[run->nnotes++], sizeof(run->notes[0]), fmt, ap);
	va_end(ap);
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

/* Whether @v is a figure: NAN (unknown) and infinities are not. */
static int known(double v)
{
	return !isnan(v) && !isinf(v);
}

/* @v with @prec decimals into @buf, or "unknown". */
static const char *fig(char *buf, size_t len, int prec, double v)
{
	if (!known(v))
		return "unknown";
	snprintf(buf, len, "%.*f", prec, v);
	return buf;
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
		proc += isnan(r[i].proc_cpu) ? 0 : r[i].proc_cpu;
		sys += isnan(r[i].sys_cpu) ? 0 : r[i].sys_cpu;
		ksw += isnan(r[i].kswapd_cpu) ? 0 : r[i].kswapd_cpu;
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
		n++;
	}
	detect_cliff(p, n, run->best_gbps, &ph->det);
	free(p);
}

/* The verdict of a phase that fell. */
static int say_cliff(const struct bench_run *run, const struct bench_phase *ph,
		     char *buf, size_t len)
{
	const struct detect_result *d = &ph->det;
	const char *name = pc_strategy_name(ph->mode);
	const char *best = pc_strategy_name(run->phases[run->best].mode);
	char lim[32];
	int n;

	bench_size(d->limit, lim, sizeof(lim));
	if (!isnan(d->vs_own) && d->vs_own < DETECT_FALL_SHARE)
		n = snprintf(buf, len, "%s: fell from %.2f to %.2f GB/s after %.2f GiB, when the "
			     "page cache reached its limit (%s) and direct reclaim began at "
			     "%.0f pages/s; %.0f%% of %s's %.2f GB/s, the best mode of this run",
			     name, d->before_gbps, d->after_gbps, d->at_gib, lim, d->reclaim_rate,
			     100 * d->vs_best, best, d->best_gbps);
	else
		n = snprintf(buf, len, "%s: fell from %.2f GB/s (%s, the best mode of this run) "
			     "to %.2f GB/s after %.2f GiB, when the page cache reached its limit "
			     "(%s) and direct reclaim began at %.0f pages/s; the cache filled too "
			     "soon to measure the mode's own speed before it",
			     name, d->best_gbps, best, d->after_gbps, d->at_gib, lim,
			     d->reclaim_rate);
	return n;
}

/* Why a mode whose cache never filled has no cliff. */
static int say_not_full(const struct bench_run *run, const struct bench_phase *ph,
			char *buf, size_t len)
{
	const struct detect_result *d = &ph->det;
	const char *name = pc_strategy_name(ph->mode);
	double grew = fmax(d->peak_cache - ph->cache_start, 0);
	double set = (double)run->nfiles * run->job.size;
	char a[32], b[32];

	if ((!isnan(d->limit) && set < DETECT_FULL_SHARE * d->limit) || grew >= set / 2)
		return snprintf(buf, len, "%s: no cliff: the data set (%s) fit in the page cache "
				"(%s); %.2f GB/s", name, bench_size(set, a, sizeof(a)),
				isnan(d->limit) ? "no limit" : bench_size(d->limit, b, sizeof(b)),
				d->after_gbps);
	if (grew < ph->bytes / 10.0)
		return snprintf(buf, len, "%s: no cliff: this mode kept the page cache small (it "
				"grew by %s while %s were %s), so nothing had to be reclaimed; "
				"%.2f GB/s throughout", name, bench_size(grew, a, sizeof(a)),
				bench_size(ph->bytes, b, sizeof(b)),
				run->job.rw == BENCH_WRITE ? "written" : "read", d->after_gbps);
	if (!isnan(d->limit))
		return snprintf(buf, len, "%s: no cliff: the page cache stayed at %s at most, below "
				"its limit of %s, so nothing had to be reclaimed; %.2f GB/s", name,
				bench_size(d->peak_cache, a, sizeof(a)),
				bench_size(d->limit, b, sizeof(b)), d->after_gbps);
	return snprintf(buf, len, "%s: no cliff: nothing was reclaimed (use --mem-limit to cap "
			"the cache); %.2f GB/s", name, d->after_gbps);
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

/* Whose time the shares are of: bench's workers read or write. */
static const char *workers(const struct bench_run *run)
{
	return run->job.rw == BENCH_WRITE ? "writers" : "readers";
}

/* A lock below this % of the workers' time is not named in words. */
#define LOCK_SHOWN_PCT 0.1

/* A share as "12.3%", or "unknown". */
static const char *pct_str(char *buf, size_t len, double v)
{
	if (!known(v))
		return "unknown";
	snprintf(buf, len, "%.1f%%", v);
	return buf;
}

/*
 * What the kernel's events say about the time once the cache was full:
 * "; measured: 41% of the readers' time in direct reclaim, 29% waiting on
 * locks (most: spin lock in __remove_mapping, 21%)".  Nothing untraced.
 */
static int say_traced(const struct bench_phase *ph, const char *who, char *buf, size_t len)
{
	const struct detect_result *d = &ph->det;
	char a[32], b[32];
	int n;

	if (isnan(d->direct_pct) && isnan(d->memcg_pct))
		return 0;
	n = snprintf(buf, len, "; measured once the cache was full: %s of the %s' time in "
		     "direct reclaim, %s in memory-cgroup reclaim",
		     pct_str(a, sizeof(a), d->direct_pct), who, pct_str(b, sizeof(b), d->memcg_pct));
	if (n < 0 || (size_t)n >= len || isnan(d->lock_pct))
		return n;
	n += snprintf(buf + n, len - n, ", %.1f%% waiting on locks", d->lock_pct);
	if ((size_t)n < len && ph->ntop_locks && ph->top_locks[0].pct >= LOCK_SHOWN_PCT) {
		char top[sizeof(ph->top_locks[0].name)];	/* buf is ph->verdict */

		memcpy(top, ph->top_locks[0].name, sizeof(top));
		n += snprintf(buf + n, len - n, " (most: %s, %.1f%% over the phase)", top,
			      ph->top_locks[0].pct);
	}
	return n;
}

static void say_verdict(const struct bench_run *run, struct bench_phase *ph)
{
	const struct detect_result *d = &ph->det;
	const char *name = pc_strategy_name(ph->mode);
	char *buf = ph->verdict;
	size_t len = sizeof(ph->verdict);
	int n = 0;

	switch (d->kind) {
	case DETECT_CLIFF:
		n = say_cliff(run, ph, buf, len);
		break;
	case DETECT_HELD:
		n = snprintf(buf, len, "%s: no cliff: held %.2f GB/s (%.0f%% of the best mode's "
			     "%.2f GB/s) while the page cache was full and reclaim ran at %.0f pages/s",
			     name, d->after_gbps, 100 * d->vs_best, d->best_gbps, d->reclaim_rate);
		break;
	case DETECT_NOT_FULL:
		n = say_not_full(run, ph, buf, len);
		break;
	case DETECT_NO_RECLAIM:
		n = snprintf(buf, len, "%s: no cliff: the page cache reached its limit but "
			     "nothing was reclaimed; %.2f GB/s", name, d->after_gbps);
		break;
	case DETECT_NO_DATA:
		n = snprintf(buf, len, "%s: no verdict: fewer than two intervals (%.1f s); use a "
			     "larger --size, %sor a shorter --interval", name, ph->secs,
			     run->job.rw == BENCH_WRITE ? "" : "--runtime with --time_based, ");
		break;
	}
	if ((d->kind == DETECT_CLIFF || d->kind == DETECT_HELD) && n > 0 && (size_t)n < len)
		n += say_traced(ph, workers(run), buf + n, len - n);
	if (d->growth_drop && n > 0 && (size_t)n < len)
		n += snprintf(buf + n, len - n, "; before the cache filled it ran slower "
			      "(%.2f GB/s) while the cache grew and nothing was reclaimed: likely the "
			      "first touch of memory (free page reporting on VMs), not the cliff",
			      d->growth_gbps);
	if (run->job.rw == BENCH_WRITE && n > 0 && (size_t)n < len)
		n += say_write_cause(ph, buf + n, len - n);
	if (ph->interrupted && n > 0 && (size_t)n < len)
		snprintf(buf + n, len - n, " (interrupted)");
}

/*
 * Figures per mode; then the best mode of the run, by the throughput each
 * held once its cache was full (or throughout, when it never filled); then
 * the verdict of each mode against that best.
 */
void bench_analyse(struct bench_run *run)
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
	for (unsigned int m = 0; m < run->job.nmodes; m++) {
		if (!run->phases[m].ran)
			continue;
		detect_phase(run, &run->phases[m]);
		say_verdict(run, &run->phases[m]);
	}
}

static const char *engine_name(enum bench_engine e)
{
	static const char *names[] = { "default", "sync", "psync", "io_uring" };

	return names[e];
}

static void text_job(const struct bench_run *run, FILE *out)
{
	const struct bench_job *j = &run->job;
	char a[32], b[32];

	fprintf(out, "job: %u thread%s (%u director%s x %u), %s per thread, bs %s, %s API, "
		"buffers at page offset %llu, ioengine %s", run->nfiles,
		run->nfiles == 1 ? "" : "s", j->ndirs, j->ndirs == 1 ? "y" : "ies", j->numjobs,
		bench_size(j->size, a, sizeof(a)), bench_size(j->bs, b, sizeof(b)),
		j->api == BENCH_COPY ? "copy" : "zero-copy", (unsigned long long)j->mem_align,
		engine_name(j->engine));
	if (j->iodepth)
		fprintf(out, " iodepth %u", j->iodepth);
	if (j->time_based)
		fprintf(out, ", %.0f s per mode", j->runtime);
	fprintf(out, ", %s\n", j->rw == BENCH_WRITE ? "writes (end_fsync=1)" : "reads");
	for (unsigned int d = 0; d < j->ndirs; d++)
		fprintf(out, "directory: %s\n", j->dirs[d]);
	if (run->testbed_desc[0])
		fprintf(out, "testbed: %s\n", run->testbed_desc);
	fprintf(out, "memory cap: %s\n", run->cgroup_dir[0] ?
		bench_size(j->mem_limit, a, sizeof(a)) : "none");
	if (run->cgroup_dir[0])
		fprintf(out, "memory cgroup: %s (v%d)\n", run->cgroup_dir, run->cgroup_version);
	fprintf(out, "numa: %s\n", run->numa_desc);
	if (run->cache_desc[0])
		fprintf(out, "page cache counted as: %s\n", run->cache_desc);
}

/* One phase's line of the text table; unknown figures say so. */
static void text_phase(const struct bench_phase *ph, FILE *out)
{
	char f[8][32], cpu[3 * 32 + 3], a[32];

	snprintf(cpu, sizeof(cpu), "%s/%s/%s",
		 fig(f[5], sizeof(f[5]), 2, ph->cpu_proc_per_gib),
		 fig(f[6], sizeof(f[6]), 2, ph->cpu_sys_per_gib),
		 fig(f[7], sizeof(f[7]), 2, ph->cpu_kswapd_per_gib));
	fprintf(out, "%-10s %-10s %7s %7s %7s %7s %7s %21s %10s %11s %s\n",
		pc_strategy_name(ph->mode), pc_strategy_name(ph->strategy),
		fig(f[0], sizeof(f[0]), 2, ph->gbps_avg),
		fig(f[1], sizeof(f[1]), 2, ph->gbps_median),
		fig(f[2], sizeof(f[2]), 2, ph->gbps_min),
		fig(f[3], sizeof(f[3]), 2, ph->det.before_gbps),
		fig(f[4], sizeof(f[4]), 2, ph->det.after_gbps), cpu,
		known(ph->peak_cache) ? bench_size(ph->peak_cache, a, sizeof(a)) : "unknown",
		fig(f[5], sizeof(f[5]), 0, ph->pages_reclaimed),
		ph->det.cliff ? "yes" : "no");
}

static void text_write_phase(const struct bench_phase *ph, FILE *out)
{
	char a[32], b[32], c[16], d[16], e[16];

	fprintf(out, "%s: %s%s; fresh files, fdatasync of each at the end counted in the "
		"phase (fio's end_fsync=1): %.2f s of %.2f s; peak dirty %s, writeback %s; "
		"writers throttled (balance_dirty_pages) %s, in reclaim waiting for writeback "
		"%s, in direct reclaim %s of the time\n",
		pc_strategy_name(ph->mode), ph->reason[0] ? "" : "strategy ",
		ph->reason[0] ? ph->reason : pc_strategy_name(ph->strategy), ph->sync_secs,
		ph->secs, bench_size(ph->peak_dirty, a, sizeof(a)),
		bench_size(ph->peak_writeback, b, sizeof(b)),
		pct_str(c, sizeof(c), ph->throttled_pct),
		pct_str(d, sizeof(d), ph->reclaim_wait_pct), pct_str(e, sizeof(e), ph->reclaim_pct));
}

/* The kernel-event shares per mode, over its whole phase. */
static void text_traced(const struct bench_run *run, FILE *out)
{
	int header = 0;

	for (unsigned int m = 0; m < run->job.nmodes; m++) {
		const struct bench_phase *ph = &run->phases[m];
		const double v[] = { ph->direct_reclaim_pct, ph->memcg_reclaim_pct,
				     ph->lock_wait_pct, ph->dirty_throttle_pct, ph->kswapd_busy_pct };
		char b[5][32];
		int any = 0;

		for (size_t k = 0; k < 5; k++)
			any |= known(v[k]);
		if (!ph->ran || !any)
			continue;
		if (!header++)
			fprintf(out, "\nkernel time, %% of the %s' time over the phase "
				"(kswapd: %% of its time awake):\n", workers(run));
		fprintf(out, "%s: direct reclaim %s, memory-cgroup reclaim %s, lock wait %s, "
			"dirty throttle %s, kswapd %s", pc_strategy_name(ph->mode),
			pct_str(b[0], 32, v[0]), pct_str(b[1], 32, v[1]), pct_str(b[2], 32, v[2]),
			pct_str(b[3], 32, v[3]), pct_str(b[4], 32, v[4]));
		for (unsigned int i = 0, shown = 0; i < ph->ntop_locks; i++)
			if (ph->top_locks[i].pct >= LOCK_SHOWN_PCT)
				fprintf(out, "%s%s %.1f%%", shown++ ? ", " : "; top locks: ",
					ph->top_locks[i].name, ph->top_locks[i].pct);
		fputc('\n', out);
	}
}

void bench_report_text(const struct bench_run *run, FILE *out)
{
	char a[32];

	text_job(run, out);
	fprintf(out, "\n%-10s %-10s %7s %7s %7s %7s %7s %21s %10s %11s %s\n", "mode",
		"strategy", "avg", "median", "min", "before", "after",
		"CPU s/GiB proc/sys/ksw", "peak cache", "reclaimed", "cliff");
	fprintf(out, "%-10s %-10s %7s %7s %7s %7s %7s %21s %10s %11s\n", "", "", "GB/s",
		"GB/s", "GB/s", "GB/s", "GB/s", "", "", "pages");
	for (unsigned int m = 0; m < run->job.nmodes; m++) {
		const struct bench_phase *ph = &run->phases[m];

		if (ph->ran)
			text_phase(ph, out);
	}
	fprintf(out, "\n");
	for (unsigned int m = 0; m < run->job.nmodes; m++) {
		const struct bench_phase *ph = &run->phases[m];

		if (!ph->ran)
			continue;
		if (run->job.rw == BENCH_WRITE) {
			text_write_phase(ph, out);
			continue;
		}
		fprintf(out, "%s: %s%s; cold start: %s of the files cached%s\n",
			pc_strategy_name(ph->mode), ph->reason[0] ? "" : "strategy ",
			ph->reason[0] ? ph->reason : pc_strategy_name(ph->strategy),
			bench_size(ph->cached_before, a, sizeof(a)),
			ph->cold_ok ? "" : " (NOT cold: figures include cache hits)");
	}
	text_traced(run, out);
	fprintf(out, "\nverdict:\n");
	for (unsigned int m = 0; m < run->job.nmodes; m++)
		if (run->phases[m].ran)
			fprintf(out, "  %s\n", run->phases[m].verdict);
	for (unsigned int i = 0; i < run->nnotes; i++)
		fprintf(out, "note: %s\n", run->notes[i]);
	if (run->interrupted)
		fprintf(out, "interrupted: the figures cover what was measured until then\n");
}

/* JSON: strings escaped, NAN and infinities as null. */
static void json_str(FILE *out, const char *s)
{
	fputc('"', out);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(out, "\\%c", c);
		else if (c < 0x20)
			fprintf(out, "\\u%04x", c);
		else
			fputc(c, out);
	}
	fputc('"', out);
}

static void json_num(FILE *out, double v)
{
	if (isnan(v) || isinf(v))
		fputs("null", out);
	else if (v == floor(v) && fabs(v) < 1e18)
		fprintf(out, "%.0f", v);
	else
		fprintf(out, "%.6g", v);
}

static void json_kv_num(FILE *out, const char *key, double v, int comma)
{
	fprintf(out, "\"%s\": ", key);
	json_num(out, v);
	if (comma)
		fputs(", ", out);
}

static void json_kv_str(FILE *out, const char *key, const char *v, int comma)
{
	fprintf(out, "\"%s\": ", key);
	json_str(out, v);
	if (comma)
		fputs(", ", out);
}

static void json_row(FILE *out, const struct bench_run *run, const struct bench_row *r)
{
	fputs("{", out);
	json_kv_num(out, "t", r->t, 1);
	json_kv_num(out, "dt", r->dt, 1);
	json_kv_num(out, "bytes", (double)r->bytes, 1);
	json_kv_num(out, "bytes_total", (double)r->bytes_total, 1);
	json_kv_num(out, "gbps", r->gbps, 1);
	fputs("\"dir_gbps\": [", out);
	for (unsigned int d = 0; d < run->job.ndirs; d++) {
		json_num(out, r->dir_gbps[d]);
		fputs(d + 1 < run->job.ndirs ? ", " : "], ", out);
	}
	json_kv_num(out, "cpu_usr_pct", r->usr, 1);
	json_kv_num(out, "cpu_sys_pct", r->sys, 1);
	json_kv_num(out, "cpu_iowait_pct", r->iowait, 1);
	json_kv_num(out, "cpu_irq_pct", r->irq, 1);
	json_kv_num(out, "cpu_softirq_pct", r->softirq, 1);
	json_kv_num(out, "cpu_idle_pct", r->idle, 1);
	json_kv_num(out, "process_cpu_s", r->proc_cpu, 1);
	json_kv_num(out, "system_cpu_s", r->sys_cpu, 1);
	json_kv_num(out, "kswapd_cpu_s", r->kswapd_cpu, 1);
	json_kv_num(out, "page_cache_bytes", r->cache, 1);
	json_kv_num(out, "cache_limit_bytes", r->cache_limit, 1);
	json_kv_num(out, "reclaim_pages_s", r->reclaim, 1);
	json_kv_num(out, "pgscan_direct_s", r->pgscan_direct, 1);
	json_kv_num(out, "pgsteal_direct_s", r->pgsteal_direct, 1);
	json_kv_num(out, "pgscan_kswapd_s", r->pgscan_kswapd, 1);
	json_kv_num(out, "pgsteal_kswapd_s", r->pgsteal_kswapd, 1);
	json_kv_num(out, "allocstall_s", r->allocstall, 1);
	json_kv_num(out, "cgroup_pgscan_s", r->cg_pgscan, 1);
	json_kv_num(out, "cgroup_pgsteal_s", r->cg_pgsteal, 1);
	json_kv_num(out, "psi_some_pct", r->psi_some, 1);
	json_kv_num(out, "psi_full_pct", r->psi_full, 1);
	json_kv_num(out, "threads_in_d_state", r->dstate, 1);
	json_kv_num(out, "dirty_bytes", r->dirty, 1);
	json_kv_num(out, "writeback_bytes", r->writeback, 1);
	json_kv_num(out, "stack_throttled_pct", r->throttled_pct, 1);
	json_kv_num(out, "stack_reclaim_wait_pct", r->reclaim_wait_pct, 1);
	json_kv_num(out, "stack_reclaim_pct", r->reclaim_pct, 1);
	json_kv_num(out, "threads_flushing", r->flushing, 1);
	json_kv_num(out, "direct_reclaim_pct", r->direct_reclaim_pct, 1);
	json_kv_num(out, "memcg_reclaim_pct", r->memcg_reclaim_pct, 1);
	json_kv_num(out, "lock_wait_pct", r->lock_wait_pct, 1);
	json_kv_str(out, "top_lock", r->top_lock, 1);
	json_kv_num(out, "top_lock_pct", r->top_lock_pct, 1);
	json_kv_num(out, "kswapd_busy_pct", r->kswapd_busy_pct, 1);
	json_kv_num(out, "dirty_throttle_pct", r->dirty_throttle_pct, 0);
	fputs("}", out);
}

/* The phase's kernel-event shares (null when not traced) and top locks. */
static void json_traced(FILE *out, const struct bench_phase *ph)
{
	json_kv_num(out, "direct_reclaim_pct", ph->direct_reclaim_pct, 1);
	json_kv_num(out, "memcg_reclaim_pct", ph->memcg_reclaim_pct, 1);
	json_kv_num(out, "lock_wait_pct", ph->lock_wait_pct, 1);
	json_kv_num(out, "kswapd_busy_pct", ph->kswapd_busy_pct, 1);
	json_kv_num(out, "dirty_throttle_pct", ph->dirty_throttle_pct, 1);
	json_kv_num(out, "direct_reclaim_pct_after_cache_full", ph->det.direct_pct, 1);
	json_kv_num(out, "memcg_reclaim_pct_after_cache_full", ph->det.memcg_pct, 1);
	json_kv_num(out, "lock_wait_pct_after_cache_full", ph->det.lock_pct, 1);
	fputs("\"top_locks\": [", out);
	for (unsigned int i = 0; i < ph->ntop_locks; i++) {
		fputs(i ? ", {" : "{", out);
		json_kv_str(out, "lock", ph->top_locks[i].name, 1);
		json_kv_num(out, "pct", ph->top_locks[i].pct, 0);
		fputs("}", out);
	}
	fputs("], ", out);
}

static void json_phase(FILE *out, const struct bench_run *run, const struct bench_phase *ph)
{
	const struct detect_result *d = &ph->det;

	fputs("    {", out);
	json_kv_str(out, "mode", pc_strategy_name(ph->mode), 1);
	json_kv_str(out, "strategy", pc_strategy_name(ph->strategy), 1);
	json_kv_str(out, "reason", ph->reason, 1);
	fprintf(out, "\"cliff\": %s, ", d->cliff ? "true" : "false");
	json_kv_str(out, "verdict", ph->verdict, 1);
	fprintf(out, "\"interrupted\": %s, ", ph->interrupted ? "true" : "false");
	fprintf(out, "\"cold\": %s, ", ph->cold_ok ? "true" : "false");
	json_kv_num(out, "cached_before_bytes", (double)ph->cached_before, 1);
	json_kv_num(out, "error", ph->error, 1);
	json_kv_num(out, "bytes", (double)ph->bytes, 1);
	json_kv_num(out, "seconds", ph->secs, 1);
	json_kv_num(out, "gbps_avg", ph->gbps_avg, 1);
	json_kv_num(out, "gbps_median", ph->gbps_median, 1);
	json_kv_num(out, "gbps_min", ph->gbps_min, 1);
	json_kv_num(out, "gbps_before_cache_full", d->before_gbps, 1);
	json_kv_num(out, "gbps_after_cache_full", d->after_gbps, 1);
	json_kv_num(out, "gbps_min_after_cache_full", d->after_min, 1);
	json_kv_num(out, "cache_full_after_gib", d->at_gib, 1);
	json_kv_num(out, "reclaim_pages_s_after_full", d->reclaim_rate, 1);
	json_kv_num(out, "ratio_to_own_before", d->vs_own, 1);
	json_kv_num(out, "ratio_to_best", d->vs_best, 1);
	fprintf(out, "\"growth_drop\": %s, ", d->growth_drop ? "true" : "false");
	json_kv_num(out, "cpu_s_per_gib_process", ph->cpu_proc_per_gib, 1);
	json_kv_num(out, "cpu_s_per_gib_system", ph->cpu_sys_per_gib, 1);
	json_kv_num(out, "cpu_s_per_gib_kswapd", ph->cpu_kswapd_per_gib, 1);
	json_kv_num(out, "peak_page_cache_bytes", ph->peak_cache, 1);
	json_kv_num(out, "page_cache_at_start_bytes", ph->cache_start, 1);
	json_kv_num(out, "cache_limit_bytes", d->limit, 1);
	json_kv_num(out, "pages_reclaimed", ph->pages_reclaimed, 1);
	json_kv_num(out, "fdatasync_seconds", run->job.rw == BENCH_WRITE ? ph->sync_secs : NAN, 1);
	json_kv_num(out, "peak_dirty_bytes", ph->peak_dirty, 1);
	json_kv_num(out, "peak_writeback_bytes", ph->peak_writeback, 1);
	json_kv_num(out, "stack_throttled_pct", ph->throttled_pct, 1);
	json_kv_num(out, "stack_reclaim_wait_pct", ph->reclaim_wait_pct, 1);
	json_kv_num(out, "stack_reclaim_pct", ph->reclaim_pct, 1);
	json_traced(out, ph);
	fputs("\"intervals\": [\n", out);
	for (size_t i = 0; i < ph->nrows; i++) {
		fputs("      ", out);
		json_row(out, run, &rows_of(run, ph)[i]);
		fputs(i + 1 < ph->nrows ? ",\n" : "\n", out);
	}
	fputs("    ]}", out);
}

static void json_job(FILE *out, const struct bench_run *run)
{
	const struct bench_job *j = &run->job;

	fputs("  \"job\": {\"directories\": [", out);
	for (unsigned int d = 0; d < j->ndirs; d++) {
		json_str(out, j->dirs[d]);
		fputs(d + 1 < j->ndirs ? ", " : "], ", out);
	}
	json_kv_str(out, "rw", j->rw == BENCH_WRITE ? "write" : "read", 1);
	fprintf(out, "\"end_fsync\": %s, ", j->rw == BENCH_WRITE ? "true" : "false");
	json_kv_num(out, "numjobs", j->numjobs, 1);
	json_kv_num(out, "threads", run->nfiles, 1);
	json_kv_num(out, "size", (double)j->size, 1);
	json_kv_num(out, "bs", (double)j->bs, 1);
	json_kv_str(out, "ioengine", engine_name(j->engine), 1);
	json_kv_num(out, "iodepth", j->iodepth, 1);
	json_kv_num(out, "runtime", j->runtime, 1);
	fprintf(out, "\"time_based\": %s, ", j->time_based ? "true" : "false");
	json_kv_str(out, "api", j->api == BENCH_COPY ? "copy" : "zerocopy", 1);
	json_kv_num(out, "mem_align", (double)j->mem_align, 1);
	json_kv_num(out, "interval", j->interval, 1);
	json_kv_num(out, "mem_limit", j->mem_limit ? (double)j->mem_limit : NAN, 1);
	json_kv_str(out, "memory_cgroup", run->cgroup_dir, 1);
	json_kv_num(out, "cgroup_version", run->cgroup_dir[0] ? run->cgroup_version : NAN, 1);
	json_kv_num(out, "testbed_bytes", j->testbed ? (double)j->testbed : NAN, 1);
	json_kv_str(out, "testbed", run->testbed_desc, 1);
	json_kv_str(out, "page_cache_counted_as", run->cache_desc, 1);
	json_kv_str(out, "numa", run->numa_desc, 1);
	fprintf(out, "\"kernel_tracing\": %s, ", run->trace_why[0] ? "false" : "true");
	json_kv_str(out, "kernel_tracing_why_not", run->trace_why, 0);
	fputs("},\n", out);
}

void bench_report_json(const struct bench_run *run, FILE *out)
{
	fputs("{\n", out);
	json_job(out, run);
	fputs("  ", out);
	json_kv_str(out, "best_mode", run->best >= 0 ?
		    pc_strategy_name(run->phases[run->best].mode) : "", 1);
	json_kv_num(out, "best_gbps", run->best_gbps, 0);
	fputs(",\n  \"interrupted\": ", out);
	fputs(run->interrupted ? "true" : "false", out);
	fputs(",\n  \"verdict\": [", out);
	for (unsigned int m = 0, first = 1; m < run->job.nmodes; m++) {
		if (!run->phases[m].ran)
			continue;
		fputs(first ? "" : ", ", out);
		json_str(out, run->phases[m].verdict);
		first = 0;
	}
	fputs("],\n  \"notes\": [", out);
	for (unsigned int i = 0; i < run->nnotes; i++) {
		json_str(out, run->notes[i]);
		fputs(i + 1 < run->nnotes ? ", " : "", out);
	}
	fputs("],\n  \"modes\": [\n", out);
	for (unsigned int m = 0, first = 1; m < run->job.nmodes; m++) {
		if (!run->phases[m].ran)
			continue;
		fputs(first ? "" : ",\n", out);
		json_phase(out, run, &run->phases[m]);
		first = 0;
	}
	fputs("\n  ]\n}\n", out);
}

/* CSV fields with a comma or quote are quoted. */
static void csv_str(FILE *out, const char *s)
{
	fputc('"', out);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', out);
		fputc(*s, out);
	}
	fputc('"', out);
}

/* A CSV figure with @prec decimals: empty when unknown. */
static void csv_num(FILE *out, int prec, double v, int comma)
{
	if (known(v))
		fprintf(out, "%.*f", prec, v);
	if (comma)
		fputc(',', out);
}

void bench_report_csv(const struct bench_run *run, FILE *out)
{
	fputs("mode,strategy,cliff,bytes,seconds,gbps_avg,gbps_median,gbps_min,"
	      "gbps_before,gbps_after,cache_full_gib,reclaim_pages_s,ratio_to_best,"
	      "cpu_s_per_gib_process,cpu_s_per_gib_system,cpu_s_per_gib_kswapd,"
	      "peak_cache_bytes,pages_reclaimed,mem_align,fdatasync_seconds,"
	      "peak_dirty_bytes,peak_writeback_bytes,stack_throttled_pct,stack_reclaim_wait_pct,"
	      "stack_reclaim_pct,verdict\n", out);
	for (unsigned int m = 0; m < run->job.nmodes; m++) {
		const struct bench_phase *ph = &run->phases[m];
		const struct detect_result *d = &ph->det;

		if (!ph->ran)
			continue;
		const double f4[] = { ph->gbps_avg, ph->gbps_median, ph->gbps_min,
				      d->before_gbps, d->after_gbps, d->at_gib };
		const double g4[] = { d->vs_best, ph->cpu_proc_per_gib, ph->cpu_sys_per_gib,
				      ph->cpu_kswapd_per_gib };

		fprintf(out, "%s,%s,%d,%llu,", pc_strategy_name(ph->mode),
			pc_strategy_name(ph->strategy), d->cliff, (unsigned long long)ph->bytes);
		csv_num(out, 3, ph->secs, 1);
		for (size_t i = 0; i < sizeof(f4) / sizeof(f4[0]); i++)
			csv_num(out, 4, f4[i], 1);
		csv_num(out, 0, d->reclaim_rate, 1);
		for (size_t i = 0; i < sizeof(g4) / sizeof(g4[0]); i++)
			csv_num(out, 4, g4[i], 1);
		csv_num(out, 0, ph->peak_cache, 1);
		csv_num(out, 0, ph->pages_reclaimed, 1);
		fprintf(out, "%llu,", (unsigned long long)run->job.mem_align);
		csv_num(out, 3, run->job.rw == BENCH_WRITE ? ph->sync_secs : NAN, 1);
		csv_num(out, 0, ph->peak_dirty, 1);
		csv_num(out, 0, ph->peak_writeback, 1);
		csv_num(out, 1, ph->throttled_pct, 1);
		csv_num(out, 1, ph->reclaim_wait_pct, 1);
		csv_num(out, 1, ph->reclaim_pct, 1);
		csv_str(out, ph->verdict);
		fputc('\n', out);
	}
}

void bench_timeline_csv(const struct bench_run *run, FILE *out)
{
	fputs("mode,t,dt,bytes,gib,gbps,cpu_usr_pct,cpu_sys_pct,cpu_iowait_pct,cpu_irq_pct,"
	      "cpu_softirq_pct,cpu_idle_pct,process_cpu_s,system_cpu_s,kswapd_cpu_s,"
	      "cache_bytes,cache_limit,reclaim_pages_s,pgscan_direct_s,pgsteal_direct_s,"
	      "pgscan_kswapd_s,pgsteal_kswapd_s,allocstall_s,cg_pgscan_s,cg_pgsteal_s,"
	      "psi_some_pct,psi_full_pct,dstate,dirty_bytes,writeback_bytes,stack_throttled_pct,"
	      "stack_reclaim_wait_pct,stack_reclaim_pct,flushing,direct_reclaim_pct,memcg_reclaim_pct,"
	      "lock_wait_pct,top_lock,top_lock_pct,kswapd_busy_pct,dirty_throttle_pct", out);
	for (unsigned int d = 0; d < run->job.ndirs; d++)
		fprintf(out, ",dir%u_gbps", d);
	fputc('\n', out);
	for (size_t i = 0; i < run->nrows; i++) {
		const struct bench_row *r = &run->rows[i];

		const double pct[] = { r->usr, r->sys, r->iowait, r->irq, r->softirq, r->idle };
		const double cpu[] = { r->proc_cpu, r->sys_cpu, r->kswapd_cpu };
		const double rate[] = { r->reclaim, r->pgscan_direct, r->pgsteal_direct,
					r->pgscan_kswapd, r->pgsteal_kswapd, r->allocstall,
					r->cg_pgscan, r->cg_pgsteal };

		fprintf(out, "%s,", pc_strategy_name(run->job.modes[r->mode]));
		csv_num(out, 3, r->t, 1);
		csv_num(out, 3, r->dt, 1);
		fprintf(out, "%llu,", (unsigned long long)r->bytes);
		csv_num(out, 4, r->bytes_total / GIB, 1);
		csv_num(out, 4, r->gbps, 1);
		for (size_t k = 0; k < sizeof(pct) / sizeof(pct[0]); k++)
			csv_num(out, 2, pct[k], 1);
		for (size_t k = 0; k < sizeof(cpu) / sizeof(cpu[0]); k++)
			csv_num(out, 4, cpu[k], 1);
		csv_num(out, 0, r->cache, 1);
		csv_num(out, 0, r->cache_limit, 1);
		for (size_t k = 0; k < sizeof(rate) / sizeof(rate[0]); k++)
			csv_num(out, 1, rate[k], 1);
		csv_num(out, 2, r->psi_some, 1);
		csv_num(out, 2, r->psi_full, 1);
		fprintf(out, "%u,", r->dstate);
		csv_num(out, 0, r->dirty, 1);
		csv_num(out, 0, r->writeback, 1);
		csv_num(out, 1, r->throttled_pct, 1);
		csv_num(out, 1, r->reclaim_wait_pct, 1);
		csv_num(out, 1, r->reclaim_pct, 1);
		fprintf(out, "%u,", r->flushing);
		csv_num(out, 2, r->direct_reclaim_pct, 1);
		csv_num(out, 2, r->memcg_reclaim_pct, 1);
		csv_num(out, 2, r->lock_wait_pct, 1);
		csv_str(out, r->top_lock);
		fputc(',', out);
		csv_num(out, 2, r->top_lock_pct, 1);
		csv_num(out, 2, r->kswapd_busy_pct, 1);
		csv_num(out, 2, r->dirty_throttle_pct, 0);
		for (unsigned int d = 0; d < run->job.ndirs; d++) {
			fputc(',', out);
			csv_num(out, 4, r->dir_gbps[d], 0);
		}
		fputc('\n', out);
	}
}
