// SPDX-License-Identifier: MIT
/*
 * libFuzzer target for parse_size() and parse_uint() (common/units.c), checked
 * against a slow reference: any disagreement, or a value set on failure,
 * aborts.  Input: "s" then a size, "uD" then a number (D picks [min, max]),
 * or anything else, given to both.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "units.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const uint64_t ranges[][2] = {
	{ 0, UINT64_MAX }, { 1, 1u << 30 }, { 1, 4096 }, { 0, 0 }, { 5, 5 }, { 10, 1 },
};

#define CHECK(c) do { if (!(c)) abort(); } while (0)

/* Leading decimal digits of @s into *v; 0, -EINVAL (none) or -ERANGE. */
static int ref_digits(const char *s, uint64_t *v, const char **end)
{
	uint64_t x = 0;
	int overflow = 0;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	for (; *s >= '0' && *s <= '9'; s++) {
		unsigned int d = *s - '0';

		if (x > (UINT64_MAX - d) / 10)
			overflow = 1;
		else
			x = x * 10 + d;
	}
	*end = s;
	*v = x;
	return overflow ? -ERANGE : 0;
}

static int ref_size(const char *s, uint64_t *ret)
{
	static const char units[] = "kmgtpe";
	const char *end, *u;
	uint64_t v;
	int shift = 0, r = ref_digits(s, &v, &end);

	if (r)
		return r;
	if (*end && strcasecmp(end, "b")) {
		char c = *end | 0x20;

		u = c ? strchr(units, c) : NULL;
		if (!u || (end[1] && strcasecmp(end + 1, "b") && strcasecmp(end + 1, "ib")))
			return -EINVAL;
		shift = 10 * (int)(u - units + 1);
	}
	if (shift && v > UINT64_MAX >> shift)
		return -ERANGE;
	*ret = v << shift;
	return 0;
}

static int ref_uint(const char *s, uint64_t min, uint64_t max, uint64_t *ret)
{
	const char *end;
	uint64_t v;
	int r = ref_digits(s, &v, &end);

	if (r == -EINVAL)
		return r;
	if (r || v > max)
		return -ERANGE;
	if (*end)
		return -EINVAL;
	if (v < min)
		return -ERANGE;
	*ret = v;
	return 0;
}

static void check_size(const char *s)
{
	uint64_t got = 0xdead, want = 0xdead;
	int r = parse_size(s, &got), w = ref_size(s, &want);

	CHECK(r == w);
	CHECK(got == want);	/* also: untouched on failure */
}

static void check_uint(const char *s, unsigned int range)
{
	const uint64_t *mm = ranges[range % (sizeof(ranges) / sizeof(ranges[0]))];
	uint64_t got = 0xdead, want = 0xdead;
	int r = parse_uint(s, mm[0], mm[1], &got), w = ref_uint(s, mm[0], mm[1], &want);

	CHECK(r == w);
	CHECK(got == want);
	CHECK(r || (got >= mm[0] && got <= mm[1]));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);	/* exact size: ASan sees overreads */

	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = 0;
	if (size >= 1 && s[0] == 's') {
		check_size(s + 1);
	} else if (size >= 2 && s[0] == 'u') {
		check_uint(s + 2, (unsigned char)s[1]);
	} else {
		check_size(s);
		check_uint(s, 0);
	}
	free(s);
	return 0;
}
