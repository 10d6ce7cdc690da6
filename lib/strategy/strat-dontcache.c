// SPDX-License-Identifier: MIT
/*
 * dontcache: preadv2(2) with RWF_DONTCACHE (Linux >= 6.14, file systems that
 * opted in).  The kernel drops the pages the read instantiated once they are
 * copied and keeps the ones that were cached already, so nothing is left
 * behind and nobody else's cache is lost.
 */
#include <errno.h>
#include <string.h>
#include <sys/uio.h>

#include "internal.h"

/*
 * The kernel checks the flag before it reads, so one byte at the end of the
 * file tells, and brings no page in.
 */
static int dontcache_init(struct pc_stream *s)
{
	char byte;
	struct iovec iov = { &byte, 1 };
	uint64_t size = 0;
	ssize_t n;

	pcl_file_size(s->fd, &size);
	do {
		s->stats.syscalls++;
		n = preadv2(s->fd, &iov, 1, size, RWF_DONTCACHE);
	} while (n < 0 && errno == EINTR);
	if (n >= 0)
		return 0;
	if (errno == EOPNOTSUPP || errno == EINVAL) {
		pcl_set_reason(s, "RWF_DONTCACHE refused (%s)", strerror(errno));
		return -EOPNOTSUPP;
	}
	return -errno;
}

static ssize_t dontcache_pread(struct pc_stream *s, void *buf, size_t len,
			       uint64_t off)
{
	return pcl_full_pread(s->fd, buf, len, off, RWF_DONTCACHE,
			     &s->stats.syscalls);
}

const struct pcl_strategy_ops pcl_strat_dontcache = {
	.init = dontcache_init,
	.read = pcl_read_at_cursor,
	.pread = dontcache_pread,
};
