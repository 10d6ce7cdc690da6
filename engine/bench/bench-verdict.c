// SPDX-License-Identifier: MIT
/*
 * The verdict (see bench-verdict.h): the cliff and the gap of each mode from
 * what was measured, and their words, built from the struct alone.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "bench-verdict.h"
#include "pagecliff.h"

/* Fewer CPUs than this cannot run enough reclaimers and readers at once for
 * the page cache's lock to become the bottleneck it is on large machines. */
#define VERDICT_FEW_CPUS 8

#define GIB (1024.0 * 1024 * 1024)

static int known(double v)
{
	return !isnan(v) && !isinf(v);
}

const char *verdict_kind_name(enum verdict_kind k)
{
	static const char *names[] = { "cliff", "fall_unexplained", "held", "unmeasured",
				       "not_full", "no_reclaim", "no_data" };

	return k < sizeof(names) / sizeof(names[0]) ? names[k] : "?";
}

const char *verdict_cause_name(enum verdict_cause c)
{
	static const char *names[] = { "none", "direct_reclaim", "memcg_reclaim", "lock_wait",
				       "dirty_throttle", "reclaim_counted", "cpu_copy",
				       "unknown" };

	return c < sizeof(names) / sizeof(names[0]) ? names[c] : "?";
}

/* The largest measured share of the workers' time and its cause. */
static enum verdict_cause top_share(const struct verdict *v, double *ret_pct)
{
	const struct { enum verdict_cause c; double pct; } s[] = {
		{ CAUSE_DIRECT_RECLAIM, v->direct_pct }, { CAUSE_MEMCG_RECLAIM, v->memcg_pct },
		{ CAUSE_LOCKS, v->lock_pct }, { CAUSE_THROTTLE, v->throttle_pct },
	};
	enum verdict_cause best = CAUSE_NONE;
	double pct = NAN;

	for (size_t i = 0; i < sizeof(s) / sizeof(s[0]); i++)
		if (known(s[i].pct) && (!known(pct) || s[i].pct > pct)) {
			best = s[i].c;
			pct = s[i].pct;
		}
	*ret_pct = pct;
	return known(pct) && pct >= VERDICT_SHARE_MIN ? best : CAUSE_NONE;
}

/* Whether the shares of the workers' time were measured. */
static int shares_known(const struct verdict *v)
{
	return known(v->direct_pct) || known(v->memcg_pct);
}

/* Whether a share of @pct accounts for a real part of @cost % of the time. */
static int accounts(double pct, double cost)
{
	return known(pct) && pct >= VERDICT_SHARE_MIN && pct >= VERDICT_CAUSE_PART * cost;
}

static void judge_fall(struct verdict *v)
{
	double pct;
	enum verdict_cause c;

	v->fall_pct = 100 * (1 - v->after_gbps / v->before_gbps);
	if (!shares_known(v)) {
		v->fall_cause = CAUSE_RECLAIM_COUNTED;	/* the detector saw reclaim run */
		v->kind = VERDICT_CLIFF;
		return;
	}
	c = top_share(v, &pct);
	v->fall_cause = c;
	v->fall_cause_pct = pct;
	v->kind = c != CAUSE_NONE && accounts(pct, v->fall_pct) ? VERDICT_CLIFF :
		  VERDICT_FALL_UNEXPLAINED;
}

/*
 * Whether more CPU per GiB explains a gap of @gap %: at the best mode's CPU
 * per GiB the mode would save 1 - best/its of its time, which must be a
 * real part of the gap, and the ratio VERDICT_CPU_RATIO at least.
 */
static int cpu_explains(const struct verdict_mode *m, const struct verdict_mode *best, double gap)
{
	double saved;

	if (!known(m->cpu_per_gib) || !known(best->cpu_per_gib) || !(best->cpu_per_gib > 0) ||
	    m->cpu_per_gib < VERDICT_CPU_RATIO * best->cpu_per_gib)
		return 0;
	saved = 100 * (1 - best->cpu_per_gib / m->cpu_per_gib);
	return saved >= VERDICT_CAUSE_PART * gap;
}

static void judge_gap(const struct verdict_mode *m, const struct verdict_mode *best,
		      struct verdict *v)
{
	double pct;
	enum verdict_cause c;

	if (!best || best == m || !known(m->det.vs_best) || m->det.vs_best >= DETECT_FALL_SHARE)
		return;
	v->gap = 1;
	v->gap_pct = 100 * (1 - m->det.vs_best);
	v->best_cpu_per_gib = best->cpu_per_gib;
	c = shares_known(v) ? top_share(v, &pct) : CAUSE_NONE;
	if (c != CAUSE_NONE && accounts(pct, v->gap_pct)) {
		v->gap_cause = c;
		v->gap_cause_pct = pct;
	} else if (cpu_explains(m, best, v->gap_pct)) {
		v->gap_cause = CAUSE_CPU_COPY;
	} else {
		v->gap_cause = CAUSE_UNKNOWN;
	}
}

static void judge_one(const struct verdict_mode *m, const struct verdict_mode *best,
		      const struct verdict_ctx *ctx, struct verdict *v)
{
	const struct detect_result *d = &m->det;

	memset(v, 0, sizeof(*v));
	v->before_gbps = d->before_gbps;
	v->after_gbps = d->after_gbps;
	v->at_gib = d->at_gib;
	v->growth_gbps = d->growth_gbps;
	v->fall_pct = v->fall_cause_pct = v->gap_pct = v->gap_cause_pct = NAN;
	v->best_gbps = d->best_gbps;
	v->best_name = best ? best->name : "";
	v->cpu_per_gib = m->cpu_per_gib;
	v->best_cpu_per_gib = NAN;
	v->direct_pct = d->direct_pct;
	v->memcg_pct = d->memcg_pct;
	v->lock_pct = d->lock_pct;
	v->throttle_pct = d->throttle_pct;
	v->kswapd_pct = d->kswapd_pct;
	v->reclaim_rate = d->reclaim_rate;
	v->limit = d->limit;
	v->peak_cache = d->peak_cache;
	if (ctx->memcg)
		v->reasons |= VR_MEMCG;
	if (!ctx->traced || !shares_known(v))
		v->reasons |= VR_UNTRACED;
	if (ctx->cpus && ctx->cpus < VERDICT_FEW_CPUS)
		v->reasons |= VR_FEW_CORES;
	if (d->growth_drop)
		v->reasons |= VR_FIRST_TOUCH;
	if (best == m)
		v->reasons |= VR_IS_BEST;
	switch (d->kind) {
	case DETECT_NO_DATA: v->kind = VERDICT_NO_DATA; break;
	case DETECT_NO_RECLAIM: v->kind = VERDICT_NO_RECLAIM; break;
	case DETECT_UNMEASURED: v->kind = VERDICT_UNMEASURED; break;
	case DETECT_HELD: v->kind = VERDICT_HELD; break;
	case DETECT_CLIFF: judge_fall(v); break;
	case DETECT_NOT_FULL:
		v->kind = VERDICT_NOT_FULL;
		if ((known(d->limit) && m->data_set < DETECT_FULL_SHARE * d->limit) ||
		    m->cache_grew >= m->data_set / 2)
			v->reasons |= VR_FITS;
		else if (m->cache_grew < m->bytes / 10)
			v->reasons |= VR_KEPT_SMALL;
		break;
	}
	v->cliff = v->kind == VERDICT_CLIFF;
	if (d->kind != DETECT_NO_DATA)
		judge_gap(m, best, v);
}

void verdict_judge(const struct verdict_mode *modes, size_t n, int best,
		   const struct verdict_ctx *ctx, struct verdict *ret)
{
	const struct verdict_mode *b = best >= 0 && (size_t)best < n ? &modes[best] : NULL;

	for (size_t i = 0; i < n; i++)
		judge_one(&modes[i], b, ctx, &ret[i]);
}

/* Words appended to a buffer, never past its end. */
struct words {
	char *buf;
	size_t len, n;
};

static void say(struct words *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(struct words *w, const char *fmt, ...)
{
	va_list ap;
	int k;

	if (w->n >= w->len)
		return;
	va_start(ap, fmt);
	k = vsnprintf(w->buf + w->n, w->len - w->n, fmt, ap);
	va_end(ap);
	if (k > 0)
		w->n = w->n + (size_t)k < w->len ? w->n + (size_t)k : w->len - 1;
}

static const char *who(const struct verdict_mode *m)
{
	return m->write ? "writers" : "readers";
}

/* "1.0 GiB" (or "no limit"). */
static const char *size_str(double bytes, char *buf, size_t len)
{
	static const char *units[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	int u = 0;

	if (!known(bytes))
		return "no limit";
	while (bytes >= 1024 && u < 4) {
		bytes /= 1024;
		u++;
	}
	snprintf(buf, len, u ? "%.1f %s" : "%.0f %s", bytes, units[u]);
	return buf;
}

/* The cache's limit: the cap, or without one all of free memory. */
static const char *limit_str(double limit, char *buf, size_t len)
{
	return known(limit) ? size_str(limit, buf, len) : "no cap: free memory";
}

/* Whose reclaim: in a memory cgroup it is the cgroup's, not the host's. */
static const char *reclaim_of(const struct verdict_ctx *ctx)
{
	return ctx->memcg ? "the memory cgroup's reclaim" : "reclaim";
}

static const char *cause_words(enum verdict_cause c)
{
	switch (c) {
	case CAUSE_DIRECT_RECLAIM: return "direct reclaim (the host's memory)";
	case CAUSE_MEMCG_RECLAIM: return "the memory cgroup's reclaim";
	case CAUSE_LOCKS: return "kernel lock waits";
	case CAUSE_THROTTLE: return "dirty throttling";
	default: return "?";
	}
}

/* "; measured once the cache was full: 0.0% of the readers' time in direct
 * reclaim, 2.6% in the memory cgroup's reclaim, 0.0% waiting on locks ...". */
static void say_shares(struct words *w, const struct verdict_mode *m, const struct verdict *v,
		       const struct verdict_ctx *ctx)
{
	if (v->reasons & VR_UNTRACED) {
		say(w, "; the %s' time in reclaim was not measured (kernel tracing %s)",
		    who(m), ctx->trace_why && ctx->trace_why[0] ? ctx->trace_why : "off");
		return;
	}
	say(w, "; measured once the cache was full: %.1f%% of the %s' time in direct reclaim",
	    known(v->direct_pct) ? v->direct_pct : 0, who(m));
	if (known(v->memcg_pct))
		say(w, ", %.1f%% in memory-cgroup reclaim", v->memcg_pct);
	if (known(v->lock_pct))
		say(w, ", %.1f%% waiting on locks", v->lock_pct);
	if (known(v->lock_pct) && v->lock_pct >= VERDICT_SHARE_MIN && m->top_lock && m->top_lock[0])
		say(w, " (most: %s)", m->top_lock);
	if (known(v->throttle_pct) && v->throttle_pct >= VERDICT_SHARE_MIN)
		say(w, ", %.1f%% in dirty throttling", v->throttle_pct);
	if (known(v->kswapd_pct))
		say(w, "; kswapd awake %.1f%% of its time", v->kswapd_pct);
}

/* Reclaim by the counters, with whose it was. */
static void say_reclaim(struct words *w, const struct verdict *v, const struct verdict_ctx *ctx)
{
	if (known(v->reclaim_rate))
		say(w, "; %s took %.0f pages/s", reclaim_of(ctx), v->reclaim_rate);
}

static void say_first_touch(struct words *w, const struct verdict *v)
{
	if (v->reasons & VR_FIRST_TOUCH)
		say(w, "; before the cache was full it ran at %.2f GB/s while the cache first grew "
		    "and nothing was reclaimed: the first touch of memory (on VMs, memory the host "
		    "took back by free page reporting), a rise once full, not a fall",
		    v->growth_gbps);
}

static void cliff_cause(struct words *w, const struct verdict_mode *m, const struct verdict *v,
			const struct verdict_ctx *ctx)
{
	if (v->fall_cause == CAUSE_RECLAIM_COUNTED) {
		say(w, "; cause inferred from counters (the reclaim above), its share of the %s' "
		    "time not measured (kernel tracing %s)", who(m),
		    ctx->trace_why && ctx->trace_why[0] ? ctx->trace_why : "off");
		if (known(m->kswapd_per_gib) && m->kswapd_per_gib > 0)
			say(w, ", kswapd used %.2f CPU s per GiB", m->kswapd_per_gib);
		return;
	}
	say(w, "; measured cause: %.1f%% of the %s' time in %s, against the %.0f%% of their "
	    "time the fall costs", v->fall_cause_pct, who(m), cause_words(v->fall_cause),
	    v->fall_pct);
	say_shares(w, m, v, ctx);
}

static void words_fall(struct words *w, const struct verdict_mode *m, const struct verdict *v,
		       const struct verdict_ctx *ctx)
{
	char lim[32];

	say(w, "%s: %s: fell from %.2f to %.2f GB/s (%.0f%% lower) once the page cache was full "
	    "(%s) after %.2f GiB", m->name, v->cliff ? "cliff" : "a fall, not the cliff",
	    v->before_gbps, v->after_gbps, v->fall_pct, limit_str(v->limit, lim, sizeof(lim)),
	    v->at_gib);
	say_reclaim(w, v, ctx);
	if (v->cliff) {
		cliff_cause(w, m, v, ctx);
		return;
	}
	say(w, "; no measured cause explains it: the fall costs %.0f%% of the %s' time",
	    v->fall_pct, who(m));
	say_shares(w, m, v, ctx);
}

static void words_held(struct words *w, const struct verdict_mode *m, const struct verdict *v,
		       const struct verdict_ctx *ctx)
{
	char lim[32];

	say(w, "%s: no cliff: %.2f GB/s once the page cache was full (%s, after %.2f GiB)",
	    m->name, v->after_gbps, limit_str(v->limit, lim, sizeof(lim)), v->at_gib);
	if (v->kind == VERDICT_HELD && known(v->before_gbps) && !(v->reasons & VR_FIRST_TOUCH))
		say(w, ", held against %.2f GB/s before", v->before_gbps);
	if (v->kind == VERDICT_UNMEASURED)
		say(w, "; it filled within the first interval, too soon to measure the mode "
		    "before it (a shorter --interval or a larger --mem-limit gives more intervals)");
	say_first_touch(w, v);
	say_reclaim(w, v, ctx);
	say_shares(w, m, v, ctx);
	if ((v->reasons & VR_FEW_CORES) && ctx->cpus)
		say(w, "; %u CPUs: too few for reclaim and readers to contend on the cache's lock "
		    "as on large machines", ctx->cpus);
}

static void words_not_full(struct words *w, const struct verdict_mode *m,
			   const struct verdict *v)
{
	char a[32], b[32];

	if (v->reasons & VR_FITS)
		say(w, "%s: no cliff: the data set (%s) fit in the page cache (%s); %.2f GB/s",
		    m->name, size_str(m->data_set, a, sizeof(a)), size_str(v->limit, b, sizeof(b)),
		    v->after_gbps);
	else if (v->reasons & VR_KEPT_SMALL)
		say(w, "%s: no cliff: this mode kept the page cache small (it grew by %s while %s "
		    "were %s), so nothing had to be reclaimed; %.2f GB/s throughout", m->name,
		    size_str(fmax(m->cache_grew, 0), a, sizeof(a)),
		    size_str(m->bytes, b, sizeof(b)), m->write ? "written" : "read",
		    v->after_gbps);
	else if (known(v->limit))
		say(w, "%s: no cliff: the page cache stayed at %s at most, below its limit of %s, "
		    "so nothing had to be reclaimed; %.2f GB/s", m->name,
		    size_str(v->peak_cache, a, sizeof(a)), size_str(v->limit, b, sizeof(b)),
		    v->after_gbps);
	else
		say(w, "%s: no cliff: nothing was reclaimed (use --mem-limit to cap the cache); "
		    "%.2f GB/s", m->name, v->after_gbps);
}

int verdict_cliff_words(const struct verdict_mode *m, const struct verdict *v,
			const struct verdict_ctx *ctx, char *buf, size_t len)
{
	struct words w = { buf, len, 0 };

	if (len)
		buf[0] = '\0';
	switch (v->kind) {
	case VERDICT_CLIFF:
	case VERDICT_FALL_UNEXPLAINED:
		words_fall(&w, m, v, ctx);
		break;
	case VERDICT_HELD:
	case VERDICT_UNMEASURED:
		words_held(&w, m, v, ctx);
		break;
	case VERDICT_NOT_FULL:
		words_not_full(&w, m, v);
		break;
	case VERDICT_NO_RECLAIM:
		say(&w, "%s: no cliff: the page cache reached its limit but nothing was "
		    "reclaimed; %.2f GB/s", m->name, v->after_gbps);
		break;
	case VERDICT_NO_DATA:
		say(&w, "%s: no verdict: fewer than two intervals", m->name);
		break;
	}
	return (int)w.n;
}

int verdict_gap_words(const struct verdict_mode *m, const struct verdict *v,
		      const struct verdict_ctx *ctx, char *buf, size_t len)
{
	struct words w = { buf, len, 0 };

	if (len)
		buf[0] = '\0';
	if (!v->gap)
		return 0;
	say(&w, "%s: gap: %.0f%% slower than %s (%.2f against %.2f GB/s)", m->name, v->gap_pct,
	    v->best_name, v->after_gbps, v->best_gbps);
	switch (v->gap_cause) {
	case CAUSE_CPU_COPY:
		say(&w, ", from more CPU per GiB: %.2f CPU s per GiB against %.2f", v->cpu_per_gib,
		    v->best_cpu_per_gib);
		if (v->reasons & VR_UNTRACED)
			say(&w, " (the copy through the page cache and reclaim, not split: kernel "
			    "tracing %s)", ctx->trace_why && ctx->trace_why[0] ? ctx->trace_why :
			    "off");
		else
			say(&w, ", the copy through the page cache, not reclaim or locks "
			    "(%.1f%% of the %s' time in them at most)",
			    fmax(fmax(known(v->direct_pct) ? v->direct_pct : 0,
				      known(v->memcg_pct) ? v->memcg_pct : 0),
				 known(v->lock_pct) ? v->lock_pct : 0), who(m));
		break;
	case CAUSE_UNKNOWN:
		if (v->cpu_per_gib > 0 && v->best_cpu_per_gib > 0)
			say(&w, "; no measured cause explains it (%.2f CPU s per GiB against %.2f)",
			    v->cpu_per_gib, v->best_cpu_per_gib);
		else
			say(&w, "; no measured cause explains it (CPU per GiB not measured)");
		break;
	default:
		say(&w, ", from %s: %.1f%% of the %s' time", cause_words(v->gap_cause),
		    v->gap_cause_pct, who(m));
		break;
	}
	return (int)w.n;
}

/* The mode the summary speaks of: a cliff first, else one whose cache filled. */
static int summary_mode(const struct verdict *v, size_t n)
{
	int pick = -1;

	for (size_t i = 0; i < n; i++) {
		if (v[i].cliff)
			return (int)i;
		if (pick < 0 && (v[i].kind == VERDICT_HELD || v[i].kind == VERDICT_UNMEASURED ||
				 v[i].kind == VERDICT_FALL_UNEXPLAINED))
			pick = (int)i;
	}
	return pick;
}

/* Why there is no cliff here, from the figures. */
static void summary_why_not(struct words *w, const struct verdict_mode *m,
			    const struct verdict *v, const struct verdict_ctx *ctx)
{
	say(w, "%s ran at %.2f GB/s with the cache full", m->name, v->after_gbps);
	if (v->kind == VERDICT_FALL_UNEXPLAINED)
		say(w, " (%.0f%% below its own %.2f GB/s before, which no measured cause explains)",
		    v->fall_pct, v->before_gbps);
	else if (v->kind == VERDICT_UNMEASURED)
		say(w, " (full within the first interval: not compared with before)");
	else if (v->reasons & VR_FIRST_TOUCH)
		say(w, " (faster than the %.2f GB/s of the cache's first growth)", v->growth_gbps);
	if (!(v->reasons & VR_UNTRACED))
		say(w, ", with %.1f%% of the %s' time in reclaim",
		    (known(v->direct_pct) ? v->direct_pct : 0) +
		    (known(v->memcg_pct) ? v->memcg_pct : 0), who(m));
	if ((v->reasons & VR_FEW_CORES) && ctx->cpus)
		say(w, "; %u CPUs are too few for the lock contention of large machines",
		    ctx->cpus);
}

int verdict_summary(const struct verdict_mode *modes, const struct verdict *v, size_t n,
		    int best, const struct verdict_ctx *ctx, char *buf, size_t len)
{
	struct words w = { buf, len, 0 };
	int s = summary_mode(v, n), g = -1;

	if (len)
		buf[0] = '\0';
	for (size_t i = 0; i < n; i++)
		if (v[i].gap && (g < 0 || v[i].gap_pct > v[g].gap_pct))
			g = (int)i;
	if (s < 0) {
		say(&w, "summary: no cliff measured: no mode filled the page cache and had it "
		    "reclaimed");
	} else if (v[s].cliff) {
		say(&w, "summary: cliff: %s fell %.0f%% (%.2f to %.2f GB/s) once the page cache "
		    "was full, ", modes[s].name, v[s].fall_pct, v[s].before_gbps, v[s].after_gbps);
		if (v[s].fall_cause == CAUSE_RECLAIM_COUNTED)
			say(&w, "with %s running (inferred from counters)", reclaim_of(ctx));
		else
			say(&w, "from %s (%.1f%% of the %s' time)", cause_words(v[s].fall_cause),
			    v[s].fall_cause_pct, who(&modes[s]));
	} else {
		say(&w, "summary: no cliff on this machine: ");
		summary_why_not(&w, &modes[s], &v[s], ctx);
	}
	if (g >= 0)
		say(&w, "; %s is %.0f%% slower than %s, %s", modes[g].name, v[g].gap_pct,
		    v[g].best_name, v[g].gap_cause == CAUSE_CPU_COPY ? "from more CPU per GiB" :
		    v[g].gap_cause == CAUSE_UNKNOWN ? "for no measured cause" : "from");
	if (g >= 0 && v[g].gap_cause != CAUSE_CPU_COPY && v[g].gap_cause != CAUSE_UNKNOWN)
		say(&w, " %s", cause_words(v[g].gap_cause));
	if (best < 0 || (size_t)best >= n)
		return (int)w.n;
	if (!strcmp(modes[best].name, pc_strategy_name(PC_BUFFERED)) && s < 0)
		say(&w, "; buffered was the fastest mode while the data fit (%.2f GB/s): a larger "
		    "--size or a --mem-limit fills the cache", v[best].after_gbps);
	else if (!strcmp(modes[best].name, pc_strategy_name(PC_BUFFERED)))
		say(&w, "; buffered is the fastest mode here (%.2f GB/s) with the cache full: "
		    "nothing to tune on this machine", v[best].after_gbps);
	else
		say(&w, "; for data %s once use %s (%.2f GB/s here: pagecliff cat, cp, run or the "
		    "library)", modes[best].write ? "written" : "read", modes[best].name,
		    v[best].after_gbps);
	return (int)w.n;
}
