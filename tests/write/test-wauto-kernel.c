// SPDX-License-Identifier: MIT
/*
 * auto for writes knows that uncached writes are slow before the kernel
 * whose RWF_DONTCACHE writes kick the flusher (aimed at 7.2; before it they
 * write their own range back inline, at about 35% of buffered): where it
 * would keep cached pages with dontcache (some of the file cached, residency
 * hidden, the probe failed, O_APPEND), it takes dropbehind on 6.1, 6.12,
 * 6.18 and 7.1 and says why, and dontcache on 7.2 and later and where the
 * kernel is unknown.  A file with nothing cached goes direct on every
 * kernel.  White box: pcl_auto_write() is pure, a probe in, a choice out.
 */
#include <string.h>

#include "helpers.h"
#include "internal.h"

static const int before[] = { 6001, 6012, 6018, 7001 };
static const int after[] = { 7002, 7010, 8000 };

/* auto's choice for @p (NULL: the probe failed) on kernel @kver, checked. */
static void want(const struct pc_probe *p, int append, int kver, enum pc_strategy strategy,
		 const char *words)
{
	char reason[256];
	enum pc_strategy got = pcl_auto_write(p, append, kver, reason, sizeof(reason));

	printf("%d.%d %-8s %s\n", kver / 1000, kver % 1000, pc_strategy_name(got), reason);
	T_CHECK(got == strategy, "%d: %s, want %s: %s", kver, pc_strategy_name(got),
		pc_strategy_name(strategy), reason);
	T_CHECK(strstr(reason, words), "%d: the reason does not say '%s': %s", kver, words,
		reason);
}

/* One probe on every kernel: dropbehind before 7.2 and why, dontcache after. */
static void keeps(const struct pc_probe *p, int append, const char *what)
{
	for (size_t i = 0; i < sizeof(before) / sizeof(before[0]); i++)
		want(p, append, before[i], PC_DROPBEHIND,
		     "dropbehind keeps them; uncached writes before Linux 7.2 run at 35% of buffered");
	for (size_t i = 0; i < sizeof(after) / sizeof(after[0]); i++)
		want(p, append, after[i], PC_DONTCACHE, "dontcache keeps them");
	want(p, append, 0, PC_DONTCACHE, "dontcache keeps them");
	for (size_t i = 0; i < sizeof(before) / sizeof(before[0]); i++)
		want(p, append, before[i], PC_DROPBEHIND, what);
}

int main(void)
{
	struct pc_probe cold = { .cachestat = 1, .file_size = 64 << 20 };
	struct pc_probe warm = cold, hidden = cold;

	warm.cached_bytes = 4 << 20;
	hidden.cached_bytes = PC_BYTES_UNKNOWN;
	keeps(&warm, 0, "4096 KiB of the file are cached");
	keeps(&hidden, 0, "cannot tell what is cached (residency hidden)");
	keeps(NULL, 0, "cannot tell what is cached (probe failed)");
	keeps(NULL, 1, "O_APPEND");
	for (size_t i = 0; i < sizeof(before) / sizeof(before[0]); i++)
		want(&cold, 0, before[i], PC_DIRECT, "nothing of the file is cached: direct");
	want(&cold, 0, 7002, PC_DIRECT, "nothing of the file is cached: direct");
	puts("wauto-kernel: ok");
	return 0;
}
