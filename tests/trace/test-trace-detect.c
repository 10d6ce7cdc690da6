// SPDX-License-Identifier: MIT
/*
 * The detector with measured shares of time: where the pages reclaimed are
 * not counted (NAN), time in reclaim says whether reclaim ran; the medians
 * of the shares once the cache was full are in the result; counted pages
 * still decide when there are some.
 */
#include <math.h>
#include <stdio.h>

#include "bench-detect.h"
#include "helpers.h"

#define N 10

/*
 * 2 GB/s for two intervals while the cache grows, then full at 95% of its
 * limit from the third on, at @after GB/s.
 */
static void points(struct detect_point *p, double reclaim, double memcg, double direct,
		   double after)
{
	for (int i = 0; i < N; i++)
		p[i] = (struct detect_point){ .gib = i + 1, .gbps = i < 2 ? 2.0 : after,
					      .cache = i < 2 ? 30 + 20 * i : 95, .limit = 100,
					      .reclaim = reclaim, .memcg_pct = memcg * (1 + i % 2 / 30.0),
					      .direct_pct = direct, .lock_pct = 2 };
}

int main(void)
{
	struct detect_point p[N];
	struct detect_result r;

	points(p, NAN, 30, NAN, 1.0);	/* v1 cgroup: no page counts; 30-31% in memcg reclaim */
	detect_cliff(p, N, 2.0, &r);
	T_CHECK(r.kind == DETECT_CLIFF && r.cliff, "kind %d\n", r.kind);
	/* after the interval it filled in: points 3-9, four at 31%, three at 30% */
	T_CHECK(fabs(r.memcg_pct - 31) < 1e-9 && isnan(r.direct_pct) && r.lock_pct == 2,
		"memcg %g direct %g lock %g\n", r.memcg_pct, r.direct_pct, r.lock_pct);
	points(p, NAN, 0.2, 0.3, 1.0);	/* half a percent: noise */
	detect_cliff(p, N, 2.0, &r);
	T_CHECK(r.kind == DETECT_NO_RECLAIM, "noise: kind %d\n", r.kind);
	points(p, NAN, NAN, NAN, 1.0);	/* not traced either: as before */
	detect_cliff(p, N, 2.0, &r);
	T_CHECK(r.kind == DETECT_NO_RECLAIM && isnan(r.memcg_pct), "untraced: kind %d\n", r.kind);
	points(p, 0, 30, NAN, 1.0);	/* counted pages say none: they decide */
	detect_cliff(p, N, 2.0, &r);
	T_CHECK(r.kind == DETECT_NO_RECLAIM, "counted: kind %d\n", r.kind);
	points(p, NAN, 30, NAN, 1.95);	/* held its own speed */
	detect_cliff(p, N, 2.0, &r);
	T_CHECK(r.kind == DETECT_HELD, "held: kind %d\n", r.kind);
	printf("PASS: the detector with measured reclaim time\n");
	return 0;
}
