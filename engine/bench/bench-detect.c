// SPDX-License-Identifier: MIT
/*
 * The cliff detector (see bench-detect.h): where the page cache filled, the
 * throughput before and after, and whether the fall is the cliff.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench-detect.h"

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double detect_median(const double *v, size_t n)
{
	double *copy, m;

	if (!n)
		return NAN;
	copy = malloc(n * sizeof(*copy));
	if (!copy)
		return NAN;
	memcpy(copy, v, n * sizeof(*copy));
	qsort(copy, n, sizeof(*copy), cmp_double);
	m = n % 2 ? copy[n / 2] : (copy[n / 2 - 1] + copy[n / 2]) / 2;
	free(copy);
	return m;
}

/* Time in direct plus memory-cgroup reclaim, NAN when not measured. */
static double reclaim_pct(const struct detect_point *p)
{
	if (isnan(p->direct_pct) && isnan(p->memcg_pct))
		return NAN;
	return (isnan(p->direct_pct) ? 0 : p->direct_pct) + (isnan(p->memcg_pct) ? 0 : p->memcg_pct);
}

static int reclaiming(const struct detect_point *p)
{
	if (!isnan(p->reclaim))
		return p->reclaim >= DETECT_RECLAIM_MIN;
	return reclaim_pct(p) >= DETECT_RECLAIM_PCT_MIN;
}

static int full(const struct detect_point *p)
{
	if (!isnan(p->limit) && p->limit > 0)
		return p->cache >= DETECT_FULL_SHARE * p->limit;
	return reclaiming(p);
}

enum { F_GBPS, F_RECLAIM, F_DIRECT, F_MEMCG, F_LOCK, F_THROTTLE, F_KSWAPD };

static double field_of(const struct detect_point *p, int field)
{
	switch (field) {
	case F_RECLAIM: return p->reclaim;
	case F_DIRECT: return p->direct_pct;
	case F_MEMCG: return p->memcg_pct;
	case F_LOCK: return p->lock_pct;
	case F_THROTTLE: return p->throttle_pct;
	case F_KSWAPD: return p->kswapd_pct;
	default: return p->gbps;
	}
}

/* Median of @field over [from, to), skipping unknown values. */
static double median_of(const struct detect_point *p, size_t from, size_t to, int field)
{
	double *v, m;
	size_t n = 0;

	v = malloc((to > from ? to - from : 1) * sizeof(*v));
	if (!v)
		return NAN;
	for (size_t i = from; i < to; i++)
		if (field == F_GBPS || !isnan(field_of(&p[i], field)))
			v[n++] = field_of(&p[i], field);
	m = detect_median(v, n);
	free(v);
	return m;
}

static void find_full(const struct detect_point *p, size_t n, struct detect_result *r)
{
	r->full_at = n;
	r->peak_cache = 0;
	r->limit = NAN;
	for (size_t i = 0; i < n; i++) {
		if (p[i].cache > r->peak_cache)
			r->peak_cache = p[i].cache;
		if (!isnan(p[i].limit))
			r->limit = p[i].limit;
		if (r->full_at == n && full(&p[i]))
			r->full_at = i;
	}
	r->at_gib = r->full_at < n ? p[r->full_at].gib : NAN;
}

/* Before and after the cache filled; the transition interval counts as
 * after only when nothing else is there. */
static void split(const struct detect_point *p, size_t n, struct detect_result *r)
{
	size_t from = r->full_at + 1 < n ? r->full_at + 1 : r->full_at;
	int reclaim_before = 0;

	r->before_gbps = r->full_at >= 2 ? median_of(p, 0, r->full_at, F_GBPS) : NAN;
	r->after_gbps = median_of(p, from, n, F_GBPS);
	r->reclaim_rate = median_of(p, from, n, F_RECLAIM);
	r->direct_pct = median_of(p, from, n, F_DIRECT);
	r->memcg_pct = median_of(p, from, n, F_MEMCG);
	r->lock_pct = median_of(p, from, n, F_LOCK);
	r->throttle_pct = median_of(p, from, n, F_THROTTLE);
	r->kswapd_pct = median_of(p, from, n, F_KSWAPD);
	r->after_min = INFINITY;
	for (size_t i = from; i < n; i++)
		r->after_min = fmin(r->after_min, p[i].gbps);
	for (size_t i = 0; i < r->full_at; i++)
		reclaim_before |= reclaiming(&p[i]);
	/* Slow while the cache grew into memory nothing had to be taken from:
	 * first touch of memory (free page reporting on VMs), not the cliff. */
	r->growth_gbps = r->full_at >= 1 ? median_of(p, 0, r->full_at, F_GBPS) : NAN;
	if (r->full_at >= 1 && !reclaim_before &&
	    r->growth_gbps < DETECT_FALL_SHARE * r->after_gbps)
		r->growth_drop = 1;
}

/* Reclaim ran once the cache was full: by pages, else by measured time. */
static int reclaim_ran(const struct detect_result *r)
{
	struct detect_point p = { .reclaim = r->reclaim_rate, .direct_pct = r->direct_pct,
				  .memcg_pct = r->memcg_pct };

	return reclaiming(&p);
}

void detect_cliff(const struct detect_point *p, size_t n, double best_gbps,
		  struct detect_result *ret)
{
	struct detect_result r = { 0 };
	int fell_own;

	r.best_gbps = best_gbps;
	r.before_gbps = r.after_gbps = r.after_min = r.reclaim_rate = NAN;
	r.growth_gbps = NAN;
	r.vs_own = r.vs_best = NAN;
	r.direct_pct = r.memcg_pct = r.lock_pct = r.throttle_pct = r.kswapd_pct = NAN;
	r.kind = DETECT_NO_DATA;
	if (n < 2)
		goto out;
	find_full(p, n, &r);
	if (r.full_at == n) {
		r.after_gbps = median_of(p, 0, n, F_GBPS);
		r.kind = DETECT_NOT_FULL;
		goto out;
	}
	split(p, n, &r);
	if (!r.growth_drop && !isnan(r.before_gbps) && r.before_gbps > 0)
		r.vs_own = r.after_gbps / r.before_gbps;
	if (!isnan(best_gbps) && best_gbps > 0)
		r.vs_best = r.after_gbps / best_gbps;
	if (!reclaim_ran(&r)) {
		r.kind = DETECT_NO_RECLAIM;
		goto out;
	}
	fell_own = !isnan(r.vs_own) && r.vs_own < DETECT_FALL_SHARE;
	if (isnan(r.vs_own) && !r.growth_drop)
		r.kind = DETECT_UNMEASURED;
	else
		r.kind = fell_own ? DETECT_CLIFF : DETECT_HELD;
	r.cliff = r.kind == DETECT_CLIFF;
out:
	*ret = r;
}
