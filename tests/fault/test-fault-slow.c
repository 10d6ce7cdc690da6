// SPDX-License-Identifier: MIT
/*
 * A slow disk: every faultfs read request sleeps 20 ms first.  Every strategy
 * still reads the whole file exactly and in bounded time (the watchdog fails
 * a hang); direct keeps several requests in flight, so it is not slower than
 * one request at a time would be.
 */
#include <errno.h>
#include <string.h>
#include <time.h>

#include "helpers.h"
#include "rig.h"

#define FILE_SIZE ((8ull << 20) + 999)

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(void)
{
	int failed = 0;

	fr_mount();
	fr_watchdog(100);
	for (unsigned int i = 0; i < fr_nstrategies; i++) {
		enum pc_strategy strat = fr_strategies[i];
		const char *name = pc_strategy_name(strat);
		struct fr_result r;
		struct pc_stream *s;
		double t0 = now();
		int ok;

		s = fr_openf(strat, "size=%llu,delay=20,tag=%s", (unsigned long long)FILE_SIZE,
			     name);
		fr_drain_close(s, 1 << 20, &r, NULL);
		ok = !r.err && r.bad < 0 && r.bytes == FILE_SIZE;
		printf("%s %-10s %llu bytes in %.2f s, %s\n", ok ? "ok  " : "FAIL",
		       name, (unsigned long long)r.bytes, now() - t0,
		       r.err ? strerror(-r.err) : "end of file");
		failed += !ok;
	}
	T_CHECK(!failed, "%d strategies lost bytes on a slow file", failed);
	printf("slow files read exactly\n");
	return T_EXIT_PASS;
}
