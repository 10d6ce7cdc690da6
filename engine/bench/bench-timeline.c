// SPDX-License-Identifier: MIT
/*
 * The columns of pagecliff bench's timeline: one table of every figure of
 * an interval (struct bench_row), with its CSV and JSON names, that the
 * timeline CSV, the JSON intervals (each host's and the total over hosts)
 * and the tests that read a timeline back all go through.  The system's
 * figures among them are the catalogue's (figures.c), with their names.
 */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "figures.h"

#define GIB (1024.0 * 1024 * 1024)

#define ROW_OFF(f) offsetof(struct bench_row, f), sizeof(((struct bench_row *)0)->f)
#define COL_IN(csv, json, kind, f, prec, div, total) \
	{ csv, json, BENCH_COL_##kind, ROW_OFF(f), prec, div, total, NULL }
#define COL(csv, json, kind, f, prec, div) COL_IN(csv, json, kind, f, prec, div, 0)
#define NUM(csv, json, f, prec) COL(csv, json, NUM, f, prec, 0)
#define UINT(csv, json, f) COL(csv, json, UINT, f, 0, 0)
#define SAME(name, f, prec) NUM(name, name, f, prec)	/* one name in both */
/* a column a sum over hosts knows (bench_row_add): the cluster's totals */
#define TOTAL(csv, json, kind, f, prec, div) COL_IN(csv, json, kind, f, prec, div, 1)
/* a figure of the catalogue, in the row's sample_delta, named as it says */
#define FIG(id, prec) \
	{ NULL, NULL, BENCH_COL_NUM, ROW_OFF(d), prec, 0, 0, &figures[FIGURE_##id] }

const struct bench_col bench_cols[] = {
	TOTAL("t", "t", NUM, t, 3, 0),
	TOTAL("dt", "dt", NUM, dt, 3, 0),
	TOTAL("bytes", "bytes", U64, bytes, 0, 0),
	TOTAL(NULL, "bytes_total", U64, bytes_total, 0, 0),
	TOTAL("gib", NULL, U64, bytes_total, 4, GIB),
	TOTAL("gbps", "gbps", NUM, gbps, 4, 0),
	COL(NULL, "dir_gbps", DIRS, dir_gbps, 4, 0),	/* CSV: at the end */
	FIG(CPU_USR, 2),
	FIG(CPU_SYS, 2),
	FIG(CPU_IOWAIT, 2),
	FIG(CPU_IRQ, 2),
	FIG(CPU_SOFTIRQ, 2),
	FIG(CPU_IDLE, 2),
	FIG(PROCESS_CPU_S, 4),
	SAME("system_cpu_s", sys_cpu, 4),
	FIG(KSWAPD_CPU_S, 4),
	NUM("cache_bytes", "page_cache_bytes", cache, 0),
	NUM("cache_limit", "cache_limit_bytes", cache_limit, 0),
	SAME("reclaim_pages_s", reclaim, 1),
	FIG(PGSCAN_DIRECT, 1),
	FIG(PGSTEAL_DIRECT, 1),
	FIG(PGSCAN_KSWAPD, 1),
	FIG(PGSTEAL_KSWAPD, 1),
	FIG(ALLOCSTALL, 1),
	FIG(CG_PGSCAN, 1),
	FIG(CG_PGSTEAL, 1),
	FIG(PSI_SOME_PCT, 2),
	FIG(PSI_FULL_PCT, 2),
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
	COL("top_lock", "top_lock", STR, top_lock, 0, 0),
	SAME("top_lock_pct", top_lock_pct, 2),
	SAME("kswapd_busy_pct", kswapd_busy_pct, 2),
	SAME("dirty_throttle_pct", dirty_throttle_pct, 2),
};

const size_t bench_ncols = sizeof(bench_cols) / sizeof(bench_cols[0]);

const char *bench_col_csv_name(const struct bench_col *c)
{
	return c->fig ? c->fig->csv : c->csv;
}

const char *bench_col_json_key(const struct bench_col *c)
{
	return c->fig ? c->fig->json : c->json;
}

double bench_col_value(const struct bench_row *r, const struct bench_col *c)
{
	const char *p = (const char *)r + c->off;
	double v;

	if (c->fig)
		return figure_now(c->fig, &(struct figure_in){ .d = &r->d });
	if (c->kind == BENCH_COL_UINT)
		v = *(const unsigned int *)(const void *)p;
	else if (c->kind == BENCH_COL_U64)
		v = (double)*(const uint64_t *)(const void *)p;
	else
		v = *(const double *)(const void *)p;
	return c->div ? v / c->div : v;
}

const char *bench_col_text(const struct bench_row *r, const struct bench_col *c)
{
	return (const char *)r + c->off;
}

void bench_row_unknown(struct bench_row *r)
{
	memset(r, 0, sizeof(*r));
	for (const struct bench_col *c = bench_cols; c < bench_cols + bench_ncols; c++) {
		if (c->fig)
			figure_put(c->fig, &r->d, NAN);
		else if (c->kind == BENCH_COL_NUM)
			*(double *)(void *)((char *)r + c->off) = NAN;
	}
}

const struct bench_col *bench_col_csv(const char *name)
{
	for (const struct bench_col *c = bench_cols; c < bench_cols + bench_ncols; c++) {
		const char *csv = bench_col_csv_name(c);

		if (csv && !strcmp(csv, name))
			return c;
	}
	return NULL;
}

/* A CSV string cell without its quotes, "" inside them one '"'. */
static void parse_text(char *dst, size_t len, const char *cell)
{
	size_t n = strlen(cell), k = 0;

	if (n >= 2 && cell[0] == '"' && cell[n - 1] == '"') {
		for (size_t i = 1; i < n - 1 && k + 1 < len; i++) {
			dst[k++] = cell[i];
			if (cell[i] == '"' && cell[i + 1] == '"')
				i++;
		}
		dst[k] = '\0';
	} else {
		snprintf(dst, len, "%s", cell);
	}
}

int bench_col_parse(struct bench_row *r, const struct bench_col *c, const char *cell)
{
	char *p = (char *)r + c->off, *end;
	double v;

	if (c->kind == BENCH_COL_STR) {
		parse_text(p, c->len, cell);
		return 0;
	}
	if (c->kind == BENCH_COL_DIRS)
		return -EINVAL;
	v = *cell ? strtod(cell, &end) : NAN;
	if (*cell && *end)
		return -EINVAL;
	if (c->fig)
		return figure_put(c->fig, &r->d, v);
	if (c->div)
		v *= c->div;
	if (c->kind == BENCH_COL_UINT)
		*(unsigned int *)(void *)p = isnan(v) ? 0 : (unsigned int)v;
	else if (c->kind == BENCH_COL_U64)
		*(uint64_t *)(void *)p = isnan(v) ? 0 : (uint64_t)v;
	else
		*(double *)(void *)p = v;
	return 0;
}
