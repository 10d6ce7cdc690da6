/* SPDX-License-Identifier: MIT */
/*
 * The one policy the shim (preload/) and the watcher (outside/) share: the
 * defaults, the environment that changes them (one parser, one behaviour for
 * a bad value), the test that a sequential run has reached the minimum, and
 * the --stats lines of a file read and a file written.
 *
 * A bad value is never replaced by a default or raised to a floor, which
 * would silently change what was asked: policy_load() fails with one reason
 * ("bad PAGECLIFF_BUDGET '8m': a size of 16m or more"), which each face
 * prints as its own one line, and that face does not act.  The shim is then
 * off; the watcher does not start (attach exits 1, run runs the program
 * without it).
 */
#ifndef PC_COMMON_POLICY_H
#define PC_COMMON_POLICY_H

#include <stddef.h>
#include <stdint.h>

/* Sequential bytes before acting (PAGECLIFF_MIN_SIZE). */
#define POLICY_MIN_SIZE (8ull << 20)
/*
 * Bytes read or written and not dropped yet (PAGECLIFF_BUDGET): the shim's
 * over all files, the watcher's per stream.  Eight batches: one stream
 * never reaches it, a hundred round robin do.  At least two batches: each
 * engine holds up to a batch behind its cursor before it drops it.
 */
#define POLICY_BUDGET (64ull << 20)
#define POLICY_BUDGET_MIN (16ull << 20)

struct policy {
	uint64_t min_size;
	uint64_t budget;
};

/*
 * The defaults, then PAGECLIFF_MIN_SIZE and PAGECLIFF_BUDGET where set and
 * not empty.  0; or -EINVAL with the first bad one's reason in @why (see
 * above), *@p then holding the defaults.  Calls nothing but getenv() and the
 * size parser: the shim calls it from its constructor.
 */
int policy_load(struct policy *p, char *why, size_t size);

/* The reason for a bad value of @name: "bad NAME 'VALUE': WANT" in @why. */
void policy_bad(char *why, size_t size, const char *name, const char *value,
		const char *want);

/* A sequential run from @start to @cursor has reached @min_size: act. */
static inline int policy_run_reached(uint64_t min_size, uint64_t start, uint64_t cursor)
{
	return cursor >= start && cursor - start >= min_size;
}

/*
 * The --stats line of a file read: the figures and the words in between are
 * the shim's and the watcher's alike; @mode says who acted, @dropped is the
 * number, or what stands for it where residency could not be told.
 */
struct policy_read_stats {
	const char *path;
	uint64_t bytes, runs, seeks;
	const char *mode;
	uint64_t uncached;
	const char *dropped;
	uint64_t kept, syscalls;
};

/* The --stats line of a file written; @early: "N bytes written back early" or why none. */
struct policy_write_stats {
	const char *path;
	uint64_t bytes, runs;
	const char *mode, *early, *dropped;
	uint64_t kept, errors, syscalls;
};

/*
 * Format the line into @line (a path too long is cut, the newline kept);
 * its length, 0 when nothing could be formatted.
 */
size_t policy_read_line(char *line, size_t size, const struct policy_read_stats *r);
size_t policy_write_line(char *line, size_t size, const struct policy_write_stats *w);

#endif
