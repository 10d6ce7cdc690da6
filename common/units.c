// SPDX-License-Identifier: MIT
/*
 * Sizes, counts and times in fio's units, for the command and for the preload
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

/* Seconds per unit @s ("" is seconds), or 0 for an unknown unit. */
static double time_unit(const char *s)
{
	static const struct { const char *name; double secs; } units[] = {
		{ "", 1 }, { "s", 1 }, { "ms", 1e-3 }, { "m", 60 }, { "h", 3600 },
	};

	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(s, units[i].name))
			return units[i].secs;
	return 0;
}

int parse_duration(const char *str, double *ret_secs)
{
	const char *p = str;
	int digits = 0, dots = 0;
	double v, unit;
	char *end;

	if (!str)
		return -EINVAL;
	for (; isdigit((unsigned char)*p) || *p == '.'; p++) {
		digits += *p != '.';
		dots += *p == '.';
	}
	if (!digits || dots > 1)
		return -EINVAL;
	unit = time_unit(p);
	if (!unit)
		return -EINVAL;
	errno = 0;
	v = strtod(str, &end);
	if (end != p || errno)
		return -EINVAL;
	v *= unit;
	if (v > 100.0 * 24 * 3600)
		return -ERANGE;
	*ret_secs = v;
	return 0;
}
