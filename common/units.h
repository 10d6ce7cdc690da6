/* SPDX-License-Identifier: MIT */
/* Sizes, counts and times in fio's units (units.c). */
#ifndef PC_CLI_UNITS_H
#define PC_CLI_UNITS_H

#include <stdint.h>

/*
 * Parse a size in fio's units: a number with an optional suffix k, m, g, t, p
 * (powers of 1024, as fio's default kb_base), also written K, KB, KiB, ... .
 * Returns 0, or -EINVAL for anything else (empty, negative, trailing junk)
 * and -ERANGE on overflow.
 */
int parse_size(const char *str, uint64_t *ret_size);

/* Parse a whole number in [min, max]; 0 or -EINVAL/-ERANGE. */
int parse_uint(const char *str, uint64_t min, uint64_t max, uint64_t *ret);

/*
 * Parse a time: a decimal number (digits, at most one '.') with an optional
 * unit ms, s, m or h; a bare number means seconds, as in fio ("500ms",
 * "2s", "1.5s", "1m", "30").  Sets *ret_secs.  Returns 0, -EINVAL for
 * anything else (empty, negative, exponent, hex, inf, nan, trailing junk)
 * and -ERANGE above 100 days.
 */
int parse_duration(const char *str, double *ret_secs);

#endif
