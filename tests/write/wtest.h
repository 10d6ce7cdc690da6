/* SPDX-License-Identifier: MIT */
/*
 * What the write tests share: a file system whose device runs out of room
 * underneath it (so that writeback, not write(2), fails), the page size, and
 * counting a file's cached and dirty pages.
 */
#ifndef PC_WTEST_H
#define PC_WTEST_H

#include <stdint.h>

/*
 * As root, make a @fstype file system of @size bytes on a loop device whose
 * sparse backing file lives in a tmpfs of only @room bytes: writes the file
 * system accepted fail at writeback once the tmpfs is full (ENOSPC or EIO
 * from the device).  Returns the mount point; undone at exit and on signals.
 * Skips (77) without root, tmpfs mounts, losetup or mkfs.
 */
const char *wt_thinfs(const char *fstype, uint64_t size, uint64_t room);

/*
 * As wt_thinfs() with room for everything, made with @mkfs_options and
 * mounted with @options (-o); either may be NULL.  Returns NULL (all undone)
 * when the kernel refuses to mount with @options.
 */
const char *wt_mountfs(const char *fstype, uint64_t size, const char *mkfs_options,
		       const char *options);

/* The loop device under wt_thinfs()'s or wt_mountfs()'s file system. */
const char *wt_dev(void);

/* Undo wt_thinfs() / wt_mountfs() now (also at exit); safe twice. */
void wt_teardown(void);

/*
 * Run @fn in a child process; returns its exit status (or 128 + signal).
 * The child flushes its output and undoes a file system it made itself;
 * t_fail() and t_skip() in it go through exit() and undo it too.
 */
int wt_in_child(int (*fn)(void *), void *arg);

uint64_t wt_page(void);

/*
 * Bytes of [@off, @off + @len) of @fd (0: to the end) cached (cachestat(2),
 * else mincore(2) on a readable @fd), and dirty or under writeback
 * (cachestat only); fail the test when they cannot be counted.
 */
uint64_t wt_cached(int fd, uint64_t off, uint64_t len);
uint64_t wt_dirty(int fd, uint64_t off, uint64_t len);

/* Check that @path holds exactly @size bytes of pattern @seed; fails the test. */
void wt_check_file(const char *path, uint64_t size, uint32_t seed);

#endif
