/* SPDX-License-Identifier: MIT */
/*
 * Progress of long work on a terminal (progress.c): one line on stderr,
 * redrawn at most four times a second, cleared at the end, never in the
 * data stream.  Off (every call a no-op) when stderr is not a terminal or
 * the command was asked to be quiet; a NULL progress is off too, so that a
 * hook in a copy loop is one line.
 *
 *	struct progress p;
 *	progress_start(&p, asked && !quiet, "cat", total);	// total 0: unknown
 *	... progress_add(&p, n); ...
 *	progress_end(&p);
 */
#ifndef PC_CLI_PROGRESS_H
#define PC_CLI_PROGRESS_H

#include <stdint.h>

/* Seconds between two redraws at least. */
#define PROGRESS_PERIOD 0.25

struct progress {
	int on;			/* stderr is a terminal and it was wanted */
	const char *label;
	uint64_t total;		/* bytes expected, 0 when unknown */
	uint64_t done;
	uint64_t file_base;	/* done when the current file began */
	double t0, drawn_at;	/* monotonic seconds */
	int drawn;		/* the line holds something to clear */
};

/* Start: drawn only when @want and stderr is a terminal. */
void progress_start(struct progress *p, int want, const char *label, uint64_t total);
/* @n more bytes done; redraws when a period has passed. */
void progress_add(struct progress *p, uint64_t n);
/* The current file ended at @size bytes (a clone, holes): done moves there. */
void progress_file_done(struct progress *p, uint64_t size);
/*
 * A line of the caller's own instead of the bytes line (bench's phases),
 * under the same period and clearing; @force draws even within the period.
 */
void progress_status(struct progress *p, int force, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Clear the line. */
void progress_end(struct progress *p);

/* Bytes in the regular files under @path (one file, or a tree with -r). */
uint64_t progress_tree_bytes(const char *path, int recursive);

#endif
