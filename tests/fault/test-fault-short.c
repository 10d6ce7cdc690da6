// SPDX-License-Identifier: MIT
/*
 * Short reads before end of file: faultfs replies with at most N bytes per
 * request (and opens with FOPEN_DIRECT_IO, so the short reply reaches the
 * caller: read(2) and the io_uring completion come back short).  The library
 * promises short reads only at end of file: every strategy must complete
 * them, hand out exactly the file's bytes, and return a full buffer each time.
 * 1000 is unaligned (an O_DIRECT completion of 1000 bytes), 4096 aligned.
 */
#include <errno.h>
#include <string.h>

#include "helpers.h"
#include "rig.h"

#define FILE_SIZE (3ull * (1 << 20) + 5)

static int check_one(enum pc_strategy strat, size_t len, unsigned int short_len)
{
	const char *name = pc_strategy_name(strat);
	char buf[200000];
	struct fr_result r;
	struct pc_stats st;
	struct pc_stream *s;
	ssize_t n;
	int ok;

	s = fr_openf(strat, "size=%llu,short=%u,tag=%s-%zu",
		     (unsigned long long)FILE_SIZE, short_len, name, len);
	n = pc_stream_pread(s, buf, sizeof(buf), 12345);
	T_CHECK(n == (ssize_t)sizeof(buf) && t_pattern_check(buf, 12345, n, FR_SEED) < 0,
		"%s: pread of %zu bytes gave %zd or wrong bytes", name, sizeof(buf), n);
	fr_drain_close(s, len, &r, &st);
	ok = r.err == 0 && r.bytes == FILE_SIZE && r.bad < 0 && !r.short_reads;
	printf("%s %-10s short %-5u len %-8zu: %llu of %llu bytes, %s, %llu short reads, bad %lld; %s (%s)\n",
	       ok ? "ok  " : "FAIL", name, short_len, len, (unsigned long long)r.bytes,
	       (unsigned long long)FILE_SIZE, r.err ? strerror(-r.err) : "end of file",
	       (unsigned long long)r.short_reads, (long long)r.bad,
	       pc_strategy_name(st.strategy), st.reason);
	return ok;
}

int main(void)
{
	static const size_t lens[] = { 1 << 20, 65536 + 3, 0 };
	static const unsigned int shorts[] = { 1000, 4096 };
	int failed = 0;

	fr_mount();
	fr_watchdog(60);
	for (unsigned int i = 0; i < fr_nstrategies; i++)
		for (unsigned int j = 0; j < 2; j++)
			for (unsigned int k = 0; k < 3; k++)
				failed += !check_one(fr_strategies[i], lens[k], shorts[j]);
	T_CHECK(!failed, "%d cases lost bytes, returned short or failed", failed);
	printf("every strategy completes short reads\n");
	return T_EXIT_PASS;
}
