// SPDX-License-Identifier: MIT
/*
 * doctor's proactive-reclaim checks: what evicts page cache behind every
 * tool's back.  DAMON schemes configured through sysfs (kdamonds, their
 * contexts and schemes, with thresholds computed from the files), the
 * DAMON_RECLAIM module, and cgroup memory.reclaim as far as /proc/vmstat
 * counts it.  Read through sample.c under d->root, so fixtures test it.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "doctor.h"
#include "sample.h"

#define DAMON_ADMIN "/sys/kernel/mm/damon/admin/kdamonds"
#define DAMON_RECLAIM_PARAMS "/sys/module/damon_reclaim/parameters"
/* more would be a hand-made tree, not a host: stop reading there */
#define DAMON_MAX 64

/* Whether a finding about the page cache's safety from reclaim was made. */
struct reclaim_seen {
	int evicting;			/* something evicts page cache: warn made */
	char damon[160];		/* what DAMON's sysfs said, for the summary */
	char module[96];		/* what DAMON_RECLAIM said */
	char vmstat[96];		/* what memory.reclaim's counter said */
	int known;			/* at least one source could be read */
};

/* The text of the file named by @fmt under d->root; 0 or -errno. */
static int read_textf(struct doctor *d, char *buf, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int read_textf(struct doctor *d, char *buf, size_t size, const char *fmt, ...)
{
	char path[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(path, sizeof(path), fmt, ap);
	va_end(ap);
	return sample_read_text(d->root, path, buf, size);
}

/* The number in the file named by @fmt, or SAMPLE_UNKNOWN. */
static uint64_t read_u64f(struct doctor *d, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static uint64_t read_u64f(struct doctor *d, const char *fmt, ...)
{
	char path[512];
	uint64_t v;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(path, sizeof(path), fmt, ap);
	va_end(ap);
	return sample_read_u64(d->root, path, &v) ? SAMPLE_UNKNOWN : v;
}

/* A duration in microseconds as "60 s", "500 ms", "250 us" or "unknown". */
static const char *dur_us(uint64_t us, char *buf, size_t size)
{
	if (!sample_known(us))
		snprintf(buf, size, "unknown");
	else if (us >= 120000000 && us % 60000000 == 0)
		snprintf(buf, size, "%llu min", (unsigned long long)(us / 60000000));
	else if (us >= 1000000 && us % 1000000 == 0)
		snprintf(buf, size, "%llu s", (unsigned long long)(us / 1000000));
	else if (us >= 1000 && us % 1000 == 0)
		snprintf(buf, size, "%llu ms", (unsigned long long)(us / 1000));
	else
		snprintf(buf, size, "%llu us", (unsigned long long)us);
	return buf;
}

/* A byte count as "128 MiB" when it is a whole number of units, else bytes. */
static const char *bytes_str(uint64_t b, char *buf, size_t size)
{
	static const char *const unit[] = { "KiB", "MiB", "GiB", "TiB" };
	int u = -1;

	while (b && b % 1024 == 0 && u < 3) {
		b /= 1024;
		u++;
	}
	if (u < 0)
		snprintf(buf, size, "%llu bytes", (unsigned long long)b);
	else
		snprintf(buf, size, "%llu %s", (unsigned long long)b, unit[u]);
	return buf;
}

/* One DAMON-based operation scheme, as sysfs shows it. */
struct damos {
	char dir[128];			/* .../kdamonds/K/contexts/C/schemes/S */
	char action[32];
	uint64_t age_min, acc_min, acc_max;
	uint64_t quota_bytes, quota_ms, quota_reset_ms;
	char wmark_metric[32];
	uint64_t wmark_high, wmark_mid, wmark_low;
	int cache;			/* unmapped page cache: 1 acted on, 0 spared, -1 depends */
	char filters[160];		/* "anon reject, unmapped allow" */
	uint64_t sz_applied;
};

/*
 * Whether a filter of @type (@matching as set) matches a clean page-cache
 * page nobody maps, what read(2) leaves behind: 1 it does, 0 it does not,
 * -1 it depends on the page (memcg, address, young, active...).
 */
static int filter_matches_cache(const char *type, int matching)
{
	if (!strcmp(type, "anon"))
		return !matching;
	if (!strcmp(type, "unmapped"))
		return matching;
	return -1;
}

/*
 * One filter list (core_filters, ops_filters, filters) as the kernel walks
 * it for such a page: the first filter that matches decides (allow or
 * reject); when none does, the page is rejected if the last one allows.
 * Returns 1 passes, 0 rejected, -1 depends; appends the list to s->filters.
 */
static int walk_filters(struct doctor *d, struct damos *s, const char *list)
{
	uint64_t n = read_u64f(d, "%s/%s/nr_filters", s->dir, list);
	int verdict = 2, last_allow = 0;

	for (uint64_t i = 0; sample_known(n) && i < n && i < DAMON_MAX; i++) {
		char type[32] = "?", matching[8] = "?", allow[8] = "?";
		size_t len = strlen(s->filters);
		int m;

		read_textf(d, type, sizeof(type), "%s/%s/%llu/type", s->dir, list,
			   (unsigned long long)i);
		read_textf(d, matching, sizeof(matching), "%s/%s/%llu/matching", s->dir,
			   list, (unsigned long long)i);
		read_textf(d, allow, sizeof(allow), "%s/%s/%llu/allow", s->dir, list,
			   (unsigned long long)i);
		last_allow = allow[0] == 'Y';
		snprintf(s->filters + len, sizeof(s->filters) - len, "%s%s%s %s",
			 len ? ", " : "", matching[0] == 'N' ? "non-" : "", type,
			 last_allow ? "allow" : "reject");
		m = filter_matches_cache(type, matching[0] == 'Y');
		if (verdict == 2 && m < 0)
			verdict = -1;
		else if (verdict == 2 && m > 0)
			verdict = last_allow;
	}
	if (verdict == 2)
		verdict = !last_allow;
	return verdict;
}

static void read_scheme(struct doctor *d, struct damos *s)
{
	read_textf(d, s->action, sizeof(s->action), "%s/action", s->dir);
	s->age_min = read_u64f(d, "%s/access_pattern/age/min", s->dir);
	s->acc_min = read_u64f(d, "%s/access_pattern/nr_accesses/min", s->dir);
	s->acc_max = read_u64f(d, "%s/access_pattern/nr_accesses/max", s->dir);
	s->quota_bytes = read_u64f(d, "%s/quotas/bytes", s->dir);
	s->quota_ms = read_u64f(d, "%s/quotas/ms", s->dir);
	s->quota_reset_ms = read_u64f(d, "%s/quotas/reset_interval_ms", s->dir);
	if (read_textf(d, s->wmark_metric, sizeof(s->wmark_metric), "%s/watermarks/metric",
		       s->dir))
		snprintf(s->wmark_metric, sizeof(s->wmark_metric), "unknown");
	s->wmark_high = read_u64f(d, "%s/watermarks/high", s->dir);
	s->wmark_mid = read_u64f(d, "%s/watermarks/mid", s->dir);
	s->wmark_low = read_u64f(d, "%s/watermarks/low", s->dir);
	s->sz_applied = read_u64f(d, "%s/stats/sz_applied", s->dir);
	static const char *const lists[] = { "core_filters", "ops_filters", "filters" };
	int depends = 0, rejected = 0;

	s->filters[0] = '\0';
	for (size_t i = 0; i < sizeof(lists) / sizeof(lists[0]); i++) {
		int v = walk_filters(d, s, lists[i]);

		rejected |= v == 0;
		depends |= v < 0;
	}
	/* a page must pass every list */
	s->cache = rejected ? 0 : depends ? -1 : 1;
}

/* What an action does to idle memory, or NULL when it evicts nothing. */
static const char *action_verb(const char *action)
{
	static const char *const verbs[][2] = {
		{ "pageout", "pages out" },
		{ "lru_deprio", "moves to the inactive list (reclaimed first)" },
		{ "cold", "marks cold (reclaimed first)" },
		{ "migrate_cold", "migrates to another NUMA node" },
	};

	for (size_t i = 0; i < sizeof(verbs) / sizeof(verbs[0]); i++) {
		if (!strcmp(action, verbs[i][0]))
			return verbs[i][1];
	}
	return NULL;
}

/* "up to 128 MiB and 50 ms of CPU per 1 s", or "no quota". */
static void quota_str(const struct damos *s, char *buf, size_t size)
{
	int has_b = sample_known(s->quota_bytes) && s->quota_bytes;
	int has_t = sample_known(s->quota_ms) && s->quota_ms;
	unsigned long long ms = has_t ? s->quota_ms : 0;
	char b[32], r[32];

	bytes_str(s->quota_bytes, b, sizeof(b));
	dur_us(sample_known(s->quota_reset_ms) ? s->quota_reset_ms * 1000 : SAMPLE_UNKNOWN,
	       r, sizeof(r));
	if (has_b && has_t)
		snprintf(buf, size, "up to %s and %llu ms of CPU per %s", b, ms, r);
	else if (has_b)
		snprintf(buf, size, "up to %s per %s", b, r);
	else if (has_t)
		snprintf(buf, size, "up to %llu ms of CPU per %s", ms, r);
	else
		snprintf(buf, size, "no quota");
}

/* The watermarks: "always active", or when they let it run. */
static void wmark_str(const struct damos *s, char *buf, size_t size)
{
	if (!strcmp(s->wmark_metric, "none"))
		snprintf(buf, size, "no watermarks: always active");
	else
		snprintf(buf, size, "watermarks: active once %s falls below %llu (mid) until "
			 "it rises above %llu (high), never below %llu (low) per mille",
			 s->wmark_metric, (unsigned long long)s->wmark_mid,
			 (unsigned long long)s->wmark_high, (unsigned long long)s->wmark_low);
}

struct kdamond {
	unsigned int k, c;		/* kdamond and context index */
	char state[16];
	char ops[16];			/* paddr, vaddr, fvaddr */
	uint64_t sample_us, aggr_us, refresh_ms;
};

/* Samples DAMON takes per aggregation interval: the most nr_accesses can be. */
static uint64_t samples_per_aggr(const struct kdamond *kd)
{
	if (!sample_known(kd->aggr_us) || !sample_known(kd->sample_us) || !kd->sample_us)
		return SAMPLE_UNKNOWN;
	return kd->aggr_us / kd->sample_us;
}

/*
 * "idle" for a scheme that takes regions seen accessed in at most a tenth
 * of the samples, else the plain "with the access pattern".
 */
static const char *idle_word(const struct damos *s, const struct kdamond *kd)
{
	uint64_t n = samples_per_aggr(kd);

	if (sample_known(s->acc_max) && sample_known(n) && s->acc_max * 10 <= n)
		return "idle";
	return "of a steady access rate";
}

static const char *cache_str(int cache)
{
	return cache > 0 ? "acted on" : cache == 0 ? "spared" : "depends on the filters";
}

/* The finding of scheme @si of context @kd: one line with its thresholds. */
static void report_scheme(struct doctor *d, const struct kdamond *kd, unsigned int si,
			  const struct damos *s, struct reclaim_seen *seen)
{
	const char *verb = action_verb(s->action);
	char id[96], idle[32], aggr[32], samp[32], nsamp[24], quota[128], wm[160];
	char applied[96];
	int active = !strcmp(kd->state, "on");
	int global = !strcmp(kd->ops, "paddr");
	int evicts = active && global && !strcmp(s->action, "pageout") && s->cache != 0;
	uint64_t idle_us = sample_known(s->age_min) && sample_known(kd->aggr_us) ?
			   s->age_min * kd->aggr_us : SAMPLE_UNKNOWN;
	struct finding *f;

	if (!verb)
		return;
	snprintf(id, sizeof(id), "memory.damon.%u.%u.%u", kd->k, kd->c, si);
	dur_us(idle_us, idle, sizeof(idle));
	dur_us(kd->aggr_us, aggr, sizeof(aggr));
	dur_us(kd->sample_us, samp, sizeof(samp));
	quota_str(s, quota, sizeof(quota));
	wmark_str(s, wm, sizeof(wm));
	f = doctor_add(d, evicts ? DOCTOR_WARN : DOCTOR_INFO, "memory", id,
		       "DAMON kdamond %u %s memory %s >= %s (%llu x %s aggregation), %s%s",
		       kd->k, verb, idle_word(s, kd), idle, (unsigned long long)s->age_min,
		       aggr, quota,
		       !active ? " (kdamond off)" : !global ? " (its targets' mappings only)" :
		       s->cache == 0 ? " (not page cache)" : "");
	if (kd->refresh_ms && sample_known(kd->refresh_ms) && sample_known(s->sz_applied))
		snprintf(applied, sizeof(applied), "applied to %llu bytes so far",
			 (unsigned long long)s->sz_applied);
	else
		snprintf(applied, sizeof(applied), "bytes applied unknown (stats not refreshed)");
	finding_evidence(f, "%s: state %s, operations %s, sampling %s; action %s, age >= %llu, "
			 "accessed in %llu to %llu of %s samples per aggregation; %s; filters %s: "
			 "unmapped page cache %s; %s", s->dir, kd->state, kd->ops, samp,
			 s->action, (unsigned long long)s->age_min, (unsigned long long)s->acc_min,
			 (unsigned long long)s->acc_max, count_str(samples_per_aggr(kd), nsamp,
			 sizeof(nsamp)), wm, s->filters[0] ? s->filters : "none",
			 cache_str(s->cache), applied);
	if (evicts) {
		seen->evicting = 1;
		finding_action(f, "page cache idle for %s is evicted behind every tool's back: "
			       "warm files right before measuring them, and count cache lost after "
			       "%s as DAMON's, not the workload's; to pause it for a measurement "
			       "(root): echo off > " DAMON_ADMIN "/%u/state, and on again after",
			       idle, idle, kd->k);
	} else {
		finding_action(f, "no effect on streams through the page cache now; it would "
			       "have one when on, on physical memory, for unmapped file pages");
	}
}

static void check_context(struct doctor *d, struct kdamond *kd, struct reclaim_seen *seen)
{
	char base[96];
	uint64_t n;

	snprintf(base, sizeof(base), DAMON_ADMIN "/%u/contexts/%u", kd->k, kd->c);
	if (read_textf(d, kd->ops, sizeof(kd->ops), "%s/operations", base))
		snprintf(kd->ops, sizeof(kd->ops), "unknown");
	kd->sample_us = read_u64f(d, "%s/monitoring_attrs/intervals/sample_us", base);
	kd->aggr_us = read_u64f(d, "%s/monitoring_attrs/intervals/aggr_us", base);
	n = read_u64f(d, "%s/schemes/nr_schemes", base);
	for (unsigned int s = 0; sample_known(n) && s < n && s < DAMON_MAX; s++) {
		struct damos sc;

		snprintf(sc.dir, sizeof(sc.dir), "%s/schemes/%u", base, s);
		read_scheme(d, &sc);
		report_scheme(d, kd, s, &sc, seen);
	}
}

static void check_damon_sysfs(struct doctor *d, struct reclaim_seen *seen)
{
	uint64_t n = read_u64f(d, DAMON_ADMIN "/nr_kdamonds");
	unsigned int on = 0;

	if (!sample_known(n)) {
		snprintf(seen->damon, sizeof(seen->damon), "DAMON: no " DAMON_ADMIN);
		return;
	}
	seen->known = 1;
	for (unsigned int k = 0; k < n && k < DAMON_MAX; k++) {
		struct kdamond kd = { .k = k };
		uint64_t nc;

		if (read_textf(d, kd.state, sizeof(kd.state), DAMON_ADMIN "/%u/state", k))
			snprintf(kd.state, sizeof(kd.state), "unknown");
		on += !strcmp(kd.state, "on");
		kd.refresh_ms = read_u64f(d, DAMON_ADMIN "/%u/refresh_ms", k);
		nc = read_u64f(d, DAMON_ADMIN "/%u/contexts/nr_contexts", k);
		for (kd.c = 0; sample_known(nc) && kd.c < nc && kd.c < DAMON_MAX; kd.c++)
			check_context(d, &kd, seen);
	}
	snprintf(seen->damon, sizeof(seen->damon), "DAMON: %llu kdamonds, %u on",
		 (unsigned long long)n, on);
}

/* The parameters of the DAMON_RECLAIM module that decide what it evicts. */
struct damon_reclaim {
	uint64_t min_age_us, quota_sz, quota_reset_ms, wmarks_mid, wmarks_low;
};

static void report_damon_reclaim(struct doctor *d, const struct damon_reclaim *r)
{
	char age[32], quota[32], reset[32], n[5][24];
	struct finding *f;

	dur_us(r->min_age_us, age, sizeof(age));
	if (sample_known(r->quota_sz) && r->quota_sz)
		bytes_str(r->quota_sz, quota, sizeof(quota));
	else
		snprintf(quota, sizeof(quota), "no byte quota");
	dur_us(sample_known(r->quota_reset_ms) ? r->quota_reset_ms * 1000 : SAMPLE_UNKNOWN,
	       reset, sizeof(reset));
	f = doctor_add(d, DOCTOR_WARN, "memory", "memory.damon_reclaim",
		       "DAMON_RECLAIM pages out memory idle >= %s, up to %s per %s", age,
		       quota, reset);
	finding_evidence(f, DAMON_RECLAIM_PARAMS ": enabled Y, min_age %s us, quota_sz %s, "
			 "quota_reset_interval_ms %s; it runs while free memory is below "
			 "wmarks_mid (%s per mille) and above wmarks_low (%s per mille)",
			 count_str(r->min_age_us, n[0], sizeof(n[0])),
			 count_str(r->quota_sz, n[1], sizeof(n[1])),
			 count_str(r->quota_reset_ms, n[2], sizeof(n[2])),
			 count_str(r->wmarks_mid, n[3], sizeof(n[3])),
			 count_str(r->wmarks_low, n[4], sizeof(n[4])));
	finding_action(f, "page cache left idle that long is evicted behind every tool's back "
		       "when free memory is low: warm files right before measuring them");
}

/* The DAMON_RECLAIM module: its own kdamond, not in the admin tree. */
static void check_damon_reclaim(struct doctor *d, struct reclaim_seen *seen)
{
	const char *p = DAMON_RECLAIM_PARAMS;
	struct damon_reclaim r;
	char on[8];

	if (read_textf(d, on, sizeof(on), "%s/enabled", p)) {
		snprintf(seen->module, sizeof(seen->module), "DAMON_RECLAIM: no %s", p);
		return;
	}
	seen->known = 1;
	if (on[0] != 'Y') {
		snprintf(seen->module, sizeof(seen->module), "DAMON_RECLAIM: enabled = %s", on);
		return;
	}
	r.min_age_us = read_u64f(d, "%s/min_age", p);
	r.quota_sz = read_u64f(d, "%s/quota_sz", p);
	r.quota_reset_ms = read_u64f(d, "%s/quota_reset_interval_ms", p);
	r.wmarks_mid = read_u64f(d, "%s/wmarks_mid", p);
	r.wmarks_low = read_u64f(d, "%s/wmarks_low", p);
	report_damon_reclaim(d, &r);
	seen->evicting = 1;
}

/* memory.reclaim writers cannot be seen, but the kernel counts what they took. */
static void check_proactive_vmstat(struct doctor *d, struct reclaim_seen *seen)
{
	unsigned long long v;
	struct finding *f;
	char *text, *p;

	if (sample_slurp(d->root, "/proc/vmstat", &text)) {
		snprintf(seen->vmstat, sizeof(seen->vmstat), "memory.reclaim: no /proc/vmstat");
		return;
	}
	p = strstr(text, "\npgsteal_proactive ");
	if (!p || sscanf(p, " pgsteal_proactive %llu", &v) != 1) {
		snprintf(seen->vmstat, sizeof(seen->vmstat),
			 "memory.reclaim: no pgsteal_proactive in /proc/vmstat");
		free(text);
		return;
	}
	free(text);
	seen->known = 1;
	snprintf(seen->vmstat, sizeof(seen->vmstat), "memory.reclaim: pgsteal_proactive %llu "
		 "since boot", v);
	if (!v)
		return;
	f = doctor_add(d, DOCTOR_INFO, "memory", "memory.reclaim_proactive",
		       "memory.reclaim took %llu pages since boot", v);
	finding_evidence(f, "/proc/vmstat pgsteal_proactive %llu: a user-space agent (senpai, "
			 "TMO and the like) or an admin wrote to a cgroup's memory.reclaim", v);
	finding_action(f, "such agents shrink cgroups' page cache on their own schedule: "
		       "look for one before trusting a cache measurement");
}

void doctor_check_reclaim(struct doctor *d)
{
	struct reclaim_seen seen = { 0 };
	struct finding *f;

	check_damon_sysfs(d, &seen);
	check_damon_reclaim(d, &seen);
	check_proactive_vmstat(d, &seen);
	if (seen.evicting)
		return;
	f = doctor_add(d, seen.known ? DOCTOR_OK : DOCTOR_INFO, "memory", "memory.proactive",
		       seen.known ? "no proactive reclaim of page cache seen" :
		       "proactive reclaim unknown");
	finding_evidence(f, "%s; %s; %s", seen.damon, seen.module, seen.vmstat);
}
