/* SPDX-License-Identifier: MIT */
/*
 * What the test programs share: skipping with a reason, deterministic file
 * contents that can be checked at any offset, the retry of checks that need
 * warm pages, throw-away file systems on loop devices (root), seccomp filters
 * that make the kernel refuse a feature for real so that fallbacks can be
 * exercised, and running again with the shim preloaded.  Built twice: with
 * the build's sanitizers, and without for the programs the shim is preloaded
 * into (tests/meson.build).
 */
#ifndef PC_TEST_HELPERS_H
#define PC_TEST_HELPERS_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdnoreturn.h>
#include <sys/types.h>

#define T_EXIT_PASS 0
#define T_EXIT_FAIL 1
#define T_EXIT_SKIP 77

/* Print "SKIP: reason" and exit 77. */
noreturn void t_skip(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Print "FAIL: reason" and exit 1. */
noreturn void t_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#define T_CHECK(cond, ...)						\
	do {								\
		if (!(cond)) {						\
			fprintf(stderr, "%s:%d: check '%s' failed: ",	\
				__FILE__, __LINE__, #cond);		\
			t_fail(__VA_ARGS__);				\
		}							\
	} while (0)

/* The byte at file offset @off of the pattern @seed. */
uint8_t t_pattern_byte(uint64_t off, uint32_t seed);
void t_pattern_fill(void *buf, uint64_t off, size_t len, uint32_t seed);
/* Offset of the first byte that differs from the pattern, or -1. */
int64_t t_pattern_check(const void *buf, uint64_t off, size_t len, uint32_t seed);

/* Create @path (must not exist) of @size pattern bytes; exits on failure. */
void t_make_file(const char *path, uint64_t size, uint32_t seed);
/* Write back and evict @path from the page cache. */
void t_evict(const char *path);
/* Bytes of @path in the page cache (cachestat or mincore). */
uint64_t t_cached(const char *path);
/* Bytes of @path dirty or under writeback (cachestat; skips without it). */
uint64_t t_dirty(const char *path);

/*
 * Reclaim (DAMON's pageout here, docs/MACHINES.md) may take warm pages at any
 * moment, behind the back of the code under test; code that drops them
 * wrongly does so every time.  So a check that needs pages to stay cached
 * returns T_WARM_LOST when they did not, and runs up to T_WARM_TRIES times:
 * t_warm_tries() returns @attempt's first other result, else T_WARM_LOST.
 */
#define T_WARM_LOST 2
#define T_WARM_TRIES 3
int t_warm_tries(int (*attempt)(void *), void *arg);

/*
 * Where tests make their files: the build folder's file system
 * ($PAGECLIFF_BUILDDIR, set by meson), else $TMPDIR, else /tmp.
 */
const char *t_workdir(void);

/*
 * Whether PAGECLIFF_TEST_QUICK=1 asks for the quick form of a long test: the
 * sanitized builds' runs (setup.sh), where every edge still counts and the
 * repetitions between them cost several times their plain time.
 */
int t_quick(void);

/* mkdtemp() under @base into @buf; removed with t_rmtree(). */
void t_tmpdir(char *buf, size_t size, const char *base);
void t_rmtree(const char *dir);
/* This process's folder: t_tmpdir() under t_workdir(), on the first call. */
const char *t_testdir(void);

/*
 * As root, make a @fstype ("xfs", "ext4") file system of @size bytes on a
 * loop device over a file in /tmp, mount it and return the mount point.
 * Skips (77) without root or mkfs; everything is undone at exit and on
 * SIGINT/SIGTERM.
 */
const char *t_loopfs(const char *fstype, uint64_t size);
/*
 * The same with the image alone in a tmpfs of @room bytes when @room is not
 * 0 (so that the device can really be full), @mkfs_options, and the mount
 * @options ("defaults" when NULL; NULL is returned, nothing left, when the
 * file system refuses them).  One per process.
 */
const char *t_loopfs_make(const char *fstype, uint64_t size, uint64_t room,
			  const char *mkfs_options, const char *options);
/* The loop device under it; undo it now (also at exit; safe twice). */
const char *t_loopfs_dev(void);
void t_loopfs_teardown(void);

enum t_refuse {
	T_REFUSE_URING,		/* io_uring_setup fails with ENOSYS */
	T_REFUSE_DONTCACHE,	/* preadv2 with RWF_DONTCACHE fails EOPNOTSUPP */
	T_REFUSE_DIRECT,	/* open/openat with O_DIRECT fail EINVAL */
	T_REFUSE_CACHESTAT,	/* cachestat fails ENOSYS, as before Linux 6.5 */
};

/* Install a seccomp filter on this process; skips when seccomp is missing. */
void t_refuse(enum t_refuse what);

/*
 * Run @fn in a child process; returns its exit status (or 128 + signal).
 * Output is flushed on both sides, and a t_loopfs_make() of the child is
 * undone when @fn returns (t_fail/t_skip in it go through exit: also).
 */
int t_in_child(int (*fn)(void *), void *arg);

/* 1 in the run t_reexec_with_shim() started. */
int t_shimmed(void);
/*
 * Run this program again (argv as main got it) with the shim,
 * $PAGECLIFF_PRELOAD_SO, preloaded; skips when it is not set.  The folder
 * of t_tmpdir() is removed first: exec skips atexit.
 */
noreturn void t_reexec_with_shim(char **argv);

#endif
