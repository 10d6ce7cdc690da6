/* SPDX-License-Identifier: MIT */
/*
 * What every subcommand shares: messages in git's style (error() returns -1,
 * die() exits), fio-style size parsing, and small formatting helpers.
 */
#ifndef PC_CLI_UTIL_H
#define PC_CLI_UTIL_H

#include <stdint.h>
#include <stdnoreturn.h>

/* Exit status for bad usage: unknown option, bad value. */
#define EXIT_USAGE 2

extern const char *progname;

int error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void warning(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
noreturn void die(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* die() with EXIT_USAGE, for bad command lines. */
noreturn void usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * Parse a size in fio's units: a number with an optional suffix k, m, g, t, p
 * (powers of 1024, as fio's default kb_base), also written K, KB, KiB, ... .
 * Returns 0, or -EINVAL for anything else (empty, negative, trailing junk)
 * and -ERANGE on overflow.
 */
int parse_size(const char *str, uint64_t *ret_size);

/* Parse a whole number in [min, max]; 0 or -EINVAL/-ERANGE. */
int parse_uint(const char *str, uint64_t min, uint64_t max, uint64_t *ret);

/* Monotonic time in seconds. */
double now_sec(void);

/* Write all of @len bytes to @fd; 0 or -errno. */
int write_all(int fd, const void *buf, size_t len);

#endif
