// SPDX-License-Identifier: MIT
/*
 * The verdict on recorded timelines: each fixture NAME.csv (the format of
 * `pagecliff bench --timeline`) goes through bench_analyse() as a run would,
 * and NAME.verdict says the run's context and, per mode, the kind, the
 * cliff, the gap's and the fall's causes, first-touch growth and figures.
 * Every sentence (per mode and the summary) is checked against the figures:
 * each number it prints is one of the verdict's, and no word contradicts
 * them ("fell" only where it fell, "cliff" only with a cliff, a cause named
 * only where its share is there, "inferred" only where it was not traced).
 *
 * With --svg NAME OUT it writes the chart of fixture NAME to OUT instead
 * (for plot-marks.sh).
 */
#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "helpers.h"

#define GIB (1024.0 * 1024 * 1024)
#define MAX_ROWS 4096

static int fails;

static void bad(const char *fixture, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void bad(const char *fixture, const char *fmt, ...)
{
	va_list ap;

	printf("  FAIL %s: ", fixture);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fails++;
}

/* Split a CSV line (no quoted commas in fixtures) into @f, up to @max. */
static int split(char *line, char **f, int max)
{
	int n = 0;

	line[strcspn(line, "\r\n")] = '\0';
	for (char *p = line; n < max; ) {
		f[n++] = p;
		p = strchr(p, ',');
		if (!p)
			break;
		*p++ = '\0';
	}
	return n;
}

static struct bench_phase *phase_of(struct bench_run *run, const char *name)
{
	enum pc_strategy s;
	unsigned int m;

	T_CHECK(!pc_strategy_parse(name, &s), "unknown mode %s\n", name);
	for (m = 0; m < run->job.nmodes; m++)
		if (run->job.modes[m] == s)
			return &run->phases[m];
	T_CHECK(m < BENCH_MAX_MODES, "too many modes\n");
	run->job.modes[m] = s;
	run->job.nmodes++;
	run->phases[m].mode = run->phases[m].strategy = s;
	run->phases[m].ran = 1;
	run->phases[m].first_row = run->nrows;
	run->phases[m].cache_start = NAN;
	return &run->phases[m];
}

/*
 * A row from the CSV's fields @f, each read through the timeline's column
 * @cols[i] the header named (NULL: not a column of the table).  What the
 * timeline lacks stays unknown; older fixtures have no bytes, only the GiB
 * so far.
 */
static void add_row(struct bench_run *run, struct bench_phase *ph, char **f, int nf,
		    const struct bench_col **cols)
{
	struct bench_row *r = &run->rows[run->nrows++];

	T_CHECK(run->nrows < MAX_ROWS, "too many rows\n");
	bench_row_unknown(r);
	for (int i = 1; i < nf; i++)
		if (cols[i])
			T_CHECK(!bench_col_parse(r, cols[i], f[i]), "bad %s '%s'\n",
				bench_col_csv_name(cols[i]), f[i]);
	r->mode = (unsigned int)(ph - run->phases);
	if (!r->bytes)
		r->bytes = r->bytes_total - (ph->nrows ? r[-1].bytes_total : 0);
	if (isnan(ph->cache_start))
		ph->cache_start = r->cache;
	if (r->top_lock[0] && !(r->top_lock_pct <= ph->top_locks[0].pct)) {
		snprintf(ph->top_locks[0].name, sizeof(ph->top_locks[0].name), "%s", r->top_lock);
		ph->top_locks[0].pct = r->top_lock_pct;
		ph->ntop_locks = 1;
	}
	ph->nrows++;
	ph->bytes += r->bytes;
	ph->secs = r->t;
}

/* The run the timeline CSV @fp describes (rows, phases), before analysis;
 * @path names it in messages. */
static struct bench_run *read_run(FILE *fp, const char *path)
{
	struct bench_run *run = calloc(1, sizeof(*run));
	char line[8192], *f[128];
	const struct bench_col *cols[128];
	int nf;

	T_CHECK(run && fp, "cannot open %s\n", path);
	run->rows = calloc(MAX_ROWS, sizeof(*run->rows));
	T_CHECK(run->rows && fgets(line, sizeof(line), fp), "empty %s\n", path);
	nf = split(line, f, 128);
	T_CHECK(!strcmp(f[0], "mode"), "%s: the first column is not the mode\n", path);
	for (int i = 0; i < nf; i++)
		cols[i] = bench_col_csv(f[i]);
	T_CHECK(bench_col_csv("gib") && bench_col_csv("gbps"), "%s: columns\n", path);
	while (fgets(line, sizeof(line), fp)) {
		nf = split(line, f, 128);
		add_row(run, phase_of(run, f[0]), f, nf, cols);
	}
	fclose(fp);
	run->job.rw = BENCH_READ;
	run->job.numjobs = 1;
	return run;
}

static struct bench_run *load_run(const char *path)
{
	return read_run(fopen(path, "r"), path);
}

static void free_run(struct bench_run *run)
{
	free(run->rows);
	free(run);
}

/* @run's timeline CSV as bench writes it (malloc'ed). */
static char *timeline_of(const struct bench_run *run, size_t *ret_len)
{
	char *buf = NULL;
	FILE *fp = open_memstream(&buf, ret_len);

	T_CHECK(fp, "open_memstream failed\n");
	bench_timeline_csv(run, fp);
	T_CHECK(!fclose(fp), "open_memstream failed\n");
	return buf;
}

/*
 * The timeline bench writes reads back through the column table as it was
 * written: each column's reader (bench_col_parse) undoes its writer, so a
 * second write of what was read is the same bytes.
 */
static void check_round_trip(const char *dir, const char *fx)
{
	char path[4300];
	size_t len, len2;
	struct bench_run *run, *back;
	char *first, *second;

	snprintf(path, sizeof(path), "%s/%s.csv", dir, fx);
	run = load_run(path);
	first = timeline_of(run, &len);
	back = read_run(fmemopen(first, len, "r"), fx);
	second = timeline_of(back, &len2);
	if (len != len2 || memcmp(first, second, len)) {
		size_t i = 0;

		while (i < len && i < len2 && first[i] == second[i])
			i++;
		bad(fx, "the timeline read back differs at byte %zu: \"%.40s\" written again "
		    "as \"%.40s\"", i, first + i, second + i);
	}
	free(first);
	free(second);
	free_run(run);
	free_run(back);
}

/* The context lines of NAME.verdict: cpus, threads, size, memcg, trace_why. */
static void context(struct bench_run *run, const char *key, const char *val)
{
	if (!strcmp(key, "cpus"))
		run->cpus = (unsigned int)atoi(val);
	else if (!strcmp(key, "threads"))
		run->nfiles = (unsigned int)atoi(val);
	else if (!strcmp(key, "size"))
		run->job.size = strtoull(val, NULL, 10);
	else if (!strcmp(key, "memcg") && atoi(val))
		snprintf(run->cgroup_dir, sizeof(run->cgroup_dir), "/sys/fs/cgroup/fixture");
	else if (!strcmp(key, "trace_why") && strcmp(val, "-"))
		snprintf(run->trace_why, sizeof(run->trace_why), "%s", val);
}

static const struct bench_phase *find_phase(const struct bench_run *run, const char *name)
{
	for (unsigned int m = 0; m < run->job.nmodes; m++)
		if (!strcmp(pc_strategy_name(run->phases[m].mode), name))
			return &run->phases[m];
	return NULL;
}

/* The figure @name of @v, as NAME.verdict's fig lines call it. */
static double figure(const struct verdict *v, const char *name)
{
	const struct { const char *n; double v; } f[] = {
		{ "before", v->before_gbps }, { "after", v->after_gbps }, { "at_gib", v->at_gib },
		{ "fall_pct", v->fall_pct }, { "gap_pct", v->gap_pct },
		{ "fall_cause_pct", v->fall_cause_pct }, { "gap_cause_pct", v->gap_cause_pct },
		{ "cpu", v->cpu_per_gib }, { "best_cpu", v->best_cpu_per_gib },
		{ "growth", v->growth_gbps }, { "direct_pct", v->direct_pct },
		{ "memcg_pct", v->memcg_pct }, { "lock_pct", v->lock_pct },
		{ "best", v->best_gbps }, { "reclaim", v->reclaim_rate },
	};

	for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++)
		if (!strcmp(f[i].n, name))
			return f[i].v;
	return NAN;
}

/* Whether @s, a number as printed, is @v printed with @prec decimals. */
static int printed_as(const char *s, double v, int prec)
{
	char buf[64];

	if (isnan(v) || isinf(v))
		return 0;
	snprintf(buf, sizeof(buf), "%.*f", prec, v);
	return !strcmp(buf, s);
}

/* Each number in @words is one of the figures of @v (or of the run's
 * other modes, for the summary), printed as the words print it. */
static void check_numbers(const char *fx, const struct bench_run *run, const char *words)
{
	for (const char *p = words; *p; ) {
		char tok[64];
		size_t n = 0;
		int ok = 0, prec;
		const char *dot;

		if (!isdigit((unsigned char)*p) || (p > words && (isalnum((unsigned char)p[-1]) ||
		    p[-1] == '_' || p[-1] == '-' || p[-1] == '.'))) {
			p++;
			continue;
		}
		while ((isdigit((unsigned char)p[n]) || p[n] == '.') && n < sizeof(tok) - 1) {
			tok[n] = p[n];
			n++;
		}
		tok[n] = '\0';
		if (n && tok[n - 1] == '.')
			tok[--n] = '\0';
		p += n;
		dot = strchr(tok, '.');
		prec = dot ? (int)strlen(dot + 1) : 0;
		for (unsigned int m = 0; m < run->job.nmodes && !ok; m++) {
			const struct verdict *v = &run->phases[m].v;
			const double all[] = {
				v->before_gbps, v->after_gbps, v->at_gib, v->fall_pct, v->gap_pct,
				v->fall_cause_pct, v->gap_cause_pct, v->cpu_per_gib,
				v->best_cpu_per_gib, v->growth_gbps, v->direct_pct, v->memcg_pct,
				v->lock_pct, v->throttle_pct, v->kswapd_pct, v->best_gbps,
				v->reclaim_rate, run->phases[m].cpu_kswapd_per_gib,
				isnan(v->direct_pct) ? NAN : v->direct_pct +
				(isnan(v->memcg_pct) ? 0 : v->memcg_pct),
				fmax(fmax(isnan(v->direct_pct) ? 0 : v->direct_pct,
					  isnan(v->memcg_pct) ? 0 : v->memcg_pct),
				     isnan(v->lock_pct) ? 0 : v->lock_pct),
				isnan(v->direct_pct) && !isnan(v->memcg_pct) ? 0 : NAN,
				(double)run->cpus,
			};

			for (size_t k = 0; k < sizeof(all) / sizeof(all[0]) && !ok; k++)
				ok = printed_as(tok, all[k], prec);
		}
		/* sizes ("1.0 GiB", "512 MiB") are not figures; "0.97 GiB" is */
		if (!ok && prec <= 1 && (!strncmp(p, " GiB", 4) || !strncmp(p, " MiB", 4) ||
			    !strncmp(p, " KiB", 4) || !strncmp(p, " B", 2)))
			ok = 1;
		if (!ok)
			bad(fx, "number %s in \"%s\" is none of the verdict's figures", tok, words);
	}
}

/* The words of one mode against its verdict: no contradiction. */
static void check_words(const char *fx, const struct bench_run *run, const struct bench_phase *ph)
{
	const struct verdict *v = &ph->v;
	const char *w = ph->verdict, *name = pc_strategy_name(ph->mode);
	char head[64];

	printf("  %s\n", w);
	if (ph->gap[0])
		printf("  %s\n", ph->gap);
	check_numbers(fx, run, w);
	check_numbers(fx, run, ph->gap);
	snprintf(head, sizeof(head), "%s: cliff:", name);
	if ((strncmp(w, head, strlen(head)) == 0) != v->cliff)
		bad(fx, "%s: words and cliff %d disagree", name, v->cliff);
	if (strstr(w, "no cliff") && v->cliff)
		bad(fx, "%s: 'no cliff' beside a cliff", name);
	if (strstr(w, "fell") && !(v->before_gbps > v->after_gbps))
		bad(fx, "%s: 'fell' but %.2f -> %.2f", name, v->before_gbps, v->after_gbps);
	if (strstr(w, "began"))
		bad(fx, "%s: says something began", name);
	if (strstr(w, "held against") && v->after_gbps < DETECT_FALL_SHARE * v->before_gbps)
		bad(fx, "%s: 'held' but %.2f -> %.2f", name, v->before_gbps, v->after_gbps);
	if ((strstr(w, "in direct reclaim (the host") || strstr(ph->gap, "direct reclaim (the host")) &&
	    !(v->direct_pct >= VERDICT_SHARE_MIN))
		bad(fx, "%s: names direct reclaim at %.1f%%", name, v->direct_pct);
	if ((strstr(w, "memory cgroup's reclaim took") != NULL) != (v->reasons & VR_MEMCG &&
	    !isnan(v->reclaim_rate) && v->kind != VERDICT_NOT_FULL && v->kind != VERDICT_NO_DATA &&
	    v->kind != VERDICT_NO_RECLAIM))
		bad(fx, "%s: whose reclaim: memcg %d", name, !!(v->reasons & VR_MEMCG));
	if (strstr(w, "inferred") && !(v->reasons & VR_UNTRACED))
		bad(fx, "%s: 'inferred' in a traced run", name);
	if (v->cliff && (v->reasons & VR_UNTRACED) && !strstr(w, "inferred from counters"))
		bad(fx, "%s: untraced cliff without 'inferred from counters'", name);
	if (v->gap && !(v->after_gbps < v->best_gbps))
		bad(fx, "%s: a gap but %.2f against best %.2f", name, v->after_gbps, v->best_gbps);
	if (strstr(ph->gap, "slower") && !v->gap)
		bad(fx, "%s: gap words without a gap", name);
}

/* "mode NAME KIND CLIFF GAP_CAUSE FALL_CAUSE FIRST_TOUCH" */
static void check_mode(const char *fx, const struct bench_run *run, const char *line)
{
	char name[32], kind[32], gap[32], fall[32];
	int cliff, touch;
	const struct bench_phase *ph;
	const struct verdict *v;

	T_CHECK(sscanf(line, "mode %31s %31s %d %31s %31s %d", name, kind, &cliff, gap, fall,
		       &touch) == 6, "%s: bad line %s\n", fx, line);
	ph = find_phase(run, name);
	if (!ph) {
		bad(fx, "no mode %s", name);
		return;
	}
	v = &ph->v;
	printf("%s %s: kind %s cliff %d gap %s (%.0f%%) fall cause %s first touch %d\n", fx,
	       name, verdict_kind_name(v->kind), v->cliff,
	       v->gap ? verdict_cause_name(v->gap_cause) : "-", v->gap_pct,
	       verdict_cause_name(v->fall_cause), !!(v->reasons & VR_FIRST_TOUCH));
	if (strcmp(kind, verdict_kind_name(v->kind)) || cliff != v->cliff ||
	    strcmp(gap, v->gap ? verdict_cause_name(v->gap_cause) : "-") ||
	    strcmp(fall, verdict_cause_name(v->fall_cause)) ||
	    touch != !!(v->reasons & VR_FIRST_TOUCH))
		bad(fx, "%s: want kind %s cliff %d gap %s fall cause %s first touch %d", name, kind,
		    cliff, gap, fall, touch);
	check_words(fx, run, ph);
}

/* "fig MODE NAME VALUE TOLERANCE" */
static void check_fig(const char *fx, const struct bench_run *run, const char *line)
{
	char name[32], fig[32];
	double want, tol, got;
	const struct bench_phase *ph;

	T_CHECK(sscanf(line, "fig %31s %31s %lf %lf", name, fig, &want, &tol) == 4,
		"%s: bad line %s\n", fx, line);
	ph = find_phase(run, name);
	got = ph ? figure(&ph->v, fig) : NAN;
	if (!(fabs(got - want) <= tol))
		bad(fx, "%s %s: %.4f, want %.4f +- %g", name, fig, got, want, tol);
}

/* The fixture's run, context applied and analysed. */
static struct bench_run *analysed(const char *dir, const char *fx, FILE **ret_expect)
{
	char path[4300], line[512], key[32], val[160];
	struct bench_run *run;
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s.csv", dir, fx);
	run = load_run(path);
	snprintf(path, sizeof(path), "%s/%s.verdict", dir, fx);
	fp = fopen(path, "r");
	T_CHECK(fp, "cannot open %s\n", path);
	while (fgets(line, sizeof(line), fp))
		if (sscanf(line, "%31s %159[^\n]", key, val) == 2 && key[0] != '#' &&
		    strcmp(key, "mode") && strcmp(key, "fig") && strcmp(key, "summary"))
			context(run, key, val);
	rewind(fp);
	bench_analyse(run);
	*ret_expect = fp;
	return run;
}

static void check_fixture(const char *dir, const char *fx)
{
	char line[512];
	FILE *fp;
	struct bench_run *run = analysed(dir, fx, &fp);

	printf("%s\n  %s\n", fx, run->summary);
	check_numbers(fx, run, run->summary);
	T_CHECK(!strncmp(run->summary, "summary: ", 9), "%s: summary '%s'\n", fx, run->summary);
	while (fgets(line, sizeof(line), fp)) {
		line[strcspn(line, "\n")] = '\0';
		if (!strncmp(line, "mode ", 5))
			check_mode(fx, run, line);
		else if (!strncmp(line, "fig ", 4))
			check_fig(fx, run, line);
		else if (!strncmp(line, "summary ", 8) && !strstr(run->summary, line + 8))
			bad(fx, "summary lacks '%s'", line + 8);
	}
	/* a cliff in the summary only with a cliff in a mode */
	{
		int any = 0;

		for (unsigned int m = 0; m < run->job.nmodes; m++)
			any |= run->phases[m].v.cliff;
		if (any != !strncmp(run->summary, "summary: cliff:", 15))
			bad(fx, "summary and modes disagree on the cliff");
	}
	fclose(fp);
	free_run(run);
}

int main(int argc, char **argv)
{
	static const char *fixtures[] = {
		"issue-2cpu-gap", "ram-cap1g-v1-2jobs", "ram-nocap-fits",
		"synthetic-seed-report", "synthetic-seed-traced", "synthetic-fall-unexplained",
		"synthetic-fast-fill", "ram-cap1g-v1-traced-default",
	};
	const char *src = getenv("PAGECLIFF_SRCDIR");
	char dir[4096];

	snprintf(dir, sizeof(dir), "%s/tests/bench/fixtures", src ? src : ".");
	if (argc == 4 && !strcmp(argv[1], "--svg")) {
		FILE *fp, *out = fopen(argv[3], "w");
		struct bench_run *run = analysed(dir, argv[2], &fp);

		T_CHECK(out, "cannot write %s\n", argv[3]);
		bench_plot_svg(run, out);
		fclose(out);
		fclose(fp);
		free_run(run);
		return T_EXIT_PASS;
	}
	for (size_t i = 0; i < sizeof(fixtures) / sizeof(fixtures[0]); i++) {
		check_fixture(dir, fixtures[i]);
		check_round_trip(dir, fixtures[i]);
	}
	if (fails)
		t_fail("%d checks failed\n", fails);
	printf("PASS\n");
	return T_EXIT_PASS;
}
