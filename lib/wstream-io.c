// SPDX-License-Identifier: MIT
/*
 * What a write strategy asks of its stream: all of a write done, short
 * writes retried until the kernel's errno; that errno kept for the caller's
 * next call; the file opened again with other flags through /proc.  Apart
 * from wstream.c, which calls the strategies, so that they need not call it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/uio.h>
#include <unistd.h>

#include "internal.h"
#include "wstrategy.h"

void pcl_wnote_err(struct pc_wstream *s, int err)
{
	if (err < 0 && !s->err)
		s->err = err;
}

ssize_t pcl_wshort_write(struct pc_wstream *s, size_t done, ssize_t n)
{
	int err = n < 0 ? -errno : -EIO;	/* 0 bytes written and no errno */

	if (!done)
		return err;
	pcl_wnote_err(s, err);
	return done;
}

/* All of @len at @off (-1 with O_APPEND), retrying short writes. */
ssize_t pcl_wfull_pwrite(struct pc_wstream *s, const void *buf, size_t len,
			uint64_t off, int rwf, uint64_t *ret_off)
{
	off_t at = s->append ? -1 : (off_t)off;
	size_t done = 0;

	while (done < len) {
		struct iovec iov = { (char *)buf + done, len - done };
		ssize_t n;

		s->stats.syscalls++;
		n = pwritev2(s->fd, &iov, 1, at < 0 ? -1 : at + (off_t)done, rwf);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return pcl_wshort_write(s, done, n);
		if (!done && ret_off)
			*ret_off = at < 0 ? (uint64_t)lseek(s->fd, 0, SEEK_CUR) - n : off;
		done += n;
	}
	return done;
}

int pcl_wreopen(struct pc_wstream *s, int flags)
{
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", s->fd);
	s->stats.syscalls++;
	fd = open(path, flags | O_CLOEXEC | O_NOCTTY);
	return fd < 0 ? -errno : fd;
}
