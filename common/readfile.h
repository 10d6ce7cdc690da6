/* SPDX-License-Identifier: MIT */
/*
 * Files read whole (readfile.c): a small /proc or /sys file into the
 * caller's buffer with open, one read and close (no allocation: the preload
 * shim calls it), a number from one, and a larger file into memory.
 */
#ifndef PC_READFILE_H
#define PC_READFILE_H

#include <stddef.h>
#include <stdint.h>

/*
 * The file @path into @buf (@size bytes, at least 1), NUL-terminated: what
 * one read(2) gives, which for a /proc or /sys file of less than a page is
 * all of it; the rest of a longer one is left out.  The bytes read, or -errno.
 */
int pcc_read_small(const char *path, char *buf, size_t size);

/*
 * The decimal number the small file @path starts with (a /sys setting) into
 * *@ret; 0, -errno, or -EINVAL when the file holds none.
 */
int pcc_read_u64(const char *path, uint64_t *ret);

/* All of the file @path into a malloc'ed NUL-terminated string; 0 or -errno. */
int pcc_read_all(const char *path, char **ret_text);

#endif
