/* SPDX-License-Identifier: MIT */
/*
 * The catalogue of the system's figures that watch and bench show: one row
 * a figure with its unit, where its value is read, and its name in every
 * output (watch's text and JSON, bench's timeline CSV and JSON, the
 * OpenMetrics family), so that each output walks the one table.
 */
#ifndef PC_CLI_FIGURES_H
#define PC_CLI_FIGURES_H

#include <stddef.h>

struct sample;
struct sample_delta;
struct trace_shares;
struct trace_snap;

/* One figure a row, in the order watch shows them (and OpenMetrics, by family). */
enum figure_id {
	FIGURE_CACHE,
	FIGURE_ACTIVE_FILE,
	FIGURE_INACTIVE_FILE,
	FIGURE_DIRTY,
	FIGURE_WRITEBACK,
	FIGURE_PGSCAN_DIRECT,
	FIGURE_PGSTEAL_DIRECT,
	FIGURE_PGSCAN_KSWAPD,
	FIGURE_PGSTEAL_KSWAPD,
	FIGURE_PGSCAN_FILE,
	FIGURE_PGSTEAL_FILE,
	FIGURE_ALLOCSTALL,
	FIGURE_PSI_SOME_AVG10,
	FIGURE_PSI_FULL_AVG10,
	FIGURE_PSI_SOME_US,
	FIGURE_PSI_FULL_US,
	FIGURE_PSI_SOME_PCT,
	FIGURE_PSI_FULL_PCT,
	FIGURE_KSWAPD_CPU_PCT,
	FIGURE_KSWAPD_CPU_S,
	FIGURE_PROCESS_CPU_S,
	FIGURE_CPU_USR,
	FIGURE_CPU_SYS,
	FIGURE_CPU_IOWAIT,
	FIGURE_CPU_IRQ,
	FIGURE_CPU_SOFTIRQ,
	FIGURE_CPU_STEAL,
	FIGURE_CPU_IDLE,
	FIGURE_CG_FILE,
	FIGURE_CG_USAGE,
	FIGURE_CG_LIMIT,
	FIGURE_CG_PGSCAN,
	FIGURE_CG_PGSTEAL,
	FIGURE_CG_PGSCAN_DIRECT,
	FIGURE_CG_PGSCAN_KSWAPD,
	FIGURE_TRACE_DIRECT,
	FIGURE_TRACE_MEMCG,
	FIGURE_TRACE_LOCK,
	FIGURE_TRACE_THROTTLE,
	FIGURE_TRACE_KSWAPD,
	FIGURE_N,
};

/* What a figure is about: watch shows each group apart. */
enum figure_group {
	FIGURE_SYSTEM,			/* the whole system (and bench's process) */
	FIGURE_CGROUP,			/* the memory cgroup, when one was read */
	FIGURE_TRACE,			/* the kernel's events, when traced */
};

/* What a figure's value over an interval counts. */
enum figure_unit {
	FIGURE_BYTES,			/* a level at the interval's end */
	FIGURE_PAGES_S,			/* pages per second */
	FIGURE_EVENTS_S,		/* events per second */
	FIGURE_US_S,			/* microseconds per second */
	FIGURE_MS_S,			/* milliseconds per second */
	FIGURE_PCT,			/* per cent */
	FIGURE_CPU_S,			/* CPU seconds in the interval */
};

/* Where a value is read (struct figure_in), and how it is turned into the unit. */
enum figure_from {
	FIGURE_NOWHERE,			/* the figure has no such value */
	FIGURE_SAMPLE,			/* a uint64_t of the sample, as it is */
	FIGURE_SAMPLE_PAGES,		/* a uint64_t of the sample, pages: in bytes */
	FIGURE_SAMPLE_US,		/* a uint64_t of the sample, us: in seconds */
	FIGURE_SAMPLE_REAL,		/* a double of the sample */
	FIGURE_TASK_TICKS,		/* a struct sample_task of the sample: in seconds */
	FIGURE_DELTA,			/* a double of the interval's sample_delta, / div */
	FIGURE_DELTA_PCT,		/* that double in per cent of the interval */
	FIGURE_SHARES,			/* a double of the interval's trace_shares */
	FIGURE_TRACE_NS,		/* ns[off] of the trace snapshot: in seconds */
};

struct figure_get {
	enum figure_from from;
	size_t off;			/* of the field (FIGURE_TRACE_NS: the kind) */
	double div;			/* FIGURE_DELTA: divided by it, 0 for none */
};

/* What the values are read from; a NULL one makes its figures unknown. */
struct figure_in {
	const struct sample *s;		/* the sample (at the interval's end) */
	const struct sample_delta *d;	/* the interval */
	const struct trace_shares *tr;	/* the interval's kernel events */
	const struct trace_snap *snap;	/* the kernel events since tracing began */
};

enum figure_metric_type { FIGURE_GAUGE, FIGURE_COUNTER };

/* An OpenMetrics family: one figure's, or several told apart by a label. */
struct figure_family {
	const char *name;		/* without _total */
	enum figure_metric_type type;
	const char *unit;		/* "" for none */
	const char *help;
	const char *label;		/* the key its figures' labels give, or NULL */
};

/* One figure; a NULL name leaves it out of that output. */
struct figure {
	enum figure_group group;
	enum figure_unit unit;
	struct figure_get now;		/* its value over an interval (unit) */
	const char *text;		/* watch: its text column and view label */
	const char *key;		/* watch: its JSON key in its group's object */
	const char *csv, *json;		/* bench: timeline CSV column, JSON intervals' key */
	const struct figure_family *family;	/* OpenMetrics */
	const char *label;		/* the family's label's value, or NULL */
	struct figure_get total;	/* its family's value: cumulative, base units */
};

extern const struct figure figures[FIGURE_N];

/* The value @g reads from @in, NAN when unknown or not there. */
double figure_get(const struct figure_get *g, const struct figure_in *in);
/* Figure @f's value over the interval (@f->now). */
double figure_now(const struct figure *f, const struct figure_in *in);
/* Figure @f's OpenMetrics value (@f->total). */
double figure_total(const struct figure *f, const struct figure_in *in);
/*
 * The inverse of figure_now() for a figure read from a sample_delta: @v back
 * into @d's field (a timeline read back).  -EINVAL for any other figure.
 */
int figure_put(const struct figure *f, struct sample_delta *d, double v);
/* The decimals watch's text gives a value in @unit. */
int figure_text_decimals(enum figure_unit unit);

#endif
