// SPDX-License-Identifier: MIT
/*
 * The shim's settings, from the environment that `pagecliff run` (or the
 * user) set, and where its per-file statistics go.  A setting it cannot parse
 * turns the shim off with one line on stderr: it never guesses.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "preload.h"
#include "units.h"

#define DEFAULT_MIN_SIZE (8ull << 20)
#define DEFAULT_BATCH (8ull << 20)
/* Eight batches: one stream never reaches it, a hundred round robin do. */
#define DEFAULT_BUDGET (64ull << 20)

struct pl_config pl_cfg = {
	.mode = PL_MODE_AUTO,
	.min_size = DEFAULT_MIN_SIZE,
	.batch = DEFAULT_BATCH,
	.budget = DEFAULT_BUDGET,
};

static void complain(const char *what, const char *value)
{
	char line[256];
	int n = snprintf(line, sizeof(line),
			 "pagecliff-preload: bad %s '%.64s'; the shim is off\n",
			 what, value);

	if (n > 0 && write(2, line, (size_t)n < sizeof(line) ? (size_t)n : sizeof(line) - 1) < 0)
		return;
}

static int parse_mode(const char *s, enum pl_mode *ret)
{
	static const struct { const char *name; enum pl_mode mode; } modes[] = {
		{ "off", PL_MODE_OFF }, { "auto", PL_MODE_AUTO },
		{ "dropbehind", PL_MODE_DROPBEHIND }, { "dontcache", PL_MODE_DONTCACHE },
	};

	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		if (!strcmp(s, modes[i].name)) {
			*ret = modes[i].mode;
			return 0;
		}
	}
	return -EINVAL;
}

void pl_config_load(void)
{
	const char *mode = getenv("PAGECLIFF_MODE");
	const char *min = getenv("PAGECLIFF_MIN_SIZE");
	const char *stats = getenv("PAGECLIFF_STATS");
	const char *budget = getenv("PAGECLIFF_BUDGET");

	if (mode && *mode && parse_mode(mode, &pl_cfg.mode)) {
		complain("PAGECLIFF_MODE", mode);
		pl_cfg.mode = PL_MODE_OFF;
	}
	if (min && *min && parse_size(min, &pl_cfg.min_size)) {
		complain("PAGECLIFF_MIN_SIZE", min);
		pl_cfg.mode = PL_MODE_OFF;
	}
	if (budget && *budget && parse_size(budget, &pl_cfg.budget)) {
		complain("PAGECLIFF_BUDGET", budget);
		pl_cfg.mode = PL_MODE_OFF;
	}
	if (stats && *stats && strcmp(stats, "0")) {
		pl_cfg.stats = 1;
		pl_cfg.stats_path = strcmp(stats, "1") ? stats : NULL;
	}
}

void pl_stats_write(const char *line, size_t len)
{
	int fd = 2;

	if (pl_cfg.stats_path) {
		fd = open(pl_cfg.stats_path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
		if (fd < 0)
			return;
	}
	if (write(fd, line, len) < 0)
		len = 0;	/* nowhere to report it */
	if (fd != 2)
		close(fd);
}
