// SPDX-License-Identifier: MIT
/*
 * The registry of strategies (registry.h): one row per strategy, the only
 * place its name is spelt, and the walk along a direction's fallbacks that
 * both stream cores use.  The preload shim links this file for the names
 * alone (its modes are the rows with PCL_CAP_PRELOAD), built with
 * PCL_REGISTRY_NAMES_ONLY: it reads and writes no stream, and its rows then
 * hold no ops.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "registry.h"
#include "wstrategy.h"

#ifdef PCL_REGISTRY_NAMES_ONLY
#define OPS(table) NULL
#else
#define OPS(table) (&(table))
#endif

/* The ops tables the rows point at, each defined in its strategy's file. */
extern const struct pcl_strategy_ops pcl_strat_buffered, pcl_strat_dontcache,
	pcl_strat_dropbehind, pcl_strat_direct;
extern const struct pcl_wstrategy_ops pcl_wstrat_buffered, pcl_wstrat_dontcache,
	pcl_wstrat_dropbehind, pcl_wstrat_direct;

const struct pcl_strategy pcl_strategies[PC_STRATEGY_COUNT] = {
	[PC_AUTO] = {
		.name = "auto",
		.caps = PCL_CAP_PRELOAD,
		.read_fallback = PCL_NO_FALLBACK,
		.write_fallback = PCL_NO_FALLBACK,
	},
	[PC_BUFFERED] = {
		.name = "buffered",
		.caps = PCL_CAP_READ | PCL_CAP_WRITE | PCL_WCAP_APPEND,
		.read = OPS(pcl_strat_buffered),
		.write = OPS(pcl_wstrat_buffered),
		.read_fallback = PCL_NO_FALLBACK,
		.write_fallback = PCL_NO_FALLBACK,
	},
	[PC_DONTCACHE] = {
		.name = "dontcache",
		.caps = PCL_CAP_READ | PCL_CAP_WRITE | PCL_WCAP_APPEND | PCL_CAP_PRELOAD,
		.read = OPS(pcl_strat_dontcache),
		.write = OPS(pcl_wstrat_dontcache),
		.read_fallback = PC_DROPBEHIND,
		.write_fallback = PC_DROPBEHIND,
	},
	[PC_DROPBEHIND] = {
		.name = "dropbehind",
		.caps = PCL_CAP_READ | PCL_CAP_WRITE | PCL_WCAP_APPEND | PCL_CAP_PRELOAD,
		.read = OPS(pcl_strat_dropbehind),
		.write = OPS(pcl_wstrat_dropbehind),
		.read_fallback = PC_BUFFERED,
		.write_fallback = PC_BUFFERED,
	},
	[PC_DIRECT] = {
		.name = "direct",
		.caps = PCL_CAP_READ | PCL_CAP_WRITE | PCL_CAP_ZEROCOPY |
			PCL_CAP_SMALL_READS | PCL_WCAP_ZEROCOPY | PCL_CAP_PRELOAD,
		.read = OPS(pcl_strat_direct),
		.write = OPS(pcl_wstrat_direct),
		.read_fallback = PC_DROPBEHIND,
		.write_fallback = PC_DONTCACHE,
	},
};

const char *pc_strategy_name(enum pc_strategy strategy)
{
	if ((unsigned int)strategy >= PC_STRATEGY_COUNT)
		return NULL;
	return pcl_strategies[strategy].name;
}

int pc_strategy_parse(const char *name, enum pc_strategy *ret_strategy)
{
	for (unsigned int i = 0; i < PC_STRATEGY_COUNT; i++) {
		if (name && !strcmp(name, pcl_strategies[i].name)) {
			*ret_strategy = i;
			return 0;
		}
	}
	return -EINVAL;
}

unsigned int pc_strategy_caps(enum pc_strategy strategy)
{
	unsigned int caps;

	if ((unsigned int)strategy >= PC_STRATEGY_COUNT)
		return 0;
	caps = pcl_strategies[strategy].caps;
	if (strategy == PC_AUTO)	/* it chooses a row that does */
		caps |= PCL_CAP_READ | PCL_CAP_WRITE;
	return (caps & PCL_CAP_READ ? PC_STRATEGY_READS : 0) |
	       (caps & PCL_CAP_WRITE ? PC_STRATEGY_WRITES : 0) |
	       (caps & PCL_CAP_PRELOAD ? PC_STRATEGY_PRELOAD : 0);
}

/* One strategy's init for direction @dir, or its refusal when it lacks one. */
static int try_one(const struct pcl_setup *how, void *stream, enum pc_strategy id,
		   char *reason, size_t size)
{
	if (!(pcl_strategies[id].caps & how->dir)) {
		snprintf(reason, size, "it cannot %s", how->dir == PCL_CAP_READ ? "read" : "write");
		return -EOPNOTSUPP;
	}
	return how->init(stream, id);
}

/* Where @id goes for @dir when it refuses. */
static enum pc_strategy fallback(enum pc_strategy id, unsigned int dir)
{
	return dir == PCL_CAP_READ ? pcl_strategies[id].read_fallback :
				     pcl_strategies[id].write_fallback;
}

int pcl_strategy_setup(const struct pcl_setup *how, void *stream,
		       enum pc_strategy requested, int regular, char *reason,
		       size_t size, enum pc_strategy *ret_id)
{
	char before[sizeof(((struct pc_stats *)0)->reason)], why[sizeof(before)];
	enum pc_strategy id = requested, next;
	int ret;

	if (!regular) {
		id = PC_BUFFERED;
		snprintf(reason, size, "%s", how->plain);
	} else if (id == PC_AUTO) {
		id = how->choose(stream, reason, size);
	} else {
		snprintf(reason, size, "requested");
	}
	for (;;) {
		snprintf(before, sizeof(before), "%s", reason);
		ret = try_one(how, stream, id, reason, size);
		if (!ret)
			break;
		next = fallback(id, how->dir);
		if (!pcl_is_fallback_err(ret) || next == PCL_NO_FALLBACK)
			return ret;
		snprintf(why, sizeof(why), "%s", reason);
		snprintf(reason, size, "%s; %s: %s, so %s", before, pcl_strategies[id].name,
			 why, pcl_strategies[next].name);
		id = next;
	}
	*ret_id = id;
	return 0;
}
