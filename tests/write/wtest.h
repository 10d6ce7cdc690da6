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

uint64_t wt_page(void);

/* cachestat(2) of [@off, @off + @len) of @fd in bytes; fails the test. */
uint64_t wt_cached(int fd, uint64_t off, uint64_t len);
uint64_t wt_dirty(int fd, uint64_t off, uint64_t len);

/* Check that @path holds exactly @size bytes of pattern @seed; fails the test. */
void wt_check_file(const char *path, uint64_t size, uint32_t seed);

#endif
