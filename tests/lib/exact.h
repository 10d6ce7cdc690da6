/* SPDX-License-Identifier: MIT */
/* Byte-exact reading of pattern files through every strategy (exact.c). */
#ifndef PC_TEST_EXACT_H
#define PC_TEST_EXACT_H

#include <stdint.h>

#include "pagecliff.h"

/* The file sizes every strategy is checked on. */
extern const uint64_t exact_sizes[];
extern const unsigned int exact_nsizes;

/*
 * Read the pattern file @path (of @size bytes, @seed) through @strategy with
 * sequential reads of @rlen bytes and a chunk of @chunk bytes, then with the
 * zero-copy API, then with random positioned reads; fail on any byte that
 * differs.  Returns the strategy the stream ended up using.
 */
enum pc_strategy exact_check(const char *path, uint64_t size, uint32_t seed,
			     enum pc_strategy strategy, size_t rlen, size_t chunk);

/* Make the test files in @dir and check them all with every strategy. */
void exact_suite(const char *dir, int quick);

#endif
