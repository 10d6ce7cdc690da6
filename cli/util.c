// SPDX-License-Identifier: MIT
/*
 * Messages, size parsing and small helpers shared by the subcommands.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "util.h"

const char *progname = "pagecliff";

static void report(const char *prefix, const char *fmt, va_list ap)
{
	char msg[1024];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	fprintf(stderr, "%s: %s%s\n", progname, prefix, msg);
}

int error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	report("error: ", fmt, ap);
	va_end(ap);
	return -1;
}

void warning(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	report("warning: ", fmt, ap);
	va_end(ap);
}

noreturn void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	report("fatal: ", fmt, ap);
	va_end(ap);
	exit(1);
}

noreturn void usage_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	report("", fmt, ap);
	va_end(ap);
	exit(EXIT_USAGE);
}

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

double now_sec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		p += n;
		len -= n;
	}
	return 0;
}
