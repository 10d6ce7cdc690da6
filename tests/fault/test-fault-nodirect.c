// SPDX-License-Identifier: MIT
/*
 * A file system that refuses O_DIRECT (faultfs "nodirect": open(2) with
 * O_DIRECT fails with EINVAL, as on file systems without direct I/O).
 * "direct" falls back to dropbehind and says why; auto does not choose
 * direct and says why; every byte is exact.
 */
#include <errno.h>
#include <string.h>

#include "helpers.h"
#include "rig.h"

#define FILE_SIZE ((6ull << 20) + 1)

static void check_one(enum pc_strategy strat, size_t len)
{
	const char *name = pc_strategy_name(strat);
	struct fr_result r;
	struct pc_stats st;
	struct pc_stream *s;

	s = fr_openf(strat, "size=%llu,nodirect,tag=%s-%zu",
		     (unsigned long long)FILE_SIZE, name, len);
	fr_drain_close(s, len, &r, &st);
	printf("%-6s len %-8zu: %llu bytes, %s (%s)\n", name, len,
	       (unsigned long long)r.bytes, pc_strategy_name(st.strategy), st.reason);
	T_CHECK(!r.err && r.bad < 0 && r.bytes == FILE_SIZE,
		"%s: %llu bytes, error %d, bad byte %lld", name,
		(unsigned long long)r.bytes, r.err, (long long)r.bad);
	T_CHECK(st.strategy == PC_DROPBEHIND, "%s: ended up %s, not dropbehind",
		name, pc_strategy_name(st.strategy));
	T_CHECK(strstr(st.reason, "O_DIRECT refused"),
		"%s: the reason does not say O_DIRECT was refused: %s", name, st.reason);
	T_CHECK(strat != PC_DIRECT || strstr(st.reason, "Invalid argument"),
		"%s: the reason does not give the errno: %s", name, st.reason);
}

int main(void)
{
	fr_mount();
	fr_watchdog(60);
	check_one(PC_DIRECT, 1 << 20);
	check_one(PC_DIRECT, 0);
	check_one(PC_AUTO, 1 << 20);
	printf("O_DIRECT refused: fallback named and exact\n");
	return T_EXIT_PASS;
}
