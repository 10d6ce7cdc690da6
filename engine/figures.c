// SPDX-License-Identifier: MIT
/*
 * The catalogue of figures (figures.h): every figure of the system that
 * watch and bench show, with its unit, where it is read and its name in
 * each output, and the one function that reads a value where a row says.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <unistd.h>

#include "figures.h"
#include "sample.h"
#include "trace.h"

#define SAMPLE_OF(kind, f) { FIGURE_##kind, offsetof(struct sample, f), 0 }
#define SAMPLE(f) SAMPLE_OF(SAMPLE, f)
#define PAGES(f) SAMPLE_OF(SAMPLE_PAGES, f)
#define DELTA(f) { FIGURE_DELTA, offsetof(struct sample_delta, f), 0 }
#define DELTA_DIV(f, div) { FIGURE_DELTA, offsetof(struct sample_delta, f), div }
#define SHARES(f) { FIGURE_SHARES, offsetof(struct trace_shares, f), 0 }
#define TRACED(kind) { FIGURE_TRACE_NS, kind, 0 }

/* OpenMetrics: base units (bytes, seconds) in the name, counters cumulative. */
static const struct figure_family
	om_cache = { "pagecliff_page_cache_bytes", FIGURE_GAUGE, "bytes",
		"Page cache (Cached in /proc/meminfo).", NULL },
	om_active = { "pagecliff_active_file_bytes", FIGURE_GAUGE, "bytes",
		"File pages on the active LRU list.", NULL },
	om_inactive = { "pagecliff_inactive_file_bytes", FIGURE_GAUGE, "bytes",
		"File pages on the inactive LRU list.", NULL },
	om_dirty = { "pagecliff_dirty_bytes", FIGURE_GAUGE, "bytes",
		"Dirty page cache waiting for writeback.", NULL },
	om_wb = { "pagecliff_writeback_bytes", FIGURE_GAUGE, "bytes",
		"Page cache under writeback.", NULL },
	om_scan = { "pagecliff_reclaim_scanned_bytes", FIGURE_COUNTER, "bytes",
		"Memory scanned by reclaim (pgscan_direct, pgscan_kswapd).", "reclaimer" },
	om_steal = { "pagecliff_reclaim_reclaimed_bytes", FIGURE_COUNTER, "bytes",
		"Memory reclaimed (pgsteal_direct, pgsteal_kswapd).", "reclaimer" },
	om_fscan = { "pagecliff_file_reclaim_scanned_bytes", FIGURE_COUNTER, "bytes",
		"File pages scanned by reclaim (pgscan_file).", NULL },
	om_fsteal = { "pagecliff_file_reclaim_reclaimed_bytes", FIGURE_COUNTER, "bytes",
		"File pages reclaimed (pgsteal_file).", NULL },
	om_stalls = { "pagecliff_allocation_stalls", FIGURE_COUNTER, "",
		"Allocations that entered direct reclaim (allocstall).", NULL },
	om_some = { "pagecliff_memory_pressure_some_seconds", FIGURE_COUNTER, "seconds",
		"Time some task stalled on memory (PSI some total).", NULL },
	om_full = { "pagecliff_memory_pressure_full_seconds", FIGURE_COUNTER, "seconds",
		"Time all tasks stalled on memory (PSI full total).", NULL },
	om_kswapd = { "pagecliff_kswapd_cpu_seconds", FIGURE_COUNTER, "seconds",
		"CPU time of the kswapd threads.", NULL },
	om_cg_file = { "pagecliff_cgroup_file_bytes", FIGURE_GAUGE, "bytes",
		"Page cache charged to the memory cgroup.", NULL },
	om_cg_usage = { "pagecliff_cgroup_usage_bytes", FIGURE_GAUGE, "bytes",
		"Memory charged to the memory cgroup.", NULL },
	om_cg_limit = { "pagecliff_cgroup_limit_bytes", FIGURE_GAUGE, "bytes",
		"The memory cgroup's limit (absent when unlimited).", NULL },
	om_cg_scan = { "pagecliff_cgroup_reclaim_scanned_bytes", FIGURE_COUNTER, "bytes",
		"Memory of the cgroup scanned by reclaim.", NULL },
	om_direct = { "pagecliff_direct_reclaim_seconds", FIGURE_COUNTER, "seconds",
		"Time threads spent in direct reclaim, all threads added up.", NULL },
	om_memcg = { "pagecliff_memcg_reclaim_seconds", FIGURE_COUNTER, "seconds",
		"Time threads spent in memory-cgroup reclaim, all threads added up.", NULL },
	om_lock = { "pagecliff_lock_wait_seconds", FIGURE_COUNTER, "seconds",
		"Time threads waited for contended kernel locks, all threads added up.", NULL },
	om_throttle = { "pagecliff_dirty_throttle_seconds", FIGURE_COUNTER, "seconds",
		"Time writers were paused in balance_dirty_pages.", NULL },
	om_awake = { "pagecliff_kswapd_awake_seconds", FIGURE_COUNTER, "seconds",
		"Time kswapd was awake, all nodes added up.", NULL };

/* A level of the sample: watch's, and OpenMetrics' gauge. */
#define LEVEL(grp, f, txt, k, om) \
	{ grp, FIGURE_BYTES, SAMPLE(f), txt, k, NULL, NULL, &om, NULL, SAMPLE(f) }
/* A rate of a page counter: watch's and bench's, OpenMetrics' bytes counter. */
#define PAGE_RATE(grp, f, txt, k, bench, om, lbl, tot) \
	{ grp, FIGURE_PAGES_S, DELTA(f), txt, k, bench, bench, om, lbl, PAGES(tot) }
/* A share of the CPU: watch's and bench's; NULL where one leaves it out. */
#define CPU(f, txt, k, bench) \
	{ FIGURE_SYSTEM, FIGURE_PCT, DELTA(f), txt, k, bench, bench, NULL, NULL, { 0 } }
#define TRACE_MS(f, txt, k, kind, om) \
	{ FIGURE_TRACE, FIGURE_MS_S, SHARES(f), txt, k, NULL, NULL, &om, NULL, TRACED(kind) }

const struct figure figures[FIGURE_N] = {
	[FIGURE_CACHE] = LEVEL(FIGURE_SYSTEM, mem.cached, "cache", "cache_bytes", om_cache),
	[FIGURE_ACTIVE_FILE] = LEVEL(FIGURE_SYSTEM, mem.active_file, "active",
				     "active_file_bytes", om_active),
	[FIGURE_INACTIVE_FILE] = LEVEL(FIGURE_SYSTEM, mem.inactive_file, "inactive",
				       "inactive_file_bytes", om_inactive),
	[FIGURE_DIRTY] = LEVEL(FIGURE_SYSTEM, mem.dirty, "dirty", "dirty_bytes", om_dirty),
	[FIGURE_WRITEBACK] = LEVEL(FIGURE_SYSTEM, mem.writeback, "writeback", "writeback_bytes",
				   om_wb),
	[FIGURE_PGSCAN_DIRECT] = PAGE_RATE(FIGURE_SYSTEM, pgscan_direct, "scan.direct/s",
		"pgscan_direct_s", "pgscan_direct_s", &om_scan, "direct", vm.pgscan_direct),
	[FIGURE_PGSTEAL_DIRECT] = PAGE_RATE(FIGURE_SYSTEM, pgsteal_direct, "steal.direct/s",
		"pgsteal_direct_s", "pgsteal_direct_s", &om_steal, "direct", vm.pgsteal_direct),
	[FIGURE_PGSCAN_KSWAPD] = PAGE_RATE(FIGURE_SYSTEM, pgscan_kswapd, "scan.kswapd/s",
		"pgscan_kswapd_s", "pgscan_kswapd_s", &om_scan, "kswapd", vm.pgscan_kswapd),
	[FIGURE_PGSTEAL_KSWAPD] = PAGE_RATE(FIGURE_SYSTEM, pgsteal_kswapd, "steal.kswapd/s",
		"pgsteal_kswapd_s", "pgsteal_kswapd_s", &om_steal, "kswapd", vm.pgsteal_kswapd),
	[FIGURE_PGSCAN_FILE] = PAGE_RATE(FIGURE_SYSTEM, pgscan_file, "scan.file/s",
		"pgscan_file_s", NULL, &om_fscan, NULL, vm.pgscan_file),
	[FIGURE_PGSTEAL_FILE] = PAGE_RATE(FIGURE_SYSTEM, pgsteal_file, "steal.file/s",
		"pgsteal_file_s", NULL, &om_fsteal, NULL, vm.pgsteal_file),
	[FIGURE_ALLOCSTALL] = { FIGURE_SYSTEM, FIGURE_EVENTS_S, DELTA(allocstall), "stalls/s",
		"allocstall_s", "allocstall_s", "allocstall_s", &om_stalls, NULL,
		SAMPLE(vm.allocstall) },
	[FIGURE_PSI_SOME_AVG10] = { FIGURE_SYSTEM, FIGURE_PCT,
		SAMPLE_OF(SAMPLE_REAL, psi.some_avg10), "psi.some%", "psi_some_avg10" },
	[FIGURE_PSI_FULL_AVG10] = { FIGURE_SYSTEM, FIGURE_PCT,
		SAMPLE_OF(SAMPLE_REAL, psi.full_avg10), "psi.full%", "psi_full_avg10" },
	[FIGURE_PSI_SOME_US] = { FIGURE_SYSTEM, FIGURE_US_S, DELTA(psi_some_us), "psi.some.us/s",
		"psi_some_us_s", NULL, NULL, &om_some, NULL,
		SAMPLE_OF(SAMPLE_US, psi.some_total) },
	[FIGURE_PSI_FULL_US] = { FIGURE_SYSTEM, FIGURE_US_S, DELTA(psi_full_us), "psi.full.us/s",
		"psi_full_us_s", NULL, NULL, &om_full, NULL,
		SAMPLE_OF(SAMPLE_US, psi.full_total) },
	/* microseconds stalled per second: 1e4 of them are 1% */
	[FIGURE_PSI_SOME_PCT] = { FIGURE_SYSTEM, FIGURE_PCT, DELTA_DIV(psi_some_us, 1e4), NULL,
		NULL, "psi_some_pct", "psi_some_pct" },
	[FIGURE_PSI_FULL_PCT] = { FIGURE_SYSTEM, FIGURE_PCT, DELTA_DIV(psi_full_us, 1e4), NULL,
		NULL, "psi_full_pct", "psi_full_pct" },
	[FIGURE_KSWAPD_CPU_PCT] = { FIGURE_SYSTEM, FIGURE_PCT,
		{ FIGURE_DELTA_PCT, offsetof(struct sample_delta, kswapd_cpu_s), 0 }, "kswapd%",
		"kswapd_cpu_pct" },
	[FIGURE_KSWAPD_CPU_S] = { FIGURE_SYSTEM, FIGURE_CPU_S, DELTA(kswapd_cpu_s), NULL, NULL,
		"kswapd_cpu_s", "kswapd_cpu_s", &om_kswapd, NULL,
		SAMPLE_OF(TASK_TICKS, kswapd) },
	[FIGURE_PROCESS_CPU_S] = { FIGURE_SYSTEM, FIGURE_CPU_S, DELTA(proc_cpu_s), NULL, NULL,
		"process_cpu_s", "process_cpu_s" },
	[FIGURE_CPU_USR] = CPU(usr_pct, "usr%", "cpu_usr_pct", "cpu_usr_pct"),
	[FIGURE_CPU_SYS] = CPU(sys_pct, "sys%", "cpu_sys_pct", "cpu_sys_pct"),
	[FIGURE_CPU_IOWAIT] = CPU(iowait_pct, "iowait%", "cpu_iowait_pct", "cpu_iowait_pct"),
	[FIGURE_CPU_IRQ] = CPU(irq_pct, NULL, NULL, "cpu_irq_pct"),
	[FIGURE_CPU_SOFTIRQ] = CPU(softirq_pct, NULL, NULL, "cpu_softirq_pct"),
	[FIGURE_CPU_STEAL] = CPU(steal_pct, "steal%", "cpu_steal_pct", NULL),
	[FIGURE_CPU_IDLE] = CPU(idle_pct, "idle%", "cpu_idle_pct", "cpu_idle_pct"),
	[FIGURE_CG_FILE] = LEVEL(FIGURE_CGROUP, cg.file, "cg.cache", "file_bytes", om_cg_file),
	[FIGURE_CG_USAGE] = LEVEL(FIGURE_CGROUP, cg.usage, "cg.usage", "usage_bytes",
				  om_cg_usage),
	[FIGURE_CG_LIMIT] = LEVEL(FIGURE_CGROUP, cg.limit, "cg.limit", "limit_bytes",
				  om_cg_limit),
	/* bench's timeline has them flat: its CSV's names are the shorter */
	[FIGURE_CG_PGSCAN] = { FIGURE_CGROUP, FIGURE_PAGES_S, DELTA(cg_pgscan), "cg.scan/s",
		"pgscan_s", "cg_pgscan_s", "cgroup_pgscan_s", &om_cg_scan, NULL,
		PAGES(cg.pgscan) },
	[FIGURE_CG_PGSTEAL] = { FIGURE_CGROUP, FIGURE_PAGES_S, DELTA(cg_pgsteal), "cg.steal/s",
		"pgsteal_s", "cg_pgsteal_s", "cgroup_pgsteal_s" },
	[FIGURE_CG_PGSCAN_DIRECT] = { FIGURE_CGROUP, FIGURE_PAGES_S, DELTA(cg_pgscan_direct),
		"cg.scan.direct/s", "pgscan_direct_s" },
	[FIGURE_CG_PGSCAN_KSWAPD] = { FIGURE_CGROUP, FIGURE_PAGES_S, DELTA(cg_pgscan_kswapd),
		"cg.scan.kswapd/s", "pgscan_kswapd_s" },
	[FIGURE_TRACE_DIRECT] = TRACE_MS(direct_ms_s, "reclaim.direct.ms/s",
					 "direct_reclaim_ms_s", TRACE_DIRECT, om_direct),
	[FIGURE_TRACE_MEMCG] = TRACE_MS(memcg_ms_s, "reclaim.memcg.ms/s", "memcg_reclaim_ms_s",
					TRACE_MEMCG, om_memcg),
	[FIGURE_TRACE_LOCK] = TRACE_MS(lock_ms_s, "lock.wait.ms/s", "lock_wait_ms_s",
				       TRACE_LOCK, om_lock),
	[FIGURE_TRACE_THROTTLE] = TRACE_MS(throttle_ms_s, "throttle.ms/s",
					   "dirty_throttle_ms_s", TRACE_THROTTLE, om_throttle),
	[FIGURE_TRACE_KSWAPD] = { FIGURE_TRACE, FIGURE_PCT, SHARES(kswapd_pct), "kswapd.awake%",
		"kswapd_awake_pct", NULL, NULL, &om_awake, NULL, TRACED(TRACE_KSWAPD) },
};

static const void *field(const void *base, size_t off)
{
	return (const char *)base + off;
}

static double u64_value(const struct sample *s, size_t off, double scale)
{
	uint64_t v = *(const uint64_t *)field(s, off);

	return sample_known(v) ? (double)v * scale : NAN;
}

/* A task's CPU (ticks of USER_HZ) in seconds. */
static double task_secs(const struct sample_task *t)
{
	long hz = sysconf(_SC_CLK_TCK);

	if (!sample_known(t->utime) || !sample_known(t->stime) || hz <= 0)
		return NAN;
	return (double)(t->utime + t->stime) * (1.0 / (double)hz);
}

/* Nanoseconds of kernel-event kind @kind in @t, in seconds. */
static double trace_secs(const struct trace_snap *t, size_t kind)
{
	if (kind >= TRACE_NKINDS || (t->unknown & (1u << kind)))
		return NAN;
	return (double)t->ns[kind] / 1e9;
}

/* A double of the interval, divided (by @div) or in per cent of it. */
static double delta_value(const struct figure_get *g, const struct sample_delta *d)
{
	double v = *(const double *)field(d, g->off);

	if (g->from == FIGURE_DELTA_PCT)
		return isnan(v) || d->secs <= 0 ? NAN : 100.0 * v / d->secs;
	return g->div ? v / g->div : v;
}

double figure_get(const struct figure_get *g, const struct figure_in *in)
{
	const struct sample *s = in->s;

	switch (g->from) {
	case FIGURE_SAMPLE:
		return s ? u64_value(s, g->off, 1) : NAN;
	case FIGURE_SAMPLE_PAGES:
		return s ? u64_value(s, g->off, (double)sysconf(_SC_PAGESIZE)) : NAN;
	case FIGURE_SAMPLE_US:
		return s ? u64_value(s, g->off, 1e-6) : NAN;
	case FIGURE_SAMPLE_REAL:
		return s ? *(const double *)field(s, g->off) : NAN;
	case FIGURE_TASK_TICKS:
		return s ? task_secs(field(s, g->off)) : NAN;
	case FIGURE_DELTA:
	case FIGURE_DELTA_PCT:
		return in->d ? delta_value(g, in->d) : NAN;
	case FIGURE_SHARES:
		return in->tr ? *(const double *)field(in->tr, g->off) : NAN;
	case FIGURE_TRACE_NS:
		return in->snap ? trace_secs(in->snap, g->off) : NAN;
	case FIGURE_NOWHERE:
		break;
	}
	return NAN;
}

double figure_now(const struct figure *f, const struct figure_in *in)
{
	return figure_get(&f->now, in);
}

double figure_total(const struct figure *f, const struct figure_in *in)
{
	return figure_get(&f->total, in);
}

int figure_put(const struct figure *f, struct sample_delta *d, double v)
{
	if (f->now.from != FIGURE_DELTA)
		return -EINVAL;
	*(double *)(void *)((char *)d + f->now.off) = f->now.div ? v * f->now.div : v;
	return 0;
}

int figure_text_decimals(enum figure_unit unit)
{
	return unit == FIGURE_PCT || unit == FIGURE_MS_S ? 1 : 0;
}
