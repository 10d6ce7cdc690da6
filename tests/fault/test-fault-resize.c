// SPDX-License-Identifier: MIT
/*
 * A file that changes size while it is read.  faultfs shrinks (or grows) the
 * file once a read request has gone past a given offset, ahead of the
 * reader.  Shrink: every strategy hands out exactly the bytes that remain,
 * then end of file, never a byte past the new end.  Grow: the stream picks
 * the growth up (end of file is where read(2) ends), every byte exact; a
 * stream opened afterwards reads the new size too.
 */
#include <errno.h>
#include <string.h>

#include "helpers.h"
#include "rig.h"

#define MIB (1ull << 20)

static void drain_path(const char *path, enum pc_strategy strat, size_t len,
		       struct fr_result *r, struct pc_stats *st)
{
	struct pc_stream *s = fr_open(path, strat);

	fr_drain(s, len, FR_SEED, r);
	pc_stream_stats(s, st);
	pc_stream_close(s);
}

static int check_shrink(enum pc_strategy strat, size_t len)
{
	const uint64_t old_size = 8 * MIB, new_size = 5 * MIB + 77;
	const char *name = pc_strategy_name(strat);
	struct fr_result r;
	struct pc_stats st;
	char path[512];
	int ok;

	fr_path(path, sizeof(path), "size=%llu,shrink=%llu:%llu,tag=%s-%zu",
		(unsigned long long)old_size, 2 * MIB, (unsigned long long)new_size,
		name, len);
	drain_path(path, strat, len, &r, &st);
	ok = !r.err && r.bad < 0 && r.bytes == new_size;
	printf("%s shrink %-10s len %-8zu: %llu bytes (want %llu), %s; %s\n",
	       ok ? "ok  " : "FAIL", name, len, (unsigned long long)r.bytes,
	       (unsigned long long)new_size, r.err ? strerror(-r.err) : "end of file",
	       pc_strategy_name(st.strategy));
	return ok;
}

static int check_grow(enum pc_strategy strat, size_t len)
{
	const uint64_t old_size = 3 * MIB, new_size = 6 * MIB + 5;
	const char *name = pc_strategy_name(strat);
	struct fr_result r, again;
	struct pc_stats st;
	char path[512];
	int ok;

	fr_path(path, sizeof(path), "size=%llu,grow=%llu:%llu,tag=%s-%zu",
		(unsigned long long)old_size, MIB, (unsigned long long)new_size,
		name, len);
	drain_path(path, strat, len, &r, &st);
	drain_path(path, strat, len, &again, &st);
	ok = !r.err && r.bad < 0 && r.bytes == new_size &&
	     !again.err && again.bad < 0 && again.bytes == new_size;
	printf("%s grow   %-10s len %-8zu: %llu bytes (%s), then %llu; %s\n",
	       ok ? "ok  " : "FAIL", name, len, (unsigned long long)r.bytes,
	       r.bytes == new_size ? "picked up" : r.bytes == old_size ? "old size" : "neither",
	       (unsigned long long)again.bytes, pc_strategy_name(st.strategy));
	return ok;
}

int main(void)
{
	static const size_t lens[] = { 1 << 20, 65536 + 3, 0 };
	int failed = 0;

	fr_mount();
	fr_watchdog(60);
	for (unsigned int i = 0; i < fr_nstrategies; i++)
		for (unsigned int k = 0; k < 3; k++) {
			failed += !check_shrink(fr_strategies[i], lens[k]);
			failed += !check_grow(fr_strategies[i], lens[k]);
		}
	T_CHECK(!failed, "%d cases handed out wrong sizes or bytes", failed);
	printf("shrinking and growing files read exactly\n");
	return T_EXIT_PASS;
}
