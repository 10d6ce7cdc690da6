// SPDX-License-Identifier: MIT
/*
 * The reason a stream gives for its strategy (pc_stats.reason,
 * pc_wstats.reason), written by auto, by a strategy that refuses and by the
 * read and write stream cores.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "strategy.h"
#include "wstrategy.h"

void pcl_reason_vprintf(char *reason, size_t size, int add, const char *fmt,
			va_list ap)
{
	size_t len = add ? strlen(reason) : 0;

	if (len && len + 2 < size) {
		memcpy(reason + len, "; ", 3);
		len += 2;
	}
	vsnprintf(reason + len, size - len, fmt, ap);
}

/* The reason either kind of stream gives: set anew, or added with "; ". */
#define REASON_PRINTF(name, stream, add)					\
	void name(stream *s, const char *fmt, ...)				\
	{									\
		va_list ap;							\
										\
		va_start(ap, fmt);						\
		pcl_reason_vprintf(s->stats.reason, sizeof(s->stats.reason),	\
				   add, fmt, ap);				\
		va_end(ap);							\
	}

REASON_PRINTF(pcl_set_reason, struct pc_stream, 0)
REASON_PRINTF(pcl_add_reason, struct pc_stream, 1)
REASON_PRINTF(pcl_wset_reason, struct pc_wstream, 0)
REASON_PRINTF(pcl_wadd_reason, struct pc_wstream, 1)
