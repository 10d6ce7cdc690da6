// SPDX-License-Identifier: MIT
/*
 * pagecliff bench's JSON report of a run analysed by bench-analyse.c: the
 * job, the verdict, and per mode its figures and every interval, in the
 * common JSON writer.
 */
#include <math.h>
#include <stdio.h>

#include "bench.h"
#include "json.h"

static const struct bench_row *rows_of(const struct bench_run *run,
				       const struct bench_phase *ph)
{
	return run->rows + ph->first_row;
}

/* JSON, with the common writer: unknown figures (NAN) are null. */
void bench_json_row(struct json *j, const struct bench_run *run, const struct bench_row *r,
		    int total)
{
	json_object(j, NULL, 0);
	for (const struct bench_col *c = bench_cols; c < bench_cols + bench_ncols; c++) {
		const char *key = bench_col_json_key(c);

		if (!key || (total && !c->total))
			continue;
		if (c->kind == BENCH_COL_STR) {
			json_string(j, key, bench_col_text(r, c));
		} else if (c->kind == BENCH_COL_DIRS) {
			json_array(j, key, 0);
			for (unsigned int d = 0; d < run->job.ndirs; d++)
				json_number(j, NULL, r->dir_gbps[d]);
			json_end(j);
		} else {
			json_number(j, key, bench_col_value(r, c));
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

/* The phase's kernel work per GiB moved (null when not counted). */
static void json_work(struct json *j, const struct bench_phase *ph)
{
	for (unsigned int i = 0; i < BENCH_NWORK; i++)
		json_number(j, bench_work_figs[i].key, ph->work[i]);
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
	json_work(j, ph);
	json_array(j, "intervals", 1);
	for (size_t i = 0; i < ph->nrows; i++)
		bench_json_row(j, run, &rows_of(run, ph)[i], 0);
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
	json_string(j, "ioengine", bench_engine_name(jb->engine));
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

void bench_json_run(struct json *j, const struct bench_run *run)
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

void bench_json_report(const struct bench_run *run, FILE *out,
		       void (*more)(struct json *j, const struct bench_run *run))
{
	struct json j;

	json_init(&j, out);
	json_object(&j, NULL, 1);
	bench_json_run(&j, run);
	if (more)
		more(&j, run);
	json_end(&j);
}

void bench_report_json(const struct bench_run *run, FILE *out)
{
	bench_json_report(run, out, NULL);
}
