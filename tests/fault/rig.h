/* SPDX-License-Identifier: MIT */
/*
 * The fault rig's side in a test program: mount faultfs (faultfs.c) on a
 * fresh folder, unmount it whatever happens, a watchdog that turns a hang
 * into a failure, and reading a stream to its end while checking every byte
 * it hands out against the pattern.
 */
#ifndef PC_FAULT_RIG_H
#define PC_FAULT_RIG_H

#include <stddef.h>
#include <stdint.h>

#include "pagecliff.h"

/* The pattern seed faultfs uses unless a name says seed=N. */
#define FR_SEED 7

/*
 * Mount faultfs (the binary named by $FAULTFS) and return the mount point.
 * Skips (77) without root, /dev/fuse or $FAULTFS.  It is unmounted at exit
 * and on SIGINT, SIGTERM and SIGALRM; the daemon also dies with the test.
 */
const char *fr_mount(void);

/* Unmount now (also safe in a signal handler, and twice). */
void fr_unmount(void);

/* Fail the test ("hung") if it is still running after @secs seconds. */
void fr_watchdog(unsigned int secs);

/*
 * Make a @size-byte pattern file (FR_SEED) in a fresh folder under
 * $PAGECLIFF_BUILDDIR (else the current folder) and return its path; file
 * and folder are removed at exit and on SIGINT, SIGTERM and SIGALRM.
 */
const char *fr_scratch_file(uint64_t size);

/* Remove the scratch file now (also safe in a signal handler, and twice). */
void fr_scratch_remove(void);

/* printf the path of a faultfs file into @buf. */
void fr_path(char *buf, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* What reading a stream to its end gave. */
struct fr_result {
	uint64_t bytes;			/* bytes handed out before end or error */
	int err;			/* 0 at end of file, else -errno */
	int64_t bad;			/* first offset not matching the pattern, -1 */
	uint64_t short_reads;		/* reads shorter than asked before the end */
};

/*
 * Read @s to end of file or error with pc_stream_read() in @len-byte reads
 * (@len 0: pc_stream_next()), checking each byte against pattern @seed.
 */
void fr_drain(struct pc_stream *s, size_t len, uint32_t seed,
	      struct fr_result *ret);

/* Open @path with @strategy and otherwise default options; fails the test. */
struct pc_stream *fr_open(const char *path, enum pc_strategy strategy);

/* fr_open() of the faultfs file fr_path() names with @fmt. */
struct pc_stream *fr_openf(enum pc_strategy strategy, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * fr_drain() @s with pattern FR_SEED, then its statistics into *@ret_stats
 * (unless NULL), and close it.
 */
void fr_drain_close(struct pc_stream *s, size_t len, struct fr_result *ret,
		    struct pc_stats *ret_stats);

/* The strategies every fault is tried with, PC_AUTO last. */
extern const enum pc_strategy fr_strategies[];
extern const unsigned int fr_nstrategies;

#endif
