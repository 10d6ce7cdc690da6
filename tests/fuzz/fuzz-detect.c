// SPDX-License-Identifier: MIT
/*
 * libFuzzer target for the cliff detector (engine/bench/bench-detect.c).  The input is
 * raw doubles: the best throughput of the run, then five per interval (GiB
 * read, GB/s, cache bytes, cache limit, reclaim pages/s), NaN, infinities
 * and negative values included.  Besides the sanitizers: the verdict is one
 * of the kinds, cliff agrees with it, full_at is within the timeline, fewer
 * than two intervals is "no data", and the input is not changed.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bench-detect.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(c) do { if (!(c)) abort(); } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct detect_result r;
	struct detect_point *p;
	double best = 0;
	size_t n;

	if (size < sizeof(best))
		return 0;
	memcpy(&best, data, sizeof(best));
	n = (size - sizeof(best)) / sizeof(*p);
	p = malloc(n * sizeof(*p) + 1);
	if (!p)
		return 0;
	memcpy(p, data + sizeof(best), n * sizeof(*p));
	detect_cliff(p, n, best, &r);
	CHECK(r.kind >= DETECT_CLIFF && r.kind <= DETECT_UNMEASURED);
	CHECK(r.cliff == (r.kind == DETECT_CLIFF));
	CHECK(r.full_at <= n);
	CHECK(n >= 2 || r.kind == DETECT_NO_DATA);
	CHECK(!memcmp(p, data + sizeof(best), n * sizeof(*p)));
	detect_median((const double *)p, n * 5);
	CHECK(!memcmp(p, data + sizeof(best), n * sizeof(*p)));
	free(p);
	return 0;
}
