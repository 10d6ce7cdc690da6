/* SPDX-License-Identifier: MIT */
/*
 * What the shim's direct tests share: the stats file the shim appends its
 * lines to ($PAGECLIFF_STATS, named before the test runs again with the
 * shim), and the checks of the line of one file in it.
 */
#ifndef PC_TEST_DIRECT_STATS_H
#define PC_TEST_DIRECT_STATS_H

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
