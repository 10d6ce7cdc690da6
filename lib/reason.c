// SPDX-License-Identifier: MIT
/*
 * A stream's reason (pc_stats.reason, pc_wstats.reason): why its strategy,
 * written by auto, by a strategy that refuses and by the cores, in one
 * buffer of its stats.
 */
#include <stdio.h>
#include <string.h>

#include "internal.h"

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
