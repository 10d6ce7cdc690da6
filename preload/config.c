// SPDX-License-Identifier: MIT
/*
 * The shim's settings, from the environment that `pagecliff run` (or the
 * user) set, and where its per-file statistics go.  The minimum and the
 * budget are the policy the watcher shares (common/policy.h); a setting it
 * cannot parse turns the shim off with one line on stderr: it never guesses.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "policy.h"
#include "preload.h"

struct pl_config pl_cfg = {
	.mode = PL_MODE_AUTO,
	.min_size = POLICY_MIN_SIZE,
	.batch = PCL_DROP_BATCH,
	.budget = POLICY_BUDGET,
};

/* One line for a bad setting (policy_bad()'s reason): the shim is off. */
static void complain(const char *why)
{
	char line[256];
	int n = snprintf(line, sizeof(line), "pagecliff-preload: %s; the shim is off\n", why);

	pl_cfg.mode = PL_MODE_OFF;
	if (n > 0 && write(2, line, (size_t)n < sizeof(line) ? (size_t)n : sizeof(line) - 1) < 0)
		return;
}

/*
 * The shim's modes are the registry's: its strategies with
 * PC_STRATEGY_PRELOAD (buffered is not one: it is what off does), and
 * PC_PRELOAD_OFF.
 */
static int parse_mode(const char *s, enum pl_mode *ret)
{
	enum pc_strategy st;

	if (!strcmp(s, PC_PRELOAD_OFF)) {
		*ret = PL_MODE_OFF;
		return 0;
	}
	if (pc_strategy_parse(s, &st) || !(pc_strategy_caps(st) & PC_STRATEGY_PRELOAD))
		return -EINVAL;
	*ret = (enum pl_mode)st;
	return 0;
}

/*
 * Stats on stderr go only to the file that was stderr when `pagecliff run`
 * started (PAGECLIFF_STATS_TARGET, dev:ino), or when this process started:
 * a program that closed its stderr and opened its output on fd 2 must not
 * find stats lines in its data.
 */
static dev_t target_dev;
static ino_t target_ino;
static int have_target;

static void stats_target(void)
{
	const char *t = getenv("PAGECLIFF_STATS_TARGET");
	unsigned long long dev, ino;
	struct stat st;

	if (t && sscanf(t, "%llu:%llu", &dev, &ino) == 2) {
		target_dev = dev;
		target_ino = ino;
		have_target = 1;
	} else if (!fstat(2, &st)) {
		target_dev = st.st_dev;
		target_ino = st.st_ino;
		have_target = 1;
	}
}

static int stderr_is_target(void)
{
	struct stat st;

	return have_target && !fstat(2, &st) && st.st_dev == target_dev &&
	       st.st_ino == target_ino;
}

void pl_config_load(void)
{
	const char *mode = getenv("PAGECLIFF_MODE");
	const char *stats = getenv("PAGECLIFF_STATS");
	struct policy p;
	char why[160];

	if (mode && *mode && parse_mode(mode, &pl_cfg.mode)) {
		policy_bad(why, sizeof(why), "PAGECLIFF_MODE", mode,
			   "auto, dontcache, dropbehind, direct or off");
		complain(why);
	}
	if (policy_load(&p, why, sizeof(why)))
		complain(why);
	pl_cfg.min_size = p.min_size;
	pl_cfg.budget = p.budget;
	if (stats && *stats && strcmp(stats, "0")) {
		pl_cfg.stats = 1;
		pl_cfg.stats_path = strcmp(stats, "1") ? stats : NULL;
	}
	if (pl_cfg.stats && !pl_cfg.stats_path)
		stats_target();
}

static void write_line(const char *line, size_t len)
{
	int fd = 2;

	if (pl_cfg.stats_path) {
		fd = open(pl_cfg.stats_path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
		if (fd < 0)
			return;
	} else if (!stderr_is_target()) {
		return;		/* fd 2 is no longer the stderr the lines were meant for */
	}
	if (write(fd, line, len) < 0)
		len = 0;	/* nowhere to report it */
	if (fd != 2)
		close(fd);
}

void pl_stats_write(const char *line, size_t len)
{
	write_line(line, len);
}
