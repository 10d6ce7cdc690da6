// SPDX-License-Identifier: MIT
/*
 * The aggregation of trace, on a recorded event list (fixtures/events.txt,
 * tracefs text with record-tgid): per-thread spans, nested begins, ends
 * without a begin, other processes filtered out, spans open across an
 * interval's end, kswapd per node, dirty-throttle pauses, and lock waits by
 * caller and kind.  Each figure is worked out by hand in the comments.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"
#include "trace.h"

#define NEAR(a, b) (fabs((a) - (b)) < 1e-6)

/* Fold the fixture for @tgid, taking snapshots at each of @times. */
static void replay(const char *path, pid_t tgid, const double *times, size_t n,
		   struct trace_snap *snaps)
{
	struct trace_fold *f;
	char line[1024];
	size_t next = 0;
	FILE *fp = fopen(path, "r");

	T_CHECK(fp, "cannot open %s\n", path);
	T_CHECK(!trace_fold_new(&f, tgid), "out of memory\n");
	while (fgets(line, sizeof(line), fp)) {
		const char *p = strchr(line, ']');
		double ts = p ? strtod(p + 1 + strcspn(p + 1, "0123456789"), NULL) : 0;

		while (p && next < n && ts > times[next]) {
			trace_fold_snap(f, times[next], &snaps[next]);
			next++;
		}
		T_CHECK(!trace_fold_line(f, line), "cannot parse: %s", line);
	}
	for (; next < n; next++)
		trace_fold_snap(f, times[next], &snaps[next]);
	fclose(fp);
	trace_fold_free(f);
}

static void check_readers(const char *path)
{
	static const double t[] = { 10.0, 11.0, 11.5, 12.0 };
	struct trace_snap s[4];
	struct trace_shares sh;

	replay(path, 100, t, 4, s);
	/* 10-11 s, two readers: memcg 0.1 s of 2 s = 5%; direct 10.2-10.5 (the
	 * nested begin at 10.25 does not restart it) = 15%; lock 0.05 + 0.2 s =
	 * 12.5% (the end at 10.95 had no begin); kswapd 10.0-10.4 of one node 40% */
	trace_interval(&s[0], &s[1], 2, 1, &sh);
	T_CHECK(NEAR(sh.memcg_pct, 5) && NEAR(sh.direct_pct, 15), "memcg %g direct %g\n",
		sh.memcg_pct, sh.direct_pct);
	T_CHECK(NEAR(sh.lock_pct, 12.5) && NEAR(sh.kswapd_pct, 40) && NEAR(sh.throttle_pct, 0),
		"lock %g kswapd %g throttle %g\n", sh.lock_pct, sh.kswapd_pct, sh.throttle_pct);
	T_CHECK(NEAR(sh.direct_ms_s, 300) && NEAR(sh.lock_ms_s, 250), "direct %g lock %g ms/s\n",
		sh.direct_ms_s, sh.lock_ms_s);
	T_CHECK(sh.ntop == 2, "%u callers\n", sh.ntop);
	T_CHECK(!strcmp(sh.top[0].name, "0xffff888100002000") &&
		!strcmp(sh.top[0].kind, "rwsem (read)") && sh.top[0].ns == 200000000,
		"top %s %s %llu\n", sh.top[0].kind, sh.top[0].name,
		(unsigned long long)sh.top[0].ns);
	T_CHECK(!strcmp(sh.top[1].kind, "spin lock") && sh.top[1].ns == 50000000,
		"second %s %llu\n", sh.top[1].kind, (unsigned long long)sh.top[1].ns);
	/* 11-11.5 s: the 20 ms pause = 2%; memcg open since 11.2 = 0.3 s = 30% */
	trace_interval(&s[1], &s[2], 2, 1, &sh);
	T_CHECK(NEAR(sh.throttle_pct, 2) && NEAR(sh.memcg_pct, 30) && NEAR(sh.kswapd_pct, 0),
		"throttle %g memcg %g kswapd %g\n", sh.throttle_pct, sh.memcg_pct, sh.kswapd_pct);
	T_CHECK(sh.ntop == 0, "no lock waits here, got %u\n", sh.ntop);
	/* 11.5-12 s: the rest of that span, 0.3 s = 30%; kswapd open 0.5 s = 100% */
	trace_interval(&s[2], &s[3], 2, 1, &sh);
	T_CHECK(NEAR(sh.memcg_pct, 30) && NEAR(sh.kswapd_pct, 100) && NEAR(sh.direct_pct, 0),
		"memcg %g kswapd %g direct %g\n", sh.memcg_pct, sh.kswapd_pct, sh.direct_pct);
	/* the whole: 0.7 s memcg, 2 spans finished */
	T_CHECK(s[3].n[TRACE_MEMCG] == 2 && s[3].ns[TRACE_MEMCG] == 700000000,
		"memcg %llu spans %llu ns\n", (unsigned long long)s[3].n[TRACE_MEMCG],
		(unsigned long long)s[3].ns[TRACE_MEMCG]);
}

static void check_all(const char *path)
{
	static const double t[] = { 10.0, 11.0 };
	struct trace_snap s[2];
	struct trace_shares sh;

	/* every process: 201's 0.1 s of direct reclaim counts too, 0.4 s in all */
	replay(path, 0, t, 2, s);
	trace_interval(&s[0], &s[1], 2, 1, &sh);
	T_CHECK(NEAR(sh.direct_pct, 20) && NEAR(sh.direct_ms_s, 400), "direct %g %g\n",
		sh.direct_pct, sh.direct_ms_s);
	/* no threads or nodes: unknown, not 0 */
	trace_interval(&s[0], &s[1], 0, 0, &sh);
	T_CHECK(isnan(sh.direct_pct) && isnan(sh.kswapd_pct), "want NAN\n");
}

static void check_parse(void)
{
	struct trace_fold *f;
	struct trace_snap s;

	T_CHECK(!trace_fold_new(&f, 0), "out of memory\n");
	T_CHECK(trace_fold_line(f, "garbage without the fields\n") == -EINVAL, "garbage\n");
	T_CHECK(trace_fold_line(f, "# comment\n") == 0 && trace_fold_line(f, "\n") == 0, "blank\n");
	/* a comm with dashes and spaces, and a nid out of range */
	T_CHECK(!trace_fold_line(f, "  kworker/u8:2-ev ent-77 (   77) [003] ..... 5.000000: "
				 "mm_vmscan_direct_reclaim_begin: order=0\n"), "comm\n");
	T_CHECK(!trace_fold_line(f, "  kworker/u8:2-ev ent-77 (   77) [003] ..... 5.250000: "
				 "mm_vmscan_direct_reclaim_end: nr_reclaimed=1\n"), "comm end\n");
	T_CHECK(trace_fold_line(f, "  kswapd0-50 (   50) [001] ..... 5.3: mm_vmscan_kswapd_wake: "
				"nid=999 order=0\n") == -EINVAL, "nid\n");
	trace_fold_snap(f, 6.0, &s);
	T_CHECK(s.ns[TRACE_DIRECT] == 250000000 && s.n[TRACE_DIRECT] == 1, "direct %llu\n",
		(unsigned long long)s.ns[TRACE_DIRECT]);
	trace_fold_free(f);
}

static void check_kinds(void)
{
	T_CHECK(!strcmp(trace_lock_kind(1), "spin lock"), "spin\n");
	T_CHECK(!strcmp(trace_lock_kind(1 | 2), "rwlock (read)"), "rwlock\n");
	T_CHECK(!strcmp(trace_lock_kind(32), "mutex"), "mutex\n");
	T_CHECK(!strcmp(trace_lock_kind(4), "rwsem (write)"), "rwsem\n");
	T_CHECK(!strcmp(trace_lock_kind(16 | 2), "percpu rwsem (read)"), "percpu\n");
}

int main(int argc, char **argv)
{
	char path[4096];
	const char *src = getenv("PAGECLIFF_SRCDIR");

	if (!src)
		t_skip("PAGECLIFF_SRCDIR is not set (run through meson test)");
	snprintf(path, sizeof(path), "%s/tests/trace/fixtures/events.txt", src);
	check_readers(path);
	check_all(path);
	check_parse();
	check_kinds();
	printf("PASS: trace aggregation on recorded events\n");
	return 0;
}
