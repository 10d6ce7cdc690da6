/* SPDX-License-Identifier: MIT */
/*
 * What the shim's direct tests share: running again with the shim in a
 * mode, a cold file in a folder that takes O_DIRECT (or a skip), the stats
 * file the shim appends its lines to ($PAGECLIFF_STATS, named before the
 * test runs again with the shim), and the checks of the line of one file in
 * it.
 */
#ifndef PC_TEST_DIRECT_TEST_H
#define PC_TEST_DIRECT_TEST_H

#include <errno.h>
#include <fcntl.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "helpers.h"

/* Name the stats file in the environment, once, before t_reexec_with_shim(). */
static inline void direct_stats_env(const char *name)
{
	char stats[4200];

	if (getenv("PAGECLIFF_STATS"))
		return;
	snprintf(stats, sizeof(stats), "%s/pagecliff-%s-%d.stats", t_workdir(), name, (int)getpid());
	setenv("PAGECLIFF_STATS", stats, 1);
}

/*
 * Run this program again with the shim in @mode, acting from @min_size, its
 * stats lines in a file named after @name.
 */
static inline void direct_reexec(char **argv, const char *name, const char *mode,
				 const char *min_size)
{
	direct_stats_env(name);
	setenv("PAGECLIFF_MODE", mode, 1);
	setenv("PAGECLIFF_MIN_SIZE", min_size, 1);
	t_reexec_with_shim(argv);
}

/* @path: @size pattern bytes of @seed, not cached; skips where O_DIRECT is refused. */
static inline void direct_cold_file(const char *path, uint64_t size, uint32_t seed)
{
	int fd;

	t_make_file(path, size, seed);
	fd = open(path, O_RDONLY | O_DIRECT);
	if (fd < 0)
		t_skip("O_DIRECT refused for %s: %s", path, strerror(errno));
	close(fd);
	t_evict(path);
}

/* The last line for @path in the stats file, into @line. */
static inline const char *direct_stats_last(const char *path, char *line, size_t size)
{
	const char *stats = getenv("PAGECLIFF_STATS");
	char l[2048], prefix[4200];
	FILE *f = stats ? fopen(stats, "r") : NULL;

	T_CHECK(f, "no stats file '%s'", stats ? stats : "");
	snprintf(prefix, sizeof(prefix), "pagecliff: %s: ", path);
	line[0] = 0;
	while (fgets(l, sizeof(l), f))
		if (!strncmp(l, prefix, strlen(prefix)))
			snprintf(line, size, "%s", l);
	fclose(f);
	T_CHECK(line[0], "no stats line for %s", path);
	return line;
}

/*
 * The last line for @path holds @want and not "stopped" (the reader went on
 * to the end).  Call after the last close of @path: the line is written then.
 */
static inline void direct_stats_say(const char *path, const char *want)
{
	char line[2048];

	direct_stats_last(path, line, sizeof(line));
	T_CHECK(strstr(line, want) && !strstr(line, "stopped"), "not '%s' to the end: %s", want,
		line);
}

static inline void direct_stats_remove(void)
{
	if (getenv("PAGECLIFF_STATS"))
		unlink(getenv("PAGECLIFF_STATS"));
}

#endif
