// SPDX-License-Identifier: MIT
/*
 * --plot: one SVG chart of a bench run.  Top panel: throughput of every
 * mode against the data it had read, the cliff marked only where the
 * verdict found the line fall, the gap to the best mode as a bracket.  Bottom panel: page
 * cache (solid, left axis) and reclaim rate (dashed, right axis).  When the
 * kernel's events were traced, one more panel per mode: the shares of the
 * readers' time in reclaim, lock waits and dirty throttling, and kswapd's.
 * Plain SVG 1.1 with escaped text, so browsers and XML parsers both take it.
 */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "bench.h"

#define W 960
#define H 640
#define LEFT 80
#define RIGHT 880
#define TOP1 60
#define BOT1 330
#define TOP2 400
#define BOT2 580
#define SHARE_H 170			/* height of one mode's share panel */
#define SHARE_PLOT 110			/* of which the plot */
#define GIB (1024.0 * 1024 * 1024)

struct axis {
	double max, step;
};

static const char *mode_color(enum pc_strategy m)
{
	static const char *colors[] = { "#2ca02c", "#d62728", "#9467bd", "#ff7f0e", "#1f77b4" };

	return m < sizeof(colors) / sizeof(colors[0]) ? colors[m] : "#000000";
}

/* An axis from 0 to a round number above @max, with about five steps. */
static struct axis nice_axis(double max)
{
	struct axis a;
	double mag, f;

	if (!(max > 0) || isinf(max))
		max = 1;
	mag = pow(10, floor(log10(max / 5)));
	f = max / 5 / mag;
	a.step = (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * mag;
	a.max = ceil(max / a.step) * a.step;
	return a;
}

static double nz_share(double v)
{
	return isnan(v) ? 0 : v;
}

static double sx(double v, const struct axis *x)
{
	return LEFT + (RIGHT - LEFT) * v / x->max;
}

static double sy(double v, const struct axis *y, int top, int bot)
{
	if (isnan(v))
		v = 0;
	return bot - (bot - top) * fmin(v, y->max) / y->max;
}

static void text(FILE *out, double x, double y, const char *anchor, const char *extra,
		 const char *s)
{
	fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\" %s>", x, y, anchor, extra);
	for (; *s; s++) {
		switch (*s) {
		case '<': fputs("&lt;", out); break;
		case '>': fputs("&gt;", out); break;
		case '&': fputs("&amp;", out); break;
		case '"': fputs("&quot;", out); break;
		default: fputc(*s, out);
		}
	}
	fputs("</text>\n", out);
}

static void grid(FILE *out, const struct axis *x, const struct axis *y, int top, int bot,
		 const char *ylabel, double yscale_div)
{
	char buf[64];

	fprintf(out, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"#ffffff\" "
		"stroke=\"#444444\"/>\n", LEFT, top, RIGHT - LEFT, bot - top);
	for (double v = 0; v <= y->max + y->step / 2; v += y->step) {
		double py = sy(v, y, top, bot);

		fprintf(out, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#dddddd\"/>\n",
			LEFT, py, RIGHT, py);
		snprintf(buf, sizeof(buf), "%g", v / yscale_div);
		text(out, LEFT - 6, py + 4, "end", "", buf);
	}
	for (double v = 0; v <= x->max + x->step / 2; v += x->step) {
		double px = sx(v, x);

		fprintf(out, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#eeeeee\"/>\n",
			px, top, px, bot);
		snprintf(buf, sizeof(buf), "%g", v);
		text(out, px, bot + 16, "middle", "", buf);
	}
	snprintf(buf, sizeof(buf), "rotate(-90 %d %d)", 20, (top + bot) / 2);
	fprintf(out, "<text x=\"20\" y=\"%d\" text-anchor=\"middle\" transform=\"%s\">%s</text>\n",
		(top + bot) / 2, buf, ylabel);
}

/* A polyline of one phase: field chosen by @which (0 gbps, 1 cache, 2 reclaim). */
static void series(FILE *out, const struct bench_run *run, const struct bench_phase *ph,
		   int which, const struct axis *x, const struct axis *y, int top, int bot,
		   const char *dash)
{
	const struct bench_row *r = run->rows + ph->first_row;

	fprintf(out, "<polyline class=\"%s\" data-mode=\"%s\" fill=\"none\" stroke=\"%s\" "
		"stroke-width=\"2\"%s points=\"", which == 0 ? "throughput" : which == 1 ? "cache" :
		"reclaim", pc_strategy_name(ph->mode), mode_color(ph->mode), dash);
	for (size_t i = 0; i < ph->nrows; i++) {
		double v = which == 0 ? r[i].gbps : which == 1 ? r[i].cache : r[i].reclaim;

		fprintf(out, "%.1f,%.1f ", sx(r[i].bytes_total / GIB, x), sy(v, y, top, bot));
	}
	fputs("\"/>\n", out);
}

/*
 * The cliff, only where the verdict found one: the mode's own line falls
 * there (bench-verdict.h), at the data read when its cache filled.
 */
static void mark_cliff(FILE *out, const struct bench_phase *ph, const struct axis *x,
		       const struct axis *y)
{
	const struct verdict *v = &ph->v;
	char buf[128];
	double px, py;

	if (!v->cliff)
		return;
	px = sx(v->at_gib, x);
	py = sy(v->after_gbps, y, TOP1, BOT1);
	fprintf(out, "<line class=\"cliff-mark\" data-mode=\"%s\" data-gib=\"%.4f\" "
		"x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"%s\" "
		"stroke-dasharray=\"6 4\"/>\n", pc_strategy_name(ph->mode), v->at_gib, px, TOP1,
		px, BOT1, mode_color(ph->mode));
	fprintf(out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"6\" fill=\"none\" stroke=\"%s\" "
		"stroke-width=\"2\"/>\n", px, py, mode_color(ph->mode));
	snprintf(buf, sizeof(buf), "%s: cliff at %.2f GiB, %.2f to %.2f GB/s",
		 pc_strategy_name(ph->mode), v->at_gib, v->before_gbps, v->after_gbps);
	text(out, px + 8, TOP1 + 16, "start", "font-weight=\"bold\"", buf);
}

/*
 * The gap to the best mode, as a gap: a bracket at the right edge from the
 * mode's throughput once full up to the best mode's, with its size.
 */
static void mark_gap(FILE *out, const struct bench_phase *ph, const struct axis *y, int slot)
{
	const struct verdict *v = &ph->v;
	double px = RIGHT - 12 - 90.0 * slot, lo, hi;
	char buf[96];

	if (!v->gap)
		return;
	lo = sy(v->after_gbps, y, TOP1, BOT1);
	hi = sy(v->best_gbps, y, TOP1, BOT1);
	fprintf(out, "<path class=\"gap-mark\" data-mode=\"%s\" fill=\"none\" stroke=\"%s\" "
		"stroke-width=\"2\" d=\"M%.1f,%.1f L%.1f,%.1f L%.1f,%.1f L%.1f,%.1f\"/>\n",
		pc_strategy_name(ph->mode), mode_color(ph->mode), px - 6, lo, px, lo, px, hi,
		px - 6, hi);
	snprintf(buf, sizeof(buf), "gap %.0f%% to %s", v->gap_pct, v->best_name);
	text(out, px - 8, (lo + hi) / 2 + 4, "end", "", buf);
}

static void legend(FILE *out, const struct bench_run *run)
{
	int px = LEFT;

	for (unsigned int m = 0; m < run->job.nmodes; m++) {
		const struct bench_phase *ph = &run->phases[m];
		char buf[96];

		if (!ph->ran)
			continue;
		fprintf(out, "<rect x=\"%d\" y=\"%d\" width=\"14\" height=\"4\" fill=\"%s\"/>\n",
			px, TOP1 - 14, mode_color(ph->mode));
		snprintf(buf, sizeof(buf), "%s%s", pc_strategy_name(ph->mode),
			 ph->v.cliff ? " (cliff)" : ph->v.gap ? " (gap)" : "");
		text(out, px + 18, TOP1 - 8, "start", "", buf);
		px += 150;
	}
}

/* The traced shares: field, colour, dash, name. */
static const struct share_line {
	size_t off;
	const char *color, *dash, *name;
} share_lines[] = {
	{ offsetof(struct bench_row, direct_reclaim_pct), "#d62728", "", "direct reclaim" },
	{ offsetof(struct bench_row, memcg_reclaim_pct), "#ff7f0e", "", "memory-cgroup reclaim" },
	{ offsetof(struct bench_row, lock_wait_pct), "#9467bd", "", "lock wait" },
	{ offsetof(struct bench_row, dirty_throttle_pct), "#1f77b4", "", "dirty throttle" },
	{ offsetof(struct bench_row, kswapd_busy_pct), "#7f7f7f", " stroke-dasharray=\"5 4\"",
	  "kswapd awake (of its time)" },
};

static double share_of(const struct bench_row *r, const struct share_line *l)
{
	return *(const double *)((const char *)r + l->off);
}

static int traced_phase(const struct bench_run *run, const struct bench_phase *ph)
{
	return ph->ran && ph->nrows && !isnan(run->rows[ph->first_row].direct_reclaim_pct);
}

/* One share as a path (not a polyline: those are the panels above). */
static void share_path(FILE *out, const struct bench_run *run, const struct bench_phase *ph,
		       const struct share_line *l, const struct axis *x, const struct axis *y,
		       int top, int bot)
{
	const struct bench_row *r = run->rows + ph->first_row;

	fprintf(out, "<path fill=\"none\" stroke=\"%s\" stroke-width=\"2\"%s d=\"", l->color,
		l->dash);
	for (size_t i = 0; i < ph->nrows; i++)
		fprintf(out, "%s%.1f,%.1f ", i ? "L" : "M", sx(r[i].bytes_total / GIB, x),
			sy(share_of(&r[i], l), y, top, bot));
	fputs("\"/>\n", out);
}

/* A panel of @ph's shares of time at @top, against the data read. */
static void share_panel(FILE *out, const struct bench_run *run, const struct bench_phase *ph,
			const struct axis *x, int top)
{
	int bot = top + SHARE_PLOT, lx = LEFT;
	double maxv = 0;
	struct axis y;
	char buf[160];

	for (size_t i = 0; i < ph->nrows; i++)
		for (size_t k = 0; k < sizeof(share_lines) / sizeof(share_lines[0]); k++)
			maxv = fmax(maxv, nz_share(share_of(&run->rows[ph->first_row + i],
							    &share_lines[k])));
	y = nice_axis(fmin(fmax(maxv * 1.1, 1), 100));
	snprintf(buf, sizeof(buf), "%s: %% of the readers' time (kswapd: of its own)",
		 pc_strategy_name(ph->mode));
	text(out, LEFT, top - 8, "start", "font-weight=\"bold\"", buf);
	grid(out, x, &y, top, bot, "%", 1);
	for (size_t k = 0; k < sizeof(share_lines) / sizeof(share_lines[0]); k++) {
		share_path(out, run, ph, &share_lines[k], x, &y, top, bot);
		fprintf(out, "<rect x=\"%d\" y=\"%d\" width=\"14\" height=\"4\" fill=\"%s\"/>\n",
			lx, bot + 24, share_lines[k].color);
		text(out, lx + 18, bot + 30, "start", "", share_lines[k].name);
		lx += 160;
	}
}

void bench_plot_svg(const struct bench_run *run, FILE *out)
{
	double maxx = 0, maxg = 0, maxc = 0, maxr = 0, limit = NAN;
	struct axis x, yg, yc, yr;
	char buf[128];
	int h = H, shares = 0;

	for (size_t i = 0; i < run->nrows; i++) {
		const struct bench_row *r = &run->rows[i];

		maxx = fmax(maxx, r->bytes_total / GIB);
		maxg = fmax(maxg, r->gbps);
		maxc = fmax(maxc, isnan(r->cache) ? 0 : r->cache);
		maxr = fmax(maxr, isnan(r->reclaim) ? 0 : r->reclaim);
		if (!isnan(r->cache_limit))
			limit = r->cache_limit;
	}
	if (!isnan(limit))
		maxc = fmax(maxc, limit);
	x = nice_axis(maxx);
	yg = nice_axis(maxg * 1.1);
	yc = nice_axis(maxc / (1 << 20) * 1.05);
	yc.max *= 1 << 20;
	yc.step *= 1 << 20;
	yr = nice_axis(maxr);
	for (unsigned int m = 0; m < run->job.nmodes; m++)
		shares += traced_phase(run, &run->phases[m]);
	h += shares * SHARE_H;
	fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n" BENCH_CHART_MARKER "\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%d\" "
		"height=\"%d\" viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"12\">\n"
		"<rect width=\"100%%\" height=\"100%%\" fill=\"#fafafa\"/>\n", W, h, W, h);
	text(out, W / 2, 24, "middle", "font-size=\"16\" font-weight=\"bold\"",
	     "pagecliff bench: throughput against data read, per mode");
	grid(out, &x, &yg, TOP1, BOT1, "GB/s", 1);
	legend(out, run);
	for (unsigned int m = 0; m < run->job.nmodes; m++)
		if (run->phases[m].ran)
			series(out, run, &run->phases[m], 0, &x, &yg, TOP1, BOT1, "");
	for (unsigned int m = 0, slot = 0; m < run->job.nmodes; m++) {
		if (!run->phases[m].ran)
			continue;
		mark_cliff(out, &run->phases[m], &x, &yg);
		mark_gap(out, &run->phases[m], &yg, (int)slot);
		slot += run->phases[m].v.gap;
	}
	grid(out, &x, &yc, TOP2, BOT2, "page cache MiB", 1 << 20);
	if (!isnan(limit)) {
		double py = sy(limit, &yc, TOP2, BOT2);

		fprintf(out, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#000000\" "
			"stroke-dasharray=\"2 3\"/>\n", LEFT, py, RIGHT, py);
		text(out, LEFT + 4, py - 4, "start", "", "cache limit");
	}
	for (unsigned int m = 0; m < run->job.nmodes; m++) {
		if (!run->phases[m].ran)
			continue;
		series(out, run, &run->phases[m], 1, &x, &yc, TOP2, BOT2, "");
		series(out, run, &run->phases[m], 2, &x, &yr, TOP2, BOT2,
		       " stroke-dasharray=\"5 4\" stroke-opacity=\"0.7\"");
	}
	for (double v = 0; v <= yr.max + yr.step / 2; v += yr.step) {
		if (v >= 1e6)
			snprintf(buf, sizeof(buf), "%gM", v / 1e6);
		else if (v >= 1e3)
			snprintf(buf, sizeof(buf), "%gk", v / 1e3);
		else
			snprintf(buf, sizeof(buf), "%g", v);
		text(out, RIGHT + 6, sy(v, &yr, TOP2, BOT2) + 4, "start", "", buf);
	}
	text(out, RIGHT + 44, TOP2 - 8, "end", "", "reclaim pages/s");
	text(out, (LEFT + RIGHT) / 2, BOT2 + 36, "middle", "", "data read by the mode, GiB");
	text(out, LEFT, TOP2 - 8, "start", "",
	     "page cache (solid, left axis) and reclaim rate (dashed, right axis)");
	for (unsigned int m = 0, i = 0; m < run->job.nmodes; m++)
		if (traced_phase(run, &run->phases[m]))
			share_panel(out, run, &run->phases[m], &x, H + 10 + (int)i++ * SHARE_H);
	fputs("</svg>\n", out);
}
