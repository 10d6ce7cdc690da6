/* SPDX-License-Identifier: MIT */
/*
 * What the shim's C tests share.  Self-contained (no libpagecliff, no test
 * helpers) because these programs get libpagecliff-preload.so preloaded and
 * are therefore built without sanitizers, like the shim.
 */
#ifndef SHIMTEST_H
#define SHIMTEST_H

#include <stdint.h>
#include <stdio.h>
#include <stdnoreturn.h>

noreturn void st_skip(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
noreturn void st_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#define ST_CHECK(cond, ...)						\
	do {								\
		if (!(cond)) {						\
			fprintf(stderr, "%s:%d: check '%s' failed: ",	\
				__FILE__, __LINE__, #cond);		\
			st_fail(__VA_ARGS__);				\
		}							\
	} while (0)

/* 1 when this process runs with the shim preloaded. */
int st_shimmed(void);
/* Re-run this program with the shim preloaded (argv as main got it). */
noreturn void st_reexec_with_shim(char **argv);

/* A folder under /var/tmp, removed at exit. */
const char *st_tmpdir(void);
/* The byte at @off of the pattern @seed; fill and check buffers with it. */
uint8_t st_byte(uint64_t off, uint32_t seed);
void st_fill(void *buf, uint64_t off, size_t len, uint32_t seed);
int st_check(const void *buf, uint64_t off, size_t len, uint32_t seed);
/* Create @path of @size pattern bytes, written back and evicted. */
void st_make_file(const char *path, uint64_t size, uint32_t seed);
void st_evict(const char *path);
/* Bytes of @path cached, and dirty or under writeback (cachestat). */
uint64_t st_cached(const char *path);
uint64_t st_dirty(const char *path);

#endif
