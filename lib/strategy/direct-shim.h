/* SPDX-License-Identifier: MIT */
/*
 * The direct read strategy as the LD_PRELOAD shim uses it (direct-shim.c):
 * a stream without the stream core, whose chunks are lent at a cursor that
 * the program's own lseek() moves.  Library-internal; the shim links the
 * direct strategy's files and this one alone.
 */
#ifndef PCL_DIRECT_SHIM_H
#define PCL_DIRECT_SHIM_H

#include <stdint.h>
#include <sys/types.h>

#include "pagecliff.h"

struct pc_stream;
struct io_uring;

/*
 * Open a direct stream on the file open on @fd (looked at while it opens,
 * never again: it reads through a descriptor of its own) with its cursor at
 * @pos.  At most @max_bytes of buffers are ever in
 * use (at least the starting depth's), @place_fd (NULL: none) moves each
 * descriptor the stream opens to where the caller wants it (returns the new
 * one, or -1 to keep the old), @submit (NULL: io_uring_submit()) submits
 * the reads queued on the stream's ring, and the buffers are not inherited
 * by a fork() child.  Returns 0 and sets *ret_stream, or -errno with @reason saying why
 * (-EOPNOTSUPP: O_DIRECT refused or its alignment unknown, -ENOMEM).
 */
int pcl_direct_open(struct pc_stream **ret_stream, int fd, uint64_t pos,
		    uint64_t max_bytes, int (*place_fd)(int fd),
		    int (*submit)(struct io_uring *ring), char *reason, size_t size);

/*
 * Lend the bytes at the cursor, as many as its chunk holds, and advance the
 * cursor past them: they stay valid until the next call on the stream.
 * Returns their length, 0 where read(2) would find the end of the file now,
 * or -errno.
 */
ssize_t pcl_direct_next(struct pc_stream *s, const void **ret_data);

/*
 * Move the cursor to @pos.  What was read ahead is kept where it holds @pos
 * (a jump back within the chunk at the cursor, or forward within the reads
 * in flight); otherwise the next call reads at @pos.
 */
void pcl_direct_seek(struct pc_stream *s, uint64_t pos);

/* Forget what was read ahead (the file was written): the next call reads at the cursor. */
void pcl_direct_forget(struct pc_stream *s);

/* The descriptors the stream holds (its own, not the caller's) into
 * @ret_fds; returns how many (1 or 2). */
int pcl_direct_fds(const struct pc_stream *s, int ret_fds[2]);

/* The stream's figures: syscalls made and why it reads as it does. */
const struct pc_stats *pcl_direct_stats(const struct pc_stream *s);

/* Wait for the reads in flight, close the stream's descriptors, free it. */
void pcl_direct_close(struct pc_stream *s);

/*
 * In a fork() child: let the stream go without touching its ring, which
 * the parent goes on using (its completions are the parent's), nor its
 * buffers, which the child does not have: close its descriptors, free the
 * rest.
 */
void pcl_direct_abandon(struct pc_stream *s);

#endif
