// SPDX-License-Identifier: MIT
/* The monotonic clock (clock.h); clock_gettime(2) is async-signal-safe. */
#include <time.h>

#include "clock.h"

uint64_t pcc_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

double pcc_now_sec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}
