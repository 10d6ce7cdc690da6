/* SPDX-License-Identifier: MIT */
/*
 * What every subcommand shares: messages in git's style (error() returns -1,
 * die() exits), fio-style size parsing, and small formatting helpers.
 */
#ifndef PC_CLI_UTIL_H
#define PC_CLI_UTIL_H

#include <stdint.h>
#include <stdnoreturn.h>

#include "units.h"

/* Exit status for bad usage: unknown option, bad value. */
#define EXIT_USAGE 2

extern const char *progname;

int error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void warning(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
noreturn void die(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* die() with EXIT_USAGE, for bad command lines. */
noreturn void usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* usage_error() with another exit status: cp's missing operands, 1 as cp(1)'s. */
noreturn void usage_error_exit(int status, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Write all of @len bytes to @fd; 0 or -errno. */
int write_all(int fd, const void *buf, size_t len);

#endif
