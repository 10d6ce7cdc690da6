// SPDX-License-Identifier: MIT
/*
 * pagecliff bench's CSV: the report, a line per mode, and the timeline, a
 * line per interval with the columns of bench-timeline.c.  A run across
 * hosts puts "HOST,RANK," before each line (bench-cluster.c).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>

#include "bench.h"

/* CSV fields with a comma or quote are quoted. */
void bench_csv_str(FILE *out, const char *s)
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
void bench_csv_num(FILE *out, int prec, double v, int comma)
{
	if (bench_known(v))
		fprintf(out, "%.*f", prec, v);
	if (comma)
		fputc(',', out);
}

void bench_csv_header(FILE *out)
{
	fputs("mode,strategy,cliff,bytes,seconds,gbps_avg,gbps_median,gbps_min,"
	      "gbps_before,gbps_after,cache_full_gib,reclaim_pages_s,ratio_to_best,"
	      "cpu_s_per_gib_process,cpu_s_per_gib_system,cpu_s_per_gib_kswapd,"
	      "peak_cache_bytes,pages_reclaimed,mem_align,fdatasync_seconds,"
	      "peak_dirty_bytes,peak_writeback_bytes,stack_throttled_pct,stack_reclaim_wait_pct,"
	      "stack_reclaim_pct,verdict,gap_pct,gap_verdict", out);
	for (unsigned int i = 0; i < BENCH_NWORK; i++)
		fprintf(out, ",%s", bench_work_figs[i].key);
	fputc('\n', out);
}

void bench_csv_phases(const struct bench_run *run, const char *prefix, FILE *out)
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
		bench_csv_num(out, 3, ph->secs, 1);
		for (size_t i = 0; i < sizeof(f4) / sizeof(f4[0]); i++)
			bench_csv_num(out, 4, f4[i], 1);
		bench_csv_num(out, 0, d->reclaim_rate, 1);
		for (size_t i = 0; i < sizeof(g4) / sizeof(g4[0]); i++)
			bench_csv_num(out, 4, g4[i], 1);
		bench_csv_num(out, 0, ph->peak_cache, 1);
		bench_csv_num(out, 0, ph->pages_reclaimed, 1);
		fprintf(out, "%llu,", (unsigned long long)run->job.mem_align);
		bench_csv_num(out, 3, run->job.rw == BENCH_WRITE ? ph->sync_secs : NAN, 1);
		bench_csv_num(out, 0, ph->peak_dirty, 1);
		bench_csv_num(out, 0, ph->peak_writeback, 1);
		bench_csv_num(out, 1, ph->throttled_pct, 1);
		bench_csv_num(out, 1, ph->reclaim_wait_pct, 1);
		bench_csv_num(out, 1, ph->reclaim_pct, 1);
		bench_csv_str(out, ph->verdict);
		fputc(',', out);
		bench_csv_num(out, 1, ph->v.gap_pct, 1);
		bench_csv_str(out, ph->gap);
		for (unsigned int i = 0; i < BENCH_NWORK; i++) {
			fputc(',', out);
			bench_csv_num(out, bench_work_figs[i].prec, ph->work[i], 0);
		}
		fputc('\n', out);
	}
}

void bench_timeline_header(const struct bench_run *run, FILE *out)
{
	fputs("mode", out);
	for (const struct bench_col *c = bench_cols; c < bench_cols + bench_ncols; c++)
		if (bench_col_csv_name(c))
			fprintf(out, ",%s", bench_col_csv_name(c));
	for (unsigned int d = 0; d < run->job.ndirs; d++)
		fprintf(out, ",dir%u_gbps", d);
	fputc('\n', out);
}

/* One cell of column @c (not BENCH_COL_DIRS), after its comma. */
static void csv_cell(FILE *out, const struct bench_row *r, const struct bench_col *c)
{
	const void *p = (const char *)r + c->off;

	fputc(',', out);
	if (c->kind == BENCH_COL_STR)
		bench_csv_str(out, bench_col_text(r, c));
	else if (c->kind == BENCH_COL_NUM || c->div)
		bench_csv_num(out, c->prec, bench_col_value(r, c), 0);
	else if (c->kind == BENCH_COL_U64)
		fprintf(out, "%llu", (unsigned long long)*(const uint64_t *)p);
	else
		fprintf(out, "%u", *(const unsigned int *)p);
}

void bench_csv_rows(const struct bench_run *run, const struct bench_row *rows, size_t n,
		    const char *prefix, FILE *out)
{
	for (size_t i = 0; i < n; i++) {
		const struct bench_row *r = &rows[i];

		if (prefix)
			fputs(prefix, out);
		fputs(pc_strategy_name(run->job.modes[r->mode]), out);
		for (const struct bench_col *c = bench_cols; c < bench_cols + bench_ncols; c++)
			if (bench_col_csv_name(c))
				csv_cell(out, r, c);
		for (unsigned int d = 0; d < run->job.ndirs; d++) {
			fputc(',', out);
			bench_csv_num(out, 4, r->dir_gbps[d], 0);
		}
		fputc('\n', out);
	}
}

void bench_report_csv(const struct bench_run *run, FILE *out)
{
	bench_csv_header(out);
	bench_csv_phases(run, NULL, out);
}

void bench_timeline_csv(const struct bench_run *run, FILE *out)
{
	bench_timeline_header(run, out);
	bench_csv_rows(run, run->rows, run->nrows, NULL, out);
}
