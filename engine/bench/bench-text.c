// SPDX-License-Identifier: MIT
/*
 * pagecliff bench's text report of one host's run, analysed by
 * bench-analyse.c: the job, a line of figures per mode, the kernel's time
 * and the verdict in words.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bench.h"

/* @v with @prec decimals into @buf, or "unknown". */
static const char *fig(char *buf, size_t len, int prec, double v)
{
	if (!bench_known(v))
		return "unknown";
	snprintf(buf, len, "%.*f", prec, v);
	return buf;
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
	if (!bench_known(v))
		return "unknown";
	snprintf(buf, len, "%.1f%%", v);
	return buf;
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
		bench_engine_name(j->engine));
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

/* The gap to the best mode as "28%", or "-" when there is none. */
static const char *gap_str(char *buf, size_t len, const struct verdict *v)
{
	if (!v->gap)
		return "-";
	snprintf(buf, len, "%.0f%%", v->gap_pct);
	return buf;
}

/* One phase's line of the text table; unknown figures say so. */
static void text_phase(const struct bench_phase *ph, FILE *out)
{
	char f[8][32], cpu[3 * 32 + 3], a[32], g[16];

	snprintf(cpu, sizeof(cpu), "%s/%s/%s",
		 fig(f[5], sizeof(f[5]), 2, ph->cpu_proc_per_gib),
		 fig(f[6], sizeof(f[6]), 2, ph->cpu_sys_per_gib),
		 fig(f[7], sizeof(f[7]), 2, ph->cpu_kswapd_per_gib));
	fprintf(out, "%-10s %-10s %7s %7s %7s %7s %7s %21s %10s %11s %-5s %s\n",
		pc_strategy_name(ph->mode), pc_strategy_name(ph->strategy),
		fig(f[0], sizeof(f[0]), 2, ph->gbps_avg),
		fig(f[1], sizeof(f[1]), 2, ph->gbps_median),
		fig(f[2], sizeof(f[2]), 2, ph->gbps_min),
		fig(f[3], sizeof(f[3]), 2, ph->det.before_gbps),
		fig(f[4], sizeof(f[4]), 2, ph->det.after_gbps), cpu,
		bench_known(ph->peak_cache) ? bench_size(ph->peak_cache, a, sizeof(a)) : "unknown",
		fig(f[5], sizeof(f[5]), 0, ph->pages_reclaimed),
		ph->v.cliff ? "yes" : "no", gap_str(g, sizeof(g), &ph->v));
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
			any |= bench_known(v[k]);
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

/* The header of the kernel work's table: its columns' widths into @width. */
static void work_header(const struct bench_run *run, FILE *out, int *width)
{
	fprintf(out, "\nkernel work per GiB %s, by the %s: pages added to and deleted from the "
		"page cache (by kswapd: for every process),\nfadvise calls (DONTNEED among them), "
		"drain work queued (one a CPU), IPIs to other CPUs, contended-lock waits:\n%-10s",
		run->job.rw == BENCH_WRITE ? "written" : "read", workers(run), "mode");
	for (unsigned int i = 0; i < BENCH_NWORK; i++) {
		int len = (int)strlen(bench_work_figs[i].head);

		width[i] = len > 8 ? len : 8;
		fprintf(out, " %*s", width[i], bench_work_figs[i].head);
	}
	fputc('\n', out);
}

/* The kernel work per GiB per mode: a line for each mode that counted it. */
static void text_work(const struct bench_run *run, FILE *out)
{
	int header = 0, width[BENCH_NWORK];
	char b[32];

	for (unsigned int m = 0; m < run->job.nmodes; m++) {
		const struct bench_phase *ph = &run->phases[m];
		int any = 0;

		for (unsigned int i = 0; i < BENCH_NWORK; i++)
			any |= bench_known(ph->work[i]);
		if (!ph->ran || !any)
			continue;
		if (!header++)
			work_header(run, out, width);
		fprintf(out, "%-10s", pc_strategy_name(ph->mode));
		for (unsigned int i = 0; i < BENCH_NWORK; i++)
			fprintf(out, " %*s", width[i],
				fig(b, sizeof(b), bench_work_figs[i].prec, ph->work[i]));
		fputc('\n', out);
	}
}

/* One host's report: the whole report of plain bench, its summary first. */
void bench_report_text(const struct bench_run *run, FILE *out)
{
	char a[32];

	if (run->summary[0])
		fprintf(out, "%s\n\n", run->summary);
	text_job(run, out);
	fprintf(out, "\n%-10s %-10s %7s %7s %7s %7s %7s %21s %10s %11s %-5s %s\n", "mode",
		"strategy", "avg", "median", "min", "before", "after",
		"CPU s/GiB proc/sys/ksw", "peak cache", "reclaimed", "cliff", "gap");
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
	text_work(run, out);
	fprintf(out, "\nverdict:\n");
	for (unsigned int m = 0; m < run->job.nmodes; m++) {
		if (!run->phases[m].ran)
			continue;
		fprintf(out, "  %s\n", run->phases[m].verdict);
		if (run->phases[m].gap[0])
			fprintf(out, "  %s\n", run->phases[m].gap);
	}
	for (unsigned int i = 0; i < run->nnotes; i++)
		fprintf(out, "note: %s\n", run->notes[i]);
	if (run->interrupted)
		fprintf(out, "interrupted: the figures cover what was measured until then\n");
}
