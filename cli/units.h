/* SPDX-License-Identifier: MIT */
/* Sizes and counts in fio's units (units.c). */
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

#endif
