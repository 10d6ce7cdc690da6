// SPDX-License-Identifier: MIT
/*
 * The cliff detector on recorded timelines: for each fixture NAME.csv in
 * tests/bench/fixtures, every mode's verdict must match NAME.expect.
 * The best mode is chosen as bench_analyse() does: by the throughput each
 * mode held once its cache was full (or throughout).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench-detect.h"
#include "helpers.h"

#define MAX_MODES 8
#define MAX_POINTS 4096

struct mode {
	char name[64];
	struct detect_point p[MAX_POINTS];
	size_t n;
	struct detect_result r;
};

static const char *kinds[] = { "cliff", "held", "not_full", "no_reclaim", "no_data",
				"unmeasured" };

static int column(char *header, const char *name)
{
	int i = 0;

	for (char *tok = strtok(header, ",\n"); tok; tok = strtok(NULL, ",\n"), i++)
		if (!strcmp(tok, name))
			return i;
	return -1;
}

static int col_of(const char *line, const char *name)
{
	char copy[4096];

	snprintf(copy, sizeof(copy), "%s", line);
	return column(copy, name);
}

static const char *field(char *line, int col, char *buf, size_t len)
{
	char copy[4096], *save = NULL, *tok;
	int i = 0;

	snprintf(copy, sizeof(copy), "%s", line);
	for (tok = strtok_r(copy, ",\n", &save); tok && i < col; tok = strtok_r(NULL, ",\n", &save))
		i++;
	snprintf(buf, len, "%s", tok ? tok : "");
	return buf;
}

static size_t load(const char *path, struct mode *modes)
{
	char header[4096], line[4096], f[32];
	int cm, cg, cb, cc, cl, cr;
	size_t nmodes = 0;
	FILE *fp = fopen(path, "r");

	T_CHECK(fp, "cannot open %s\n", path);
	T_CHECK(fgets(header, sizeof(header), fp), "empty %s\n", path);
	cm = col_of(header, "mode");
	cg = col_of(header, "gib");
	cb = col_of(header, "gbps");
	cc = col_of(header, "cache_bytes");
	cl = col_of(header, "cache_limit");
	cr = col_of(header, "reclaim_pages_s");
	T_CHECK(cm >= 0 && cg >= 0 && cb >= 0 && cc >= 0 && cl >= 0 && cr >= 0,
		"%s lacks a column\n", path);
	while (fgets(line, sizeof(line), fp)) {
		struct mode *m = NULL;
		struct detect_point *p;

		field(line, cm, f, sizeof(f));
		for (size_t i = 0; i < nmodes; i++)
			if (!strcmp(modes[i].name, f))
				m = &modes[i];
		if (!m) {
			T_CHECK(nmodes < MAX_MODES, "too many modes\n");
			m = &modes[nmodes++];
			snprintf(m->name, sizeof(m->name), "%s", f);
			m->n = 0;
		}
		T_CHECK(m->n < MAX_POINTS, "too many points\n");
		p = &m->p[m->n++];
		p->gib = strtod(field(line, cg, f, sizeof(f)), NULL);
		p->gbps = strtod(field(line, cb, f, sizeof(f)), NULL);
		p->cache = strtod(field(line, cc, f, sizeof(f)), NULL);
		p->limit = strtod(field(line, cl, f, sizeof(f)), NULL);
		p->reclaim = strtod(field(line, cr, f, sizeof(f)), NULL);
	}
	fclose(fp);
	return nmodes;
}

static void judge(struct mode *modes, size_t n)
{
	double best = NAN;

	for (size_t i = 0; i < n; i++) {
		detect_cliff(modes[i].p, modes[i].n, NAN, &modes[i].r);
		if (!isnan(modes[i].r.after_gbps) && !(modes[i].r.after_gbps <= best))
			best = modes[i].r.after_gbps;
	}
	for (size_t i = 0; i < n; i++)
		detect_cliff(modes[i].p, modes[i].n, best, &modes[i].r);
}

static int check_fixture(const char *dir, const char *name)
{
	static struct mode modes[MAX_MODES];
	char path[4200], mode[32], kind[32];
	int cliff, growth, fails = 0;
	size_t n;
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s.csv", dir, name);
	n = load(path, modes);
	judge(modes, n);
	snprintf(path, sizeof(path), "%s/%s.expect", dir, name);
	fp = fopen(path, "r");
	T_CHECK(fp, "cannot open %s\n", path);
	while (fscanf(fp, "%31s %d %31s %d", mode, &cliff, kind, &growth) == 4) {
		const struct detect_result *r = NULL;

		for (size_t i = 0; i < n; i++)
			if (!strcmp(modes[i].name, mode))
				r = &modes[i].r;
		if (!r) {
			printf("%s: no mode %s in the timeline\n", name, mode);
			fails++;
			continue;
		}
		printf("%s %s: cliff %d kind %s growth_drop %d (after %.2f GB/s, best %.2f, "
		       "full at %.2f GiB, reclaim %.0f pages/s)\n", name, mode, r->cliff,
		       kinds[r->kind], r->growth_drop, r->after_gbps, r->best_gbps, r->at_gib,
		       r->reclaim_rate);
		if (r->cliff != cliff || strcmp(kinds[r->kind], kind) || r->growth_drop != growth) {
			printf("  FAIL: expected cliff %d kind %s growth_drop %d\n", cliff, kind, growth);
			fails++;
		}
	}
	fclose(fp);
	return fails;
}

/* Pure checks on hand-made points: order-independence of the median, short input. */
static void check_basics(void)
{
	double v[] = { 3, 1, 2, 10 };
	struct detect_point p[1] = { { .gib = 1, .gbps = 1, .limit = NAN, .reclaim = NAN,
					.direct_pct = NAN, .memcg_pct = NAN, .lock_pct = NAN } };
	struct detect_result r;

	T_CHECK(detect_median(v, 4) == 2.5, "median %g\n", detect_median(v, 4));
	T_CHECK(v[0] == 3, "median reordered its input\n");
	T_CHECK(isnan(detect_median(v, 0)), "median of nothing\n");
	detect_cliff(p, 1, 5, &r);
	T_CHECK(r.kind == DETECT_NO_DATA && !r.cliff, "one point gave kind %d\n", r.kind);
}

int main(void)
{
	static const char *fixtures[] = {
		"ram-cap1g-v1-default", "ram-cap1g-v1-2jobs", "ram-cap1g-v1-8jobs",
		"ram-cap1g-v1-zerocopy",
		"ram-nocap-fits", "synthetic-seed-report", "synthetic-fast-fill", "issue-2cpu-gap",
	};
	const char *src = getenv("PAGECLIFF_SRCDIR");
	char dir[4096];
	int fails = 0;

	snprintf(dir, sizeof(dir), "%s/tests/bench/fixtures", src ? src : ".");
	check_basics();
	for (size_t i = 0; i < sizeof(fixtures) / sizeof(fixtures[0]); i++)
		fails += check_fixture(dir, fixtures[i]);
	if (fails)
		t_fail("%d verdicts differ from the fixtures' expectations\n", fails);
	printf("PASS\n");
	return T_EXIT_PASS;
}
