/* SPDX-License-Identifier: MIT */
/*
 * What the write tests share: the page size, counting a file's cached and
 * dirty pages, checking a written file.
 */
#ifndef PC_WTEST_H
#define PC_WTEST_H

#include <stdint.h>

#include "pagecliff.h"

/* A file system whose device runs out of room underneath it is
 * t_loopfs_make() with a small @room (tests/helpers.h); children run in
 * t_in_child(). */

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

/* pc_wstream_open() of @path (mode 0644) with strategy @st; fails the test. */
struct pc_wstream *wt_open(const char *path, int flags, enum pc_strategy st);

#endif
