// SPDX-License-Identifier: MIT
/*
 * The strategies' names: one table for the library, the command and the
 * shim (which links this file's object through libpagecliff-shim).
 */
#include <errno.h>
#include <string.h>

#include "pagecliff.h"

static const char *const strategy_names[PC_STRATEGY_COUNT] = {
	[PC_AUTO] = "auto",
	[PC_BUFFERED] = "buffered",
	[PC_DONTCACHE] = "dontcache",
	[PC_DROPBEHIND] = "dropbehind",
	[PC_DIRECT] = "direct",
};

const char *pc_strategy_name(enum pc_strategy strategy)
{
	if ((unsigned int)strategy >= PC_STRATEGY_COUNT)
		return NULL;
	return strategy_names[strategy];
}

int pc_strategy_parse(const char *name, enum pc_strategy *ret_strategy)
{
	for (unsigned int i = 0; i < PC_STRATEGY_COUNT; i++) {
		if (name && !strcmp(name, strategy_names[i])) {
			*ret_strategy = i;
			return 0;
		}
	}
	return -EINVAL;
}
