// SPDX-License-Identifier: MIT
/*
 * watch's figures as metrics: OpenMetrics 1.0 text for --output-format
 * openmetrics, the Prometheus text format 0.0.4 for --textfile (what node
 * exporter's textfile collector reads).  The same families in both, named
 * and measured as both want: base units (bytes, seconds) in the name,
 * counters cumulative and ending in _total.  The two differ in a counter's
 * family name (OpenMetrics: without _total), in # UNIT lines and in the
 * closing # EOF, which only OpenMetrics has.  The families and their
 * figures are the catalogue's (figures.c), in its order.
 */
#include <math.h>
#include <stdio.h>

#include "figures.h"
#include "sample.h"
#include "trace.h"
#include "watch-metrics.h"

/* A family's header. */
static void put_header(FILE *out, const struct figure_family *f, int om)
{
	const char *total = f->type == FIGURE_COUNTER && !om ? "_total" : "";

	fprintf(out, "# HELP %s%s %s\n", f->name, total, f->help);
	fprintf(out, "# TYPE %s%s %s\n", f->name, total,
		f->type == FIGURE_COUNTER ? "counter" : "gauge");
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
static void put_sample(FILE *out, const struct figure_family *f, const char *const *labels,
		       double v)
{
	fprintf(out, "%s%s", f->name, f->type == FIGURE_COUNTER ? "_total" : "");
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

/*
 * The family of figure @first, whose first figure it is: its header when
 * one of its figures is known, then each known one, labelled with @group
 * (key, value pairs ending with NULL, or NULL) and the figure's own label.
 */
static void put_family(FILE *out, int om, const struct figure *first,
		       const struct figure_in *in, const char *const *group)
{
	int known = 0;

	for (const struct figure *f = first; f < figures + FIGURE_N; f++) {
		const char *l[5];
		size_t n = 0;
		double v;

		if (f->family != first->family)
			continue;
		v = figure_total(f, in);
		if (isnan(v))
			continue;
		if (!known++)
			put_header(out, f->family, om);
		for (size_t i = 0; group && group[i]; i++)
			l[n++] = group[i];
		if (f->label) {
			l[n++] = f->family->label;
			l[n++] = f->label;
		}
		l[n] = NULL;
		put_sample(out, f->family, l, v);
	}
}

/* The families of group @g, in the catalogue's order of their first figures. */
static void put_group(FILE *out, int om, enum figure_group g, const struct figure_in *in,
		      const char *const *labels)
{
	for (const struct figure *f = figures; f < figures + FIGURE_N; f++) {
		const struct figure *p = figures;

		if (f->group != g || !f->family)
			continue;
		while (p < f && p->family != f->family)
			p++;
		if (p == f)
			put_family(out, om, f, in, labels);
	}
}

/* The lock waits by caller: a list, no figure of the catalogue. */
static void put_callers(FILE *out, int om, const struct trace_snap *t)
{
	static const struct figure_family callers = { "pagecliff_lock_wait_caller_seconds",
		FIGURE_COUNTER, "seconds",
		"Time waited for contended kernel locks, by caller and lock kind.", NULL };

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
	const struct figure_in in = { .s = s, .snap = t };
	const char *l[] = { "cgroup", cgroup, NULL };

	put_group(out, openmetrics, FIGURE_SYSTEM, &in, NULL);
	if (s->cg_ok && cgroup)
		put_group(out, openmetrics, FIGURE_CGROUP, &in, l);
	if (t) {
		put_group(out, openmetrics, FIGURE_TRACE, &in, NULL);
		put_callers(out, openmetrics, t);
	}
	if (openmetrics)
		fputs("# EOF\n", out);
}
