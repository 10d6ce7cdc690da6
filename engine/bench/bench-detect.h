/* SPDX-License-Identifier: MIT */
/*
 * The cliff detector: a pure function from one mode's timeline (throughput,
 * page cache and reclaim per interval) and the best throughput of the run to
 * a verdict.  No I/O, so tests feed it timelines recorded on real machines.
 */
#ifndef PC_CLI_BENCH_DETECT_H
#define PC_CLI_BENCH_DETECT_H

#include <stddef.h>

/* The cache counts as full from this share of its limit on. */
#define DETECT_FULL_SHARE 0.9
/* Reclaim below this many pages/s (1 MiB/s) is noise. */
#define DETECT_RECLAIM_MIN 256.0
/* Throughput under this share of a reference is a fall. */
#define DETECT_FALL_SHARE 0.8
/* Measured reclaim under this % of the workers' time is noise. */
#define DETECT_RECLAIM_PCT_MIN 1.0

/* One interval of one mode. */
struct detect_point {
	double gib;			/* data read by the end of the interval */
	double gbps;			/* throughput in the interval */
	double cache;			/* page-cache bytes at the end */
	double limit;			/* cache limit in bytes, NAN when none */
	double reclaim;			/* pages/s reclaimed, NAN when unknown */
	/* % of the workers' time, from the kernel's tracepoints; NAN unknown */
	double direct_pct, memcg_pct, lock_pct, throttle_pct;
	double kswapd_pct;		/* % of kswapd's time awake, NAN unknown */
};

enum detect_kind {
	DETECT_CLIFF,			/* its own throughput fell once the cache was
					 * full and reclaim ran (the verdict decides
					 * whether the measured cause explains it) */
	DETECT_HELD,			/* cache full and reclaim ran, throughput held
					 * (or rose) against its own before */
	DETECT_NOT_FULL,		/* the cache never reached its limit */
	DETECT_NO_RECLAIM,		/* full, but nothing was reclaimed */
	DETECT_NO_DATA,			/* fewer than two intervals */
	DETECT_UNMEASURED,		/* full and reclaim ran, but too soon (under
					 * two intervals) to measure the mode before */
};

struct detect_result {
	int cliff;			/* 1 when kind is DETECT_CLIFF: it fell */
	enum detect_kind kind;
	int growth_drop;		/* slow while the cache grew without reclaim */
	double growth_gbps;		/* median throughput while it grew */
	size_t full_at;			/* first interval with the cache full, or n */
	double at_gib;			/* data read when it filled */
	double before_gbps;		/* median before it filled, NAN if < 2 intervals */
	double after_gbps;		/* median once it was full */
	double after_min;
	double reclaim_rate;		/* median pages/s once it was full */
	double peak_cache, limit;
	double best_gbps;		/* the reference: the best mode of the run */
	double vs_own, vs_best;		/* after / before, after / best (NAN unknown) */
	/* medians once it was full, % of the workers' time; NAN when not traced */
	double direct_pct, memcg_pct, lock_pct, throttle_pct, kswapd_pct;
};

/* Median of @n values (copied, not reordered); NAN when @n is 0. */
double detect_median(const double *v, size_t n);

/*
 * Judge one mode's @n points against @best_gbps, the steady throughput of
 * the best mode of the same run (NAN when unknown).  Fills *ret.
 *
 * The cache is full from the first interval at DETECT_FULL_SHARE of its
 * limit (without a limit: the first with reclaim).  A fall is throughput
 * after that point under DETECT_FALL_SHARE of the mode's own median before
 * it while reclaim runs: DETECT_RECLAIM_MIN pages/s, or where the pages are
 * not counted, DETECT_RECLAIM_PCT_MIN of the workers' time measured in
 * direct or memory-cgroup reclaim.  Being slower than @best_gbps is a gap
 * (vs_best), never a fall: the verdict (bench-verdict.h) says why.
 * Slowness before that point with the cache growing and nothing reclaimed
 * is growth_drop (first touch of memory), never the cliff, and then the own
 * comparison is not used: the mode did not fall, it rose.  Fewer than two
 * intervals before the cache filled leave it DETECT_UNMEASURED.
 */
void detect_cliff(const struct detect_point *p, size_t n, double best_gbps,
		  struct detect_result *ret);

#endif
