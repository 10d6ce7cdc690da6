// SPDX-License-Identifier: MIT
/*
 * A disk that fails: a read covering one byte of a faultfs file returns EIO.
 * Every strategy, with the copy and the zero-copy API, hands out only good
 * bytes before that byte, everything before the failing chunk, then -EIO;
 * the next read does not pretend end of file; and a
 * positioned read over the byte fails too.  With "direct" the error comes
 * back as an io_uring completion, for real.
 */
#include <errno.h>
#include <string.h>

#include "helpers.h"
#include "rig.h"

#define FILE_SIZE (4ull << 20)
#define BAD_BYTE 2621563ull		/* 2.5 MiB + 123 */
#define CHUNK (1ull << 20)		/* the library's default chunk */

static void check_one(enum pc_strategy strat, size_t len, const char *extra)
{
	const char *name = pc_strategy_name(strat);
	char buf[100];
	struct fr_result r;
	struct pc_stats st;
	struct pc_stream *s;
	ssize_t n;

	s = fr_openf(strat, "size=%llu,eio=%llu%s,tag=%s-%zu",
		     (unsigned long long)FILE_SIZE, BAD_BYTE, extra, name, len);
	fr_drain(s, len, FR_SEED, &r);
	pc_stream_stats(s, &st);
	printf("%-10s %-8s len %-8zu: %llu bytes then %s; %s (%s)\n", name, extra,
	       len, (unsigned long long)r.bytes, strerror(-r.err),
	       pc_strategy_name(st.strategy), st.reason);
	T_CHECK(r.bad < 0, "%s: wrong byte at %lld", name, (long long)r.bad);
	T_CHECK(r.err == -EIO, "%s: ended with %d (%s), not -EIO after %llu bytes",
		name, r.err, strerror(-r.err), (unsigned long long)r.bytes);
	T_CHECK(r.bytes <= BAD_BYTE, "%s: %llu bytes handed out past the bad byte",
		name, (unsigned long long)r.bytes);
	T_CHECK(r.bytes >= BAD_BYTE - BAD_BYTE % CHUNK,
		"%s: only %llu bytes before the failing chunk", name,
		(unsigned long long)r.bytes);
	T_CHECK(st.bytes_read == r.bytes, "%s: stats say %llu bytes, got %llu",
		name, (unsigned long long)st.bytes_read, (unsigned long long)r.bytes);
	if (strat == PC_DIRECT)
		T_CHECK(st.strategy == PC_DIRECT, "direct fell back: %s", st.reason);
	/* faultfs fails only requests covering the byte: good bytes are fine too. */
	n = pc_stream_read(s, buf, sizeof(buf));
	T_CHECK(n == -EIO || (n > 0 && t_pattern_check(buf, r.bytes, n, FR_SEED) < 0),
		"%s: the read after the error gave %zd, not -EIO or good bytes", name, n);
	n = pc_stream_pread(s, buf, sizeof(buf), BAD_BYTE - 10);
	T_CHECK(n == -EIO, "%s: pread over the bad byte gave %zd, not -EIO", name, n);
	n = pc_stream_pread(s, buf, sizeof(buf), 4096);
	T_CHECK(n == (ssize_t)sizeof(buf) && t_pattern_check(buf, 4096, n, FR_SEED) < 0,
		"%s: pread of good bytes gave %zd or wrong bytes", name, n);
	pc_stream_close(s);
}

int main(void)
{
	fr_mount();
	fr_watchdog(60);
	for (unsigned int i = 0; i < fr_nstrategies; i++) {
		check_one(fr_strategies[i], 1 << 20, "");
		check_one(fr_strategies[i], 65536 + 3, "");
		check_one(fr_strategies[i], 0, "");
		check_one(fr_strategies[i], 1 << 20, ",dio");
	}
	printf("every strategy stops at the bad byte with EIO\n");
	return T_EXIT_PASS;
}
