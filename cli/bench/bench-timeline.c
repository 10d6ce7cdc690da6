// SPDX-License-Identifier: MIT
/*
 * The columns of pagecliff bench's timeline: one table of every figure of
 * an interval (struct bench_row), with its CSV and JSON names, that the
 * timeline CSV, the JSON intervals (each host's and the total over hosts)
 * and the tests that read a timeline back all go through.
 */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

#define GIB (1024.0 * 1024 * 1024)

#define ROW_OFF(f) offsetof(struct bench_row, f), sizeof(((struct bench_row *)0)->f)
#define COL_IN(csv, json, kind, f, prec, div, total) \
	{ csv, json, BENCH_COL_##kind, ROW_OFF(f), prec, div, total }
#define COL(csv, json, kind, f, prec, div) COL_IN(csv, json, kind, f, prec, div, 0)
#define NUM(csv, json, f, prec) COL(csv, json, NUM, f, prec, 0)
#define UINT(csv, json, f) COL(csv, json, UINT, f, 0, 0)
#define SAME(name, f, prec) NUM(name, name, f, prec)	/* one name in both */
/* a column a sum over hosts knows (bench_row_add): the cluster's totals */
#define TOTAL(csv, json, kind, f, prec, div) COL_IN(csv, json, kind, f, prec, div, 1)

const struct bench_col bench_cols[] = {
	TOTAL("t", "t", NUM, t, 3, 0),
	TOTAL("dt", "dt", NUM, dt, 3, 0),
	TOTAL("bytes", "bytes", U64, bytes, 0, 0),
	TOTAL(NULL, "bytes_total", U64, bytes_total, 0, 0),
	TOTAL("gib", NULL, U64, bytes_total, 4, GIB),
	TOTAL("gbps", "gbps", NUM, gbps, 4, 0),
	COL(NULL, "dir_gbps", DIRS, dir_gbps, 4, 0),	/* CSV: at the end */
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
	COL("psi_some_pct", "psi_some_pct", NUM, d.psi_some_us, 2, 1e4),
	COL("psi_full_pct", "psi_full_pct", NUM, d.psi_full_us, 2, 1e4),
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

double bench_col_value(const struct bench_row *r, const struct bench_col *c)
{
	const char *p = (const char *)r + c->off;
	double v;

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
	for (const struct bench_col *c = bench_cols; c < bench_cols + bench_ncols; c++)
		if (c->kind == BENCH_COL_NUM)
			*(double *)(void *)((char *)r + c->off) = NAN;
}

const struct bench_col *bench_col_csv(const char *name)
{
	for (const struct bench_col *c = bench_cols; c < bench_cols + bench_ncols; c++)
		if (c->csv && !strcmp(c->csv, name))
			return c;
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
