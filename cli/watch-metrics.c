// SPDX-License-Identifier: MIT
/*
 * watch's figures as metrics: OpenMetrics 1.0 text for --output-format
 * openmetrics, the Prometheus text format 0.0.4 for --textfile (what node
 * exporter's textfile collector reads).  The same families in both, named
 * and measured as both want: base units (bytes, seconds) in the name,
 * counters cumulative and ending in _total.  The two differ in a counter's
 * family name (OpenMetrics: without _total), in # UNIT lines and in the
 * closing # EOF, which only OpenMetrics has.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "sample.h"
#include "trace.h"
#include "watch-metrics.h"

enum metric_type { GAUGE, COUNTER };

/* One family's header; @unit "" when it has none. */
struct family {
	const char *name;	/* without _total */
	enum metric_type type;
	const char *unit;
	const char *help;
};

static void put_header(FILE *out, const struct family *f, int om)
{
	const char *total = f->type == COUNTER && !om ? "_total" : "";

	fprintf(out, "# HELP %s%s %s\n", f->name, total, f->help);
	fprintf(out, "# TYPE %s%s %s\n", f->name, total, f->type == COUNTER ? "counter" : "gauge");
	if (om && f->unit[0])
		fprintf(out, "# UNIT %s %s\n", f->name, f->unit);
}

/* A label value with \ " and newline escaped, as both formats want. */
static void put_label_value(FILE *out, const char *v)
{
	for (; *v; v++) {
		if (*v == '\\' || *v == '"')
			fputc('\\', out);
		if (*v == '\n')
			fputs("\\n", out);
		else
			fputc(*v, out);
	}
}

/*
 * One sample of @f: "name_total{k="v",...} value".  @labels holds
 * key, value pairs ending with NULL; NULL for none.
 */
static void put_sample(FILE *out, const struct family *f, const char *const *labels,
		       double v)
{
	fprintf(out, "%s%s", f->name, f->type == COUNTER ? "_total" : "");
	if (labels && labels[0]) {
		fputc('{', out);
		for (size_t i = 0; labels[i]; i += 2) {
			fprintf(out, "%s%s=\"", i ? "," : "", labels[i]);
			put_label_value(out, labels[i + 1]);
			fputc('"', out);
		}
		fputc('}', out);
	}
	fprintf(out, " %.15g\n", v);
}

/* A family of one sample, when the kernel reported it. */
static void put_one(FILE *out, int om, const struct family *f, uint64_t v, double scale)
{
	if (!sample_known(v))
		return;
	put_header(out, f, om);
	put_sample(out, f, NULL, (double)v * scale);
}

/* A family of two samples, reclaimer="direct" and "kswapd"; unknown ones left out. */
static void put_by_reclaimer(FILE *out, int om, const struct family *f, uint64_t direct,
			     uint64_t kswapd, double scale)
{
	const char *d[] = { "reclaimer", "direct", NULL }, *k[] = { "reclaimer", "kswapd", NULL };

	if (!sample_known(direct) && !sample_known(kswapd))
		return;
	put_header(out, f, om);
	if (sample_known(direct))
		put_sample(out, f, d, (double)direct * scale);
	if (sample_known(kswapd))
		put_sample(out, f, k, (double)kswapd * scale);
}

static void put_memory(FILE *out, int om, const struct sample *s, double page)
{
	static const struct family cache = { "pagecliff_page_cache_bytes", GAUGE, "bytes",
		"Page cache (Cached in /proc/meminfo)." };
	static const struct family active = { "pagecliff_active_file_bytes", GAUGE, "bytes",
		"File pages on the active LRU list." };
	static const struct family inactive = { "pagecliff_inactive_file_bytes", GAUGE, "bytes",
		"File pages on the inactive LRU list." };
	static const struct family dirty = { "pagecliff_dirty_bytes", GAUGE, "bytes",
		"Dirty page cache waiting for writeback." };
	static const struct family wb = { "pagecliff_writeback_bytes", GAUGE, "bytes",
		"Page cache under writeback." };
	static const struct family scan = { "pagecliff_reclaim_scanned_bytes", COUNTER, "bytes",
		"Memory scanned by reclaim (pgscan_direct, pgscan_kswapd)." };
	static const struct family steal = { "pagecliff_reclaim_reclaimed_bytes", COUNTER, "bytes",
		"Memory reclaimed (pgsteal_direct, pgsteal_kswapd)." };
	static const struct family fscan = { "pagecliff_file_reclaim_scanned_bytes", COUNTER,
		"bytes", "File pages scanned by reclaim (pgscan_file)." };
	static const struct family fsteal = { "pagecliff_file_reclaim_reclaimed_bytes", COUNTER,
		"bytes", "File pages reclaimed (pgsteal_file)." };
	static const struct family stalls = { "pagecliff_allocation_stalls", COUNTER, "",
		"Allocations that entered direct reclaim (allocstall)." };

	put_one(out, om, &cache, s->mem.cached, 1);
	put_one(out, om, &active, s->mem.active_file, 1);
	put_one(out, om, &inactive, s->mem.inactive_file, 1);
	put_one(out, om, &dirty, s->mem.dirty, 1);
	put_one(out, om, &wb, s->mem.writeback, 1);
	put_by_reclaimer(out, om, &scan, s->vm.pgscan_direct, s->vm.pgscan_kswapd, page);
	put_by_reclaimer(out, om, &steal, s->vm.pgsteal_direct, s->vm.pgsteal_kswapd, page);
	put_one(out, om, &fscan, s->vm.pgscan_file, page);
	put_one(out, om, &fsteal, s->vm.pgsteal_file, page);
	put_one(out, om, &stalls, s->vm.allocstall, 1);
}

static void put_pressure(FILE *out, int om, const struct sample *s)
{
	static const struct family some = { "pagecliff_memory_pressure_some_seconds", COUNTER,
		"seconds", "Time some task stalled on memory (PSI some total)." };
	static const struct family full = { "pagecliff_memory_pressure_full_seconds", COUNTER,
		"seconds", "Time all tasks stalled on memory (PSI full total)." };
	static const struct family kswapd = { "pagecliff_kswapd_cpu_seconds", COUNTER, "seconds",
		"CPU time of the kswapd threads." };
	long hz = sysconf(_SC_CLK_TCK);

	if (s->psi_ok) {
		put_one(out, om, &some, s->psi.some_total, 1e-6);
		put_one(out, om, &full, s->psi.full_total, 1e-6);
	}
	if (s->kswapd_ok && hz > 0)
		put_one(out, om, &kswapd, s->kswapd.utime + s->kswapd.stime, 1.0 / (double)hz);
}

static void put_cgroup(FILE *out, int om, const struct sample *s, const char *dir, double page)
{
	static const struct family file = { "pagecliff_cgroup_file_bytes", GAUGE, "bytes",
		"Page cache charged to the memory cgroup." };
	static const struct family usage = { "pagecliff_cgroup_usage_bytes", GAUGE, "bytes",
		"Memory charged to the memory cgroup." };
	static const struct family limit = { "pagecliff_cgroup_limit_bytes", GAUGE, "bytes",
		"The memory cgroup's limit (absent when unlimited)." };
	static const struct family scan = { "pagecliff_cgroup_reclaim_scanned_bytes", COUNTER,
		"bytes", "Memory of the cgroup scanned by reclaim." };
	const char *l[] = { "cgroup", dir, NULL };
	const struct { const struct family *f; uint64_t v; double scale; } g[] = {
		{ &file, s->cg.file, 1 }, { &usage, s->cg.usage, 1 }, { &limit, s->cg.limit, 1 },
	};

	if (!s->cg_ok || !dir)
		return;
	for (size_t i = 0; i < sizeof(g) / sizeof(g[0]); i++) {
		if (!sample_known(g[i].v))
			continue;
		put_header(out, g[i].f, om);
		put_sample(out, g[i].f, l, (double)g[i].v * g[i].scale);
	}
	if (sample_known(s->cg.pgscan)) {
		put_header(out, &scan, om);
		put_sample(out, &scan, l, (double)s->cg.pgscan * page);
	}
}

/* The kernel-event counters: what no exporter has. */
static void put_trace(FILE *out, int om, const struct trace_snap *t)
{
	static const struct family kinds[TRACE_NKINDS] = {
		[TRACE_DIRECT] = { "pagecliff_direct_reclaim_seconds", COUNTER, "seconds",
			"Time threads spent in direct reclaim, all threads added up." },
		[TRACE_MEMCG] = { "pagecliff_memcg_reclaim_seconds", COUNTER, "seconds",
			"Time threads spent in memory-cgroup reclaim, all threads added up." },
		[TRACE_LOCK] = { "pagecliff_lock_wait_seconds", COUNTER, "seconds",
			"Time threads waited for contended kernel locks, all threads added up." },
		[TRACE_KSWAPD] = { "pagecliff_kswapd_awake_seconds", COUNTER, "seconds",
			"Time kswapd was awake, all nodes added up." },
		[TRACE_THROTTLE] = { "pagecliff_dirty_throttle_seconds", COUNTER, "seconds",
			"Time writers were paused in balance_dirty_pages." },
	};
	static const struct family callers = { "pagecliff_lock_wait_caller_seconds", COUNTER,
		"seconds", "Time waited for contended kernel locks, by caller and lock kind." };

	for (int k = 0; k < TRACE_NKINDS; k++) {
		if (t->unknown & (1u << k))
			continue;
		put_header(out, &kinds[k], om);
		put_sample(out, &kinds[k], NULL, (double)t->ns[k] / 1e9);
	}
	if (!t->ncallers || (t->unknown & (1u << TRACE_LOCK)))
		return;
	put_header(out, &callers, om);
	for (size_t i = 0; i < t->ncallers; i++) {
		const char *l[] = { "caller", t->callers[i].name, "lock", t->callers[i].kind, NULL };

		put_sample(out, &callers, l, (double)t->callers[i].ns / 1e9);
	}
}

void watch_metrics(FILE *out, int openmetrics, const struct sample *s,
		   const char *cgroup, const struct trace_snap *t)
{
	double page = (double)sysconf(_SC_PAGESIZE);

	put_memory(out, openmetrics, s, page);
	put_pressure(out, openmetrics, s);
	put_cgroup(out, openmetrics, s, cgroup, page);
	if (t)
		put_trace(out, openmetrics, t);
	if (openmetrics)
		fputs("# EOF\n", out);
}
