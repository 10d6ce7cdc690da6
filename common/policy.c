// SPDX-License-Identifier: MIT
/*
 * The shim's and the watcher's shared policy (policy.h): defaults, the
 * environment's one parser, and the --stats lines both print.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "policy.h"
#include "units.h"

void policy_bad(char *why, size_t size, const char *name, const char *value,
		const char *want)
{
	snprintf(why, size, "bad %s '%.64s': %s", name, value, want);
}

/* @name's size, if set and not empty, at least @floor; 0 or -EINVAL with @why. */
static int env_size(const char *name, uint64_t floor, const char *want, uint64_t *ret,
		    char *why, size_t size)
{
	const char *s = getenv(name);
	uint64_t v;

	if (!s || !*s)
		return 0;
	if (parse_size(s, &v) || v < floor) {
		policy_bad(why, size, name, s, want);
		return -EINVAL;
	}
	*ret = v;
	return 0;
}

int policy_load(struct policy *p, char *why, size_t size)
{
	struct policy v = { .min_size = POLICY_MIN_SIZE, .budget = POLICY_BUDGET };

	*p = v;
	if (env_size("PAGECLIFF_MIN_SIZE", 0, "a size such as 8m", &v.min_size, why, size) ||
	    env_size("PAGECLIFF_BUDGET", POLICY_BUDGET_MIN, "a size of 16m or more", &v.budget,
		     why, size))
		return -EINVAL;
	*p = v;
	return 0;
}

/* A line formatted into @line of @size: a path too long is cut, the newline kept. */
static size_t line_end(char *line, size_t size, int n)
{
	if (n <= 0 || size < 2)
		return 0;
	if ((size_t)n >= size) {
		n = size - 1;
		line[n - 1] = '\n';
	}
	return n;
}

size_t policy_read_line(char *line, size_t size, const struct policy_read_stats *r)
{
	int n = snprintf(line, size,
			 "pagecliff: %s: %" PRIu64 " bytes read, %" PRIu64 " sequential runs, %"
			 PRIu64 " seeks, mode %s, %" PRIu64 " bytes read uncached, %s bytes "
			 "dropped, %" PRIu64 " bytes kept cached, %" PRIu64 " syscalls\n",
			 r->path ? r->path : "?", r->bytes, r->runs, r->seeks, r->mode,
			 r->uncached, r->dropped, r->kept, r->syscalls);

	return line_end(line, size, n);
}

size_t policy_write_line(char *line, size_t size, const struct policy_write_stats *w)
{
	int n = snprintf(line, size,
			 "pagecliff: %s: %" PRIu64 " bytes written, %" PRIu64 " write-behind "
			 "runs, mode %s, %s, %s bytes dropped, %" PRIu64 " bytes kept cached, %"
			 PRIu64 " writeback errors seen (the program's fsync reports them), %"
			 PRIu64 " syscalls\n",
			 w->path ? w->path : "?", w->bytes, w->runs, w->mode, w->early,
			 w->dropped, w->kept, w->errors, w->syscalls);

	return line_end(line, size, n);
}
