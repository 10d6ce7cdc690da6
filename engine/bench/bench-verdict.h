/* SPDX-License-Identifier: MIT */
/*
 * The verdict: a pure function from what a run measured (each mode's
 * detector result over its timeline, its CPU per GiB, the kernel's shares of
 * the workers' time) to two findings kept apart, each with its figures and
 * reasons: the cliff (a mode's own throughput falls once the page cache is
 * full, and the measured cause accounts for a real part of the fall) and the
 * gap (how much slower than the best mode, and why).  Words come from the
 * struct only, so no sentence can say what the figures do not.  No I/O:
 * tests feed it recorded timelines.
 */
#ifndef PC_CLI_BENCH_VERDICT_H
#define PC_CLI_BENCH_VERDICT_H

#include <stddef.h>

#include "bench-detect.h"

/* A cause explains a fall or gap when its share of the workers' time is at
 * least this part of the time the fall or gap added. */
#define VERDICT_CAUSE_PART 0.25
/* A share of the workers' time under this % is not named as a cause. */
#define VERDICT_SHARE_MIN 1.0
/* More CPU per GiB than the best mode by this factor (and saving a real part
 * of the gap's time at the best mode's CPU per GiB) explains a gap. */
#define VERDICT_CPU_RATIO 1.2

enum verdict_kind {
	VERDICT_CLIFF,			/* fell, and the measured cause explains it */
	VERDICT_FALL_UNEXPLAINED,	/* fell, the measured cause does not explain it */
	VERDICT_HELD,			/* full, reclaim ran, own throughput held or rose */
	VERDICT_UNMEASURED,		/* full too soon to measure the mode before */
	VERDICT_NOT_FULL,		/* the cache never reached its limit */
	VERDICT_NO_RECLAIM,		/* full, nothing reclaimed */
	VERDICT_NO_DATA,		/* fewer than two intervals */
};

enum verdict_cause {
	CAUSE_NONE,
	CAUSE_DIRECT_RECLAIM,		/* the workers reclaimed for the host */
	CAUSE_MEMCG_RECLAIM,		/* the workers reclaimed for their cgroup */
	CAUSE_LOCKS,			/* the workers waited on kernel locks */
	CAUSE_THROTTLE,			/* dirty throttling */
	CAUSE_RECLAIM_COUNTED,		/* untraced: reclaim ran, by the counters */
	CAUSE_CPU_COPY,			/* more CPU per GiB: the copy through the cache */
	CAUSE_UNKNOWN,			/* nothing measured accounts for it */
};

/* Why: facts behind the kind, as bits. */
enum {
	VR_FIRST_TOUCH = 1 << 0,	/* slow while the cache first grew, no reclaim */
	VR_UNTRACED = 1 << 1,		/* no kernel tracing: causes from counters */
	VR_MEMCG = 1 << 2,		/* ran in a memory cgroup */
	VR_FEW_CORES = 1 << 3,		/* too few CPUs for lock contention to build */
	VR_KEPT_SMALL = 1 << 4,		/* the mode kept the cache small */
	VR_FITS = 1 << 5,		/* the data set fit in the cache */
	VR_IS_BEST = 1 << 6,		/* this is the best mode */
};

/* One mode, as measured. */
struct verdict_mode {
	const char *name;		/* "buffered" */
	struct detect_result det;	/* its timeline, judged against the best */
	double cpu_per_gib;		/* process CPU seconds per GiB, NAN unknown */
	double kswapd_per_gib;		/* kswapd CPU seconds per GiB, NAN unknown */
	double bytes;			/* moved in the phase */
	double cache_grew;		/* page cache growth over the phase, bytes */
	double data_set;		/* bytes of the mode's files */
	const char *top_lock;		/* most waited lock, "" or NULL none */
	int write;			/* writes, not reads */
};

/* The run around the modes. */
struct verdict_ctx {
	int memcg;			/* the workers ran in a memory cgroup */
	int traced;			/* the kernel's events were traced */
	const char *trace_why;		/* why not, when not */
	unsigned int cpus;		/* online CPUs, 0 unknown */
	unsigned int threads;		/* worker threads */
};

/* What the verdict found for one mode. */
struct verdict {
	enum verdict_kind kind;
	int cliff;			/* kind is VERDICT_CLIFF */
	unsigned int reasons;		/* VR_* */
	/* the fall, against the mode's own throughput before the cache filled */
	double before_gbps, after_gbps, at_gib, fall_pct;
	double growth_gbps;		/* while the cache first grew (VR_FIRST_TOUCH) */
	enum verdict_cause fall_cause;
	double fall_cause_pct;		/* that cause's share of the workers' time */
	/* the gap to the best mode */
	int gap;			/* slower than the best by DETECT_FALL_SHARE */
	const char *best_name;
	double best_gbps, gap_pct;
	enum verdict_cause gap_cause;
	double gap_cause_pct;		/* the cause's share, when one is a share */
	double cpu_per_gib, best_cpu_per_gib;
	/* measured once the cache was full, % (kswapd: of its time); NAN unknown */
	double direct_pct, memcg_pct, lock_pct, throttle_pct, kswapd_pct;
	double reclaim_rate;		/* pages/s once the cache was full */
	double limit, peak_cache;
};

/*
 * Judge @n modes (each @modes[i].det computed against the best mode's
 * throughput, @best the index of that mode or -1) into @ret[0..n).
 */
void verdict_judge(const struct verdict_mode *modes, size_t n, int best,
		   const struct verdict_ctx *ctx, struct verdict *ret);

/* The cliff's words for one mode: "buffered: no cliff: ...". */
int verdict_cliff_words(const struct verdict_mode *m, const struct verdict *v,
			const struct verdict_ctx *ctx, char *buf, size_t len);
/* The gap's words: "buffered: 28% slower than auto ..." or "" (0) when none. */
int verdict_gap_words(const struct verdict_mode *m, const struct verdict *v,
		      const struct verdict_ctx *ctx, char *buf, size_t len);
/*
 * One line a newcomer can act on, for the whole run: whether there is a
 * cliff on this machine and why, the gap, and what to use.
 */
int verdict_summary(const struct verdict_mode *modes, const struct verdict *v, size_t n,
		    int best, const struct verdict_ctx *ctx, char *buf, size_t len);

/* Stable names for JSON and tests: "cliff", "held", ...; "direct_reclaim", ... */
const char *verdict_kind_name(enum verdict_kind k);
const char *verdict_cause_name(enum verdict_cause c);

#endif
