// SPDX-License-Identifier: MIT
/*
 * Sizes and counts in fio's units, for the command and for the preload
 * shim's settings alike: pure functions, no output, no state.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "units.h"

/* The power of 1024 a unit suffix stands for, or -1. */
static int suffix_shift(const char *s)
{
	static const char units[] = "kmgtpe";
	const char *u;

	if (!*s)
		return 0;
	if ((*s == 'b' || *s == 'B') && !s[1])
		return 0;
	u = strchr(units, tolower((unsigned char)*s));
	if (!u)
		return -1;
	s++;
	if (!*s || !strcasecmp(s, "b") || !strcasecmp(s, "ib"))
		return 10 * (int)(u - units + 1);
	return -1;
}

int parse_size(const char *str, uint64_t *ret_size)
{
	unsigned long long v;
	char *end;
	int shift;

	if (!str || !isdigit((unsigned char)*str))
		return -EINVAL;
	errno = 0;
	v = strtoull(str, &end, 10);
	if (errno == ERANGE)
		return -ERANGE;
	shift = suffix_shift(end);
	if (shift < 0)
		return -EINVAL;
	if (shift && v > (UINT64_MAX >> shift))
		return -ERANGE;
	*ret_size = (uint64_t)v << shift;
	return 0;
}

int parse_uint(const char *str, uint64_t min, uint64_t max, uint64_t *ret)
{
	unsigned long long v;
	char *end;

	if (!str || !isdigit((unsigned char)*str))
		return -EINVAL;
	errno = 0;
	v = strtoull(str, &end, 10);
	if (errno == ERANGE || v > max)
		return -ERANGE;
	if (*end)
		return -EINVAL;
	if (v < min)
		return -ERANGE;
	*ret = v;
	return 0;
}
