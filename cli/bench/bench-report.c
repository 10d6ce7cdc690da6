// SPDX-License-Identifier: MIT
/*
 * pagecliff bench's report of a run analysed by bench-analyse.c: text, JSON
 * or CSV, plus the timeline CSV with every interval.
 */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench.h"
#include "json.h"

#define GIB (1024.0 * 1024 * 1024)

static const struct bench_row *rows_of(const struct bench_run *run,
				       const struct bench_phase *ph)
{
	return run->rows + ph->first_row;
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
		known(ph->peak_cache) ? bench_size(ph->peak_cache, a, sizeof(a)) : "unknown",
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

static void text_cluster(const struct bench_run *run, FILE *out);

/* One host's report: the whole report of plain bench, its summary first. */
static void text_run(const struct bench_run *run, FILE *out)
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

void bench_report_text(const struct bench_run *run, FILE *out)
{
	if (run->cluster)
		text_cluster(run, out);
	else
		text_run(run, out);
}

/*
 * The columns of a timeline row, in the order both the JSON intervals and
 * the timeline CSV give them: one list, so the two and the CSV's header
 * cannot drift apart.  A NULL name leaves the column out of that format.
 */
enum col_kind { COL_NUM, COL_UINT, COL_U64, COL_STR, COL_DIRS };

struct row_col {
	const char *csv, *json;		/* the CSV header's name, the JSON key */
	enum col_kind kind;
	size_t off;			/* of the field in struct bench_row */
	int prec;			/* CSV decimals (COL_NUM) */
	double div;			/* the field is divided by it, 0 for none */
};

#define ROW_OFF(f) offsetof(struct bench_row, f)
#define NUM(csv, json, f, prec) { csv, json, COL_NUM, ROW_OFF(f), prec, 0 }
#define UINT(csv, json, f) { csv, json, COL_UINT, ROW_OFF(f), 0, 0 }
#define SAME(name, f, prec) NUM(name, name, f, prec)	/* one name in both */

static const struct row_col row_cols[] = {
	SAME("t", t, 3),
	SAME("dt", dt, 3),
	{ "bytes", "bytes", COL_U64, ROW_OFF(bytes), 0, 0 },
	{ NULL, "bytes_total", COL_U64, ROW_OFF(bytes_total), 0, 0 },
	{ "gib", NULL, COL_U64, ROW_OFF(bytes_total), 4, GIB },
	SAME("gbps", gbps, 4),
	{ NULL, "dir_gbps", COL_DIRS, ROW_OFF(dir_gbps), 4, 0 },	/* CSV: at the end */
	SAME("cpu_usr_pct", d.usr_pct, 2),
	SAME("cpu_sys_pct", d.sys_pct, 2),
	SAME("cpu_iowait_pct", d.iowait_pct, 2),
	SAME("cpu_irq_pct", d.irq_pct, 2),
	SAME("cpu_softirq_pct", d.softirq_pct, 2),
	SAME("cpu_idle_pct", d.idle_pct, 2),
	SAME("process_cpu_s", d.proc_cpu_s, 4),
	SAME("system_cpu_s", sys_cpu, 4),
	SAME("kswapd_cpu_s", d.kswapd_cpu_s, 4),
	NUM("cache_bytes", "page_cache_bytes", cache, 0),
	NUM("cache_limit", "cache_limit_bytes", cache_limit, 0),
	SAME("reclaim_pages_s", reclaim, 1),
	SAME("pgscan_direct_s", d.pgscan_direct, 1),
	SAME("pgsteal_direct_s", d.pgsteal_direct, 1),
	SAME("pgscan_kswapd_s", d.pgscan_kswapd, 1),
	SAME("pgsteal_kswapd_s", d.pgsteal_kswapd, 1),
	SAME("allocstall_s", d.allocstall, 1),
	NUM("cg_pgscan_s", "cgroup_pgscan_s", d.cg_pgscan, 1),
	NUM("cg_pgsteal_s", "cgroup_pgsteal_s", d.cg_pgsteal, 1),
	/* microseconds stalled per second: 1e4 of them are 1% */
	{ "psi_some_pct", "psi_some_pct", COL_NUM, ROW_OFF(d.psi_some_us), 2, 1e4 },
	{ "psi_full_pct", "psi_full_pct", COL_NUM, ROW_OFF(d.psi_full_us), 2, 1e4 },
	UINT("dstate", "threads_in_d_state", dstate),
	SAME("dirty_bytes", dirty, 0),
	SAME("writeback_bytes", writeback, 0),
	SAME("stack_throttled_pct", throttled_pct, 1),
	SAME("stack_reclaim_wait_pct", reclaim_wait_pct, 1),
	SAME("stack_reclaim_pct", reclaim_pct, 1),
	UINT("flushing", "threads_flushing", flushing),
	SAME("direct_reclaim_pct", direct_reclaim_pct, 2),
	SAME("memcg_reclaim_pct", memcg_reclaim_pct, 2),
	SAME("lock_wait_pct", lock_wait_pct, 2),
	{ "top_lock", "top_lock", COL_STR, ROW_OFF(top_lock), 0, 0 },
	SAME("top_lock_pct", top_lock_pct, 2),
	SAME("kswapd_busy_pct", kswapd_busy_pct, 2),
	SAME("dirty_throttle_pct", dirty_throttle_pct, 2),
};

#define N_ROW_COLS (sizeof(row_cols) / sizeof(row_cols[0]))

/* Column @c of @r as a number (COL_NUM, COL_UINT, COL_U64), divided. */
static double col_value(const struct bench_row *r, const struct row_col *c)
{
	const char *p = (const char *)r + c->off;
	double v;

	if (c->kind == COL_UINT)
		v = *(const unsigned int *)(const void *)p;
	else if (c->kind == COL_U64)
		v = (double)*(const uint64_t *)(const void *)p;
	else
		v = *(const double *)(const void *)p;
	return c->div ? v / c->div : v;
}

static const char *col_text(const struct bench_row *r, const struct row_col *c)
{
	return (const char *)r + c->off;
}

/* JSON, with the common writer: unknown figures (NAN) are null. */
static void json_row(struct json *j, const struct bench_run *run, const struct bench_row *r)
{
	json_object(j, NULL, 0);
	for (const struct row_col *c = row_cols; c < row_cols + N_ROW_COLS; c++) {
		if (!c->json)
			continue;
		if (c->kind == COL_STR) {
			json_string(j, c->json, col_text(r, c));
		} else if (c->kind == COL_DIRS) {
			json_array(j, c->json, 0);
			for (unsigned int d = 0; d < run->job.ndirs; d++)
				json_number(j, NULL, r->dir_gbps[d]);
			json_end(j);
		} else {
			json_number(j, c->json, col_value(r, c));
		}
	}
	json_end(j);
}

/* The phase's kernel-event shares (null when not traced) and top locks. */
static void json_traced(struct json *j, const struct bench_phase *ph)
{
	json_number(j, "direct_reclaim_pct", ph->direct_reclaim_pct);
	json_number(j, "memcg_reclaim_pct", ph->memcg_reclaim_pct);
	json_number(j, "lock_wait_pct", ph->lock_wait_pct);
	json_number(j, "kswapd_busy_pct", ph->kswapd_busy_pct);
	json_number(j, "dirty_throttle_pct", ph->dirty_throttle_pct);
	json_number(j, "direct_reclaim_pct_after_cache_full", ph->det.direct_pct);
	json_number(j, "memcg_reclaim_pct_after_cache_full", ph->det.memcg_pct);
	json_number(j, "lock_wait_pct_after_cache_full", ph->det.lock_pct);
	json_array(j, "top_locks", 0);
	for (unsigned int i = 0; i < ph->ntop_locks; i++) {
		json_object(j, NULL, 0);
		json_string(j, "lock", ph->top_locks[i].name);
		json_number(j, "pct", ph->top_locks[i].pct);
		json_end(j);
	}
	json_end(j);
}

/* The phase's figures after the cliff detector's. */
static void json_figures(struct json *j, const struct bench_run *run,
			 const struct bench_phase *ph)
{
	const struct detect_result *d = &ph->det;
	const struct { const char *key; double v; } f[] = {
		{ "gbps_avg", ph->gbps_avg }, { "gbps_median", ph->gbps_median },
		{ "gbps_min", ph->gbps_min }, { "gbps_before_cache_full", d->before_gbps },
		{ "gbps_after_cache_full", d->after_gbps },
		{ "gbps_min_after_cache_full", d->after_min },
		{ "cache_full_after_gib", d->at_gib },
		{ "reclaim_pages_s_after_full", d->reclaim_rate },
		{ "ratio_to_own_before", d->vs_own }, { "ratio_to_best", d->vs_best },
	};
	const struct { const char *key; double v; } g[] = {
		{ "cpu_s_per_gib_process", ph->cpu_proc_per_gib },
		{ "cpu_s_per_gib_system", ph->cpu_sys_per_gib },
		{ "cpu_s_per_gib_kswapd", ph->cpu_kswapd_per_gib },
		{ "peak_page_cache_bytes", ph->peak_cache },
		{ "page_cache_at_start_bytes", ph->cache_start },
		{ "cache_limit_bytes", d->limit }, { "pages_reclaimed", ph->pages_reclaimed },
		{ "fdatasync_seconds", run->job.rw == BENCH_WRITE ? ph->sync_secs : NAN },
		{ "peak_dirty_bytes", ph->peak_dirty }, { "peak_writeback_bytes", ph->peak_writeback },
		{ "stack_throttled_pct", ph->throttled_pct },
		{ "stack_reclaim_wait_pct", ph->reclaim_wait_pct },
		{ "stack_reclaim_pct", ph->reclaim_pct },
	};

	for (size_t k = 0; k < sizeof(f) / sizeof(f[0]); k++)
		json_number(j, f[k].key, f[k].v);
	json_bool(j, "growth_drop", d->growth_drop);
	for (size_t k = 0; k < sizeof(g) / sizeof(g[0]); k++)
		json_number(j, g[k].key, g[k].v);
}

/* The verdict's kind, causes and figures: the cliff and the gap apart. */
static void json_verdict(struct json *j, const struct verdict *v)
{
	json_string(j, "verdict_kind", verdict_kind_name(v->kind));
	json_number(j, "fall_pct", v->fall_pct);
	json_string(j, "cliff_cause", verdict_cause_name(v->fall_cause));
	json_number(j, "cliff_cause_pct", v->fall_cause_pct);
	json_bool(j, "cause_inferred", v->fall_cause == CAUSE_RECLAIM_COUNTED);
	json_bool(j, "first_touch_growth", !!(v->reasons & VR_FIRST_TOUCH));
	json_bool(j, "gap", v->gap);
	json_number(j, "gap_pct", v->gap_pct);
	json_string(j, "gap_to", v->gap ? v->best_name : "");
	json_string(j, "gap_cause", verdict_cause_name(v->gap_cause));
	json_number(j, "gap_cause_pct", v->gap_cause_pct);
}

static void json_phase(struct json *j, const struct bench_run *run, const struct bench_phase *ph)
{
	json_object(j, NULL, 0);
	json_string(j, "mode", pc_strategy_name(ph->mode));
	json_string(j, "strategy", pc_strategy_name(ph->strategy));
	json_string(j, "reason", ph->reason);
	json_bool(j, "cliff", ph->v.cliff);
	json_string(j, "verdict", ph->verdict);
	json_verdict(j, &ph->v);
	json_string(j, "gap_verdict", ph->gap);
	json_bool(j, "interrupted", ph->interrupted);
	json_bool(j, "cold", ph->cold_ok);
	json_number(j, "cached_before_bytes", (double)ph->cached_before);
	json_number(j, "error", ph->error);
	json_number(j, "bytes", (double)ph->bytes);
	json_number(j, "seconds", ph->secs);
	json_figures(j, run, ph);
	json_traced(j, ph);
	json_array(j, "intervals", 1);
	for (size_t i = 0; i < ph->nrows; i++)
		json_row(j, run, &rows_of(run, ph)[i]);
	json_end(j);
	json_end(j);
}

static void json_job(struct json *j, const struct bench_run *run)
{
	const struct bench_job *jb = &run->job;

	json_object(j, "job", 0);
	json_array(j, "directories", 0);
	for (unsigned int d = 0; d < jb->ndirs; d++)
		json_string(j, NULL, jb->dirs[d]);
	json_end(j);
	json_string(j, "rw", jb->rw == BENCH_WRITE ? "write" : "read");
	json_bool(j, "end_fsync", jb->rw == BENCH_WRITE);
	json_number(j, "numjobs", jb->numjobs);
	json_number(j, "threads", run->nfiles);
	json_number(j, "size", (double)jb->size);
	json_number(j, "bs", (double)jb->bs);
	json_string(j, "ioengine", engine_name(jb->engine));
	json_number(j, "iodepth", jb->iodepth);
	json_number(j, "runtime", jb->runtime);
	json_bool(j, "time_based", jb->time_based);
	json_string(j, "api", jb->api == BENCH_COPY ? "copy" : "zerocopy");
	json_number(j, "mem_align", (double)jb->mem_align);
	json_number(j, "interval", jb->interval);
	json_number(j, "mem_limit", jb->mem_limit ? (double)jb->mem_limit : NAN);
	json_string(j, "memory_cgroup", run->cgroup_dir);
	json_number(j, "cgroup_version", run->cgroup_dir[0] ? run->cgroup_version : NAN);
	json_number(j, "testbed_bytes", jb->testbed ? (double)jb->testbed : NAN);
	json_string(j, "testbed", run->testbed_desc);
	json_string(j, "page_cache_counted_as", run->cache_desc);
	json_string(j, "numa", run->numa_desc);
	json_bool(j, "kernel_tracing", !run->trace_why[0]);
	json_string(j, "kernel_tracing_why_not", run->trace_why);
	json_end(j);
}

/* The members of one host's report (the whole report of plain bench). */
static void json_run(struct json *j, const struct bench_run *run)
{
	json_job(j, run);
	json_string(j, "best_mode", run->best >= 0 ? pc_strategy_name(run->phases[run->best].mode) : "");
	json_number(j, "best_gbps", run->best_gbps);
	json_bool(j, "interrupted", run->interrupted);
	json_string(j, "summary", run->summary);
	json_number(j, "cpus", run->cpus);
	json_array(j, "verdict", 0);
	for (unsigned int m = 0; m < run->job.nmodes; m++)
		if (run->phases[m].ran)
			json_string(j, NULL, run->phases[m].verdict);
	json_end(j);
	json_array(j, "notes", 0);
	for (unsigned int i = 0; i < run->nnotes; i++)
		json_string(j, NULL, run->notes[i]);
	json_end(j);
	json_array(j, "modes", 1);
	for (unsigned int m = 0; m < run->job.nmodes; m++)
		if (run->phases[m].ran)
			json_phase(j, run, &run->phases[m]);
	json_end(j);
}

static void json_cluster(struct json *j, const struct bench_run *run);

void bench_report_json(const struct bench_run *run, FILE *out)
{
	struct json j;

	json_init(&j, out);
	json_object(&j, NULL, 1);
	json_run(&j, run);
	if (run->cluster)
		json_cluster(&j, run);
	json_end(&j);
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

static void csv_cluster(const struct bench_run *run, FILE *out);
/* @prefix: across hosts, "HOST,RANK," before each line; else NULL. */
static void csv_phases(const struct bench_run *run, const char *prefix, FILE *out);

void bench_report_csv(const struct bench_run *run, FILE *out)
{
	if (run->cluster)
		fputs("host,rank,", out);
	fputs("mode,strategy,cliff,bytes,seconds,gbps_avg,gbps_median,gbps_min,"
	      "gbps_before,gbps_after,cache_full_gib,reclaim_pages_s,ratio_to_best,"
	      "cpu_s_per_gib_process,cpu_s_per_gib_system,cpu_s_per_gib_kswapd,"
	      "peak_cache_bytes,pages_reclaimed,mem_align,fdatasync_seconds,"
	      "peak_dirty_bytes,peak_writeback_bytes,stack_throttled_pct,stack_reclaim_wait_pct,"
	      "stack_reclaim_pct,verdict,gap_pct,gap_verdict\n", out);
	if (run->cluster)
		csv_cluster(run, out);
	else
		csv_phases(run, NULL, out);
}

static void csv_phases(const struct bench_run *run, const char *prefix, FILE *out)
{
	for (unsigned int m = 0; m < run->job.nmodes; m++) {
		const struct bench_phase *ph = &run->phases[m];
		const struct detect_result *d = &ph->det;

		if (!ph->ran)
			continue;
		if (prefix)
			fputs(prefix, out);
		const double f4[] = { ph->gbps_avg, ph->gbps_median, ph->gbps_min,
				      d->before_gbps, d->after_gbps, d->at_gib };
		const double g4[] = { d->vs_best, ph->cpu_proc_per_gib, ph->cpu_sys_per_gib,
				      ph->cpu_kswapd_per_gib };

		fprintf(out, "%s,%s,%d,%llu,", pc_strategy_name(ph->mode),
			pc_strategy_name(ph->strategy), ph->v.cliff, (unsigned long long)ph->bytes);
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
		fputc(',', out);
		csv_num(out, 1, ph->v.gap_pct, 1);
		csv_str(out, ph->gap);
		fputc('\n', out);
	}
}

static void csv_rows(const struct bench_run *run, const struct bench_row *rows, size_t n,
		     const char *prefix, FILE *out);
static void timeline_cluster(const struct bench_run *run, FILE *out);

void bench_timeline_csv(const struct bench_run *run, FILE *out)
{
	if (run->cluster)
		fputs("host,rank,", out);
	fputs("mode", out);
	for (const struct row_col *c = row_cols; c < row_cols + N_ROW_COLS; c++)
		if (c->csv)
			fprintf(out, ",%s", c->csv);
	for (unsigned int d = 0; d < run->job.ndirs; d++)
		fprintf(out, ",dir%u_gbps", d);
	fputc('\n', out);
	if (run->cluster)
		timeline_cluster(run, out);
	else
		csv_rows(run, run->rows, run->nrows, NULL, out);
}

/* One cell of column @c (not COL_DIRS), after its comma. */
static void csv_cell(FILE *out, const struct bench_row *r, const struct row_col *c)
{
	const void *p = (const char *)r + c->off;

	fputc(',', out);
	if (c->kind == COL_STR)
		csv_str(out, col_text(r, c));
	else if (c->kind == COL_NUM || c->div)
		csv_num(out, c->prec, col_value(r, c), 0);
	else if (c->kind == COL_U64)
		fprintf(out, "%llu", (unsigned long long)*(const uint64_t *)p);
	else
		fprintf(out, "%u", *(const unsigned int *)p);
}

static void csv_rows(const struct bench_run *run, const struct bench_row *rows, size_t n,
		     const char *prefix, FILE *out)
{
	for (size_t i = 0; i < n; i++) {
		const struct bench_row *r = &rows[i];

		if (prefix)
			fputs(prefix, out);
		fputs(pc_strategy_name(run->job.modes[r->mode]), out);
		for (const struct row_col *c = row_cols; c < row_cols + N_ROW_COLS; c++)
			if (c->csv)
				csv_cell(out, r, c);
		for (unsigned int d = 0; d < run->job.ndirs; d++) {
			fputc(',', out);
			csv_num(out, 4, r->dir_gbps[d], 0);
		}
		fputc('\n', out);
	}
}

/*
 * Across hosts (pagecliff-mpi, rank 0): the total of each interval is the
 * sum of the ranks' rows of that interval (the ranks start each phase
 * together and sample at the same interval), each host keeps its own
 * timeline and verdict, and a line per mode says which hosts fell.
 */
static const struct bench_phase *host_phase(const struct bench_host *h, unsigned int m)
{
	return h->run && h->run->phases[m].ran ? &h->run->phases[m] : NULL;
}

/* The phase's total per interval (malloc'ed, *ret_n rows) or NULL. */
static struct bench_row *total_rows(const struct bench_cluster *c, unsigned int m, size_t *ret_n)
{
	size_t n = 0;
	struct bench_row *rows;

	for (unsigned int h = 0; h < c->nhosts; h++) {
		const struct bench_phase *ph = host_phase(&c->hosts[h], m);

		if (ph && ph->nrows > n)
			n = ph->nrows;
	}
	*ret_n = 0;
	rows = n ? calloc(n, sizeof(*rows)) : NULL;
	if (!rows)
		return NULL;
	for (unsigned int h = 0; h < c->nhosts; h++) {
		const struct bench_phase *ph = host_phase(&c->hosts[h], m);

		for (size_t i = 0; ph && i < ph->nrows; i++)
			bench_row_add(&rows[i], &c->hosts[h].run->rows[ph->first_row + i]);
	}
	/* a rank done early adds nothing later: its bytes so far still count */
	for (size_t i = 1; i < n; i++)
		rows[i].bytes_total = rows[i - 1].bytes_total + rows[i].bytes;
	*ret_n = n;
	return rows;
}

/* Bytes and seconds of phase @m over all hosts. */
struct total {
	uint64_t bytes;
	double secs, gbps;
	unsigned int ran, fell;
};

static struct total phase_total(const struct bench_cluster *c, unsigned int m)
{
	struct total t = { 0 };

	for (unsigned int h = 0; h < c->nhosts; h++) {
		const struct bench_phase *ph = host_phase(&c->hosts[h], m);

		if (!ph)
			continue;
		t.bytes += ph->bytes;
		t.secs = fmax(t.secs, ph->secs);
		t.ran++;
		t.fell += ph->v.cliff;
	}
	t.gbps = t.secs > 0 ? t.bytes / t.secs / 1e9 : NAN;
	return t;
}

/* "buffered: vm2 (rank 1) fell after 0.48 GiB, the other 2 held". */
static void say_fallen(const struct bench_cluster *c, unsigned int m, const char *mode,
		       char *buf, size_t len)
{
	struct total t = phase_total(c, m);
	size_t n = snprintf(buf, len, "%s: ", mode);

	if (!t.fell) {
		snprintf(buf + n, len - n, "no host fell (%u held)", t.ran);
		return;
	}
	for (unsigned int h = 0, k = 0; h < c->nhosts && n < len; h++) {
		const struct bench_phase *ph = host_phase(&c->hosts[h], m);

		if (ph && ph->v.cliff)
			n += snprintf(buf + n, len - n, "%s%s (rank %d) fell after %.2f GiB",
				      k++ ? ", " : "", c->hosts[h].name, c->hosts[h].rank,
				      ph->det.at_gib);
	}
	if (n < len && t.ran > t.fell)
		snprintf(buf + n, len - n, ", the other %u held", t.ran - t.fell);
}

static void text_total(const struct bench_run *run, unsigned int m, FILE *out)
{
	const struct bench_cluster *c = run->cluster;
	struct total t = phase_total(c, m);
	size_t n;
	struct bench_row *rows = total_rows(c, m, &n);
	char a[32], line[1024];

	fprintf(out, "%-10s %10s %8.2f s %7.2f GB/s; per interval, GB/s:",
		pc_strategy_name(run->job.modes[m]), bench_size(t.bytes, a, sizeof(a)),
		t.secs, t.gbps);
	for (size_t i = 0; i < n; i++)
		fprintf(out, " %.2f", rows[i].gbps);
	fputc('\n', out);
	free(rows);
	say_fallen(c, m, pc_strategy_name(run->job.modes[m]), line, sizeof(line));
	fprintf(out, "  %s\n", line);
}

static void text_cluster(const struct bench_run *run, FILE *out)
{
	const struct bench_cluster *c = run->cluster;

	fprintf(out, "ranks: %u\n", c->nhosts);
	for (unsigned int h = 0; h < c->nhosts; h++)
		if (c->hosts[h].on_host > 1)
			fprintf(out, "rank %d: %s (%u ranks on this host)\n", c->hosts[h].rank,
				c->hosts[h].name, c->hosts[h].on_host);
		else
			fprintf(out, "rank %d: %s\n", c->hosts[h].rank, c->hosts[h].name);
	fprintf(out, "\ntotal over the ranks (bytes summed per interval):\n");
	for (unsigned int m = 0; m < run->job.nmodes; m++)
		if (run->phases[m].ran)
			text_total(run, m, out);
	if (c->failure[0])
		fprintf(out, "failed: %s; every rank's phase was stopped\n", c->failure);
	for (unsigned int h = 0; h < c->nhosts; h++) {
		fprintf(out, "\n== rank %d on %s", c->hosts[h].rank, c->hosts[h].name);
		if (c->hosts[h].on_host > 1)
			fprintf(out, " (one of %u ranks on this host)", c->hosts[h].on_host);
		fprintf(out, " ==\n");
		if (c->hosts[h].why[0])
			fprintf(out, "failed: %s\n", c->hosts[h].why);
		text_run(c->hosts[h].run, out);
	}
}

static void json_cluster(struct json *j, const struct bench_run *run)
{
	const struct bench_cluster *c = run->cluster;
	char line[1024];

	json_number(j, "ranks", c->nhosts);
	json_string(j, "failure", c->failure);
	json_array(j, "fallen", 0);
	for (unsigned int m = 0; m < run->job.nmodes; m++) {
		if (!run->phases[m].ran)
			continue;
		say_fallen(c, m, pc_strategy_name(run->job.modes[m]), line, sizeof(line));
		json_string(j, NULL, line);
	}
	json_end(j);
	json_array(j, "total", 1);
	for (unsigned int m = 0; m < run->job.nmodes; m++) {
		struct total t = phase_total(c, m);
		size_t n;
		struct bench_row *rows;

		if (!run->phases[m].ran)
			continue;
		rows = total_rows(c, m, &n);
		json_object(j, NULL, 0);
		json_string(j, "mode", pc_strategy_name(run->job.modes[m]));
		json_number(j, "bytes", (double)t.bytes);
		json_number(j, "seconds", t.secs);
		json_number(j, "gbps_avg", t.gbps);
		json_number(j, "hosts_fell", t.fell);
		json_number(j, "hosts_held", t.ran - t.fell);
		json_array(j, "intervals", 0);
		for (size_t i = 0; i < n; i++) {
			json_object(j, NULL, 0);
			json_number(j, "t", rows[i].t);
			json_number(j, "dt", rows[i].dt);
			json_number(j, "bytes", (double)rows[i].bytes);
			json_number(j, "bytes_total", (double)rows[i].bytes_total);
			json_number(j, "gbps", rows[i].gbps);
			json_end(j);
		}
		json_end(j);
		json_end(j);
		free(rows);
	}
	json_end(j);
	json_array(j, "hosts", 1);
	for (unsigned int h = 0; h < c->nhosts; h++) {
		json_object(j, NULL, 1);
		json_string(j, "host", c->hosts[h].name);
		json_number(j, "rank", c->hosts[h].rank);
		json_number(j, "ranks_on_host", c->hosts[h].on_host);
		json_string(j, "failure", c->hosts[h].why);
		json_run(j, c->hosts[h].run);
		json_end(j);
	}
	json_end(j);
}

/* "HOST,RANK," (the host without quotes and commas) into @buf: a line's prefix. */
static const char *host_prefix(const struct bench_host *h, char *buf, size_t len)
{
	char name[sizeof(h->name)];
	size_t n = 0;

	for (const char *p = h->name; *p && n < sizeof(name) - 1; p++)
		if (*p != '"' && *p != ',')
			name[n++] = *p;
	name[n] = '\0';
	snprintf(buf, len, "%s,%d,", name, h->rank);
	return buf;
}

/* Each host's phases, then the total's: bytes, seconds, GB/s, who fell. */
static void csv_cluster(const struct bench_run *run, FILE *out)
{
	const struct bench_cluster *c = run->cluster;
	char prefix[96], line[1024];

	for (unsigned int h = 0; h < c->nhosts; h++)
		csv_phases(c->hosts[h].run, host_prefix(&c->hosts[h], prefix, sizeof(prefix)), out);
	for (unsigned int m = 0; m < run->job.nmodes; m++) {
		struct total t = phase_total(c, m);

		if (!run->phases[m].ran)
			continue;
		fprintf(out, "total,,%s,,,%llu,", pc_strategy_name(run->job.modes[m]),
			(unsigned long long)t.bytes);
		csv_num(out, 3, t.secs, 1);
		csv_num(out, 4, t.gbps, 1);
		fputs(",,,,,,,,,,,,,,,,,,,", out);
		say_fallen(c, m, pc_strategy_name(run->job.modes[m]), line, sizeof(line));
		csv_str(out, line);
		fputs(",,", out);
		fputc('\n', out);
	}
}

/* Each host's timeline, then the total per interval (host "total"). */
static void timeline_cluster(const struct bench_run *run, FILE *out)
{
	const struct bench_cluster *c = run->cluster;
	char prefix[96];

	for (unsigned int h = 0; h < c->nhosts; h++)
		csv_rows(c->hosts[h].run, c->hosts[h].run->rows, c->hosts[h].run->nrows,
			 host_prefix(&c->hosts[h], prefix, sizeof(prefix)), out);
	for (unsigned int m = 0; m < run->job.nmodes; m++) {
		size_t n;
		struct bench_row *rows = run->phases[m].ran ? total_rows(c, m, &n) : NULL;

		if (rows)
			csv_rows(run, rows, n, "total,,", out);
		free(rows);
	}
}
