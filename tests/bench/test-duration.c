// SPDX-License-Identifier: MIT
/*
 * common/units.c parse_duration(): the one time parser of bench and watch.  A
 * bare number is seconds; ms, s, m and h are the units; everything else
 * (negative, exponent, hex, inf, nan, junk, two dots) is refused and leaves
 * the result untouched.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>

#include "helpers.h"
#include "units.h"

static void good(const char *str, double want)
{
	double v = -1;
	int ret = parse_duration(str, &v);

	T_CHECK(!ret, "'%s': %d, want 0\n", str, ret);
	T_CHECK(fabs(v - want) <= want * 1e-12, "'%s' = %.9g s, want %.9g\n", str, v, want);
}

static void bad(const char *str, int want)
{
	double v = -1;
	int ret = parse_duration(str, &v);

	T_CHECK(ret == want, "'%s': %d, want %d\n", str ? str : "(null)", ret, want);
	T_CHECK(v == -1, "'%s' set the result on failure\n", str ? str : "(null)");
}

int main(void)
{
	static const char *junk[] = {
		"", "s", "ms", ".", "-1", "-0.5s", "+1", " 1", "1 ", "1e3", "1e-3s", "0x10",
		"inf", "nan", "1..5", "1.2.3", "10us", "5S", "1sec", "2 s", "1mm", "1hs",
	};

	good("500ms", 0.5);
	good("2s", 2);
	good("1.5s", 1.5);
	good("1m", 60);
	good("1h", 3600);
	good("500", 500);	/* a bare number is seconds, in bench and watch */
	good("0.25", 0.25);
	good(".5", 0.5);
	good("3.", 3);
	good("0", 0);
	good("100ms", 0.1);
	good("10ms", 0.01);
	good("8640000", 8640000);
	for (size_t i = 0; i < sizeof(junk) / sizeof(junk[0]); i++)
		bad(junk[i], -EINVAL);
	bad(NULL, -EINVAL);
	bad("8640001", -ERANGE);
	bad("2401h", -ERANGE);
	printf("PASS: %zu times parsed, %zu refused\n", (size_t)13, sizeof(junk) / sizeof(junk[0]) + 3);
	return T_EXIT_PASS;
}
