// SPDX-License-Identifier: MIT
/*
 * buffered: plain pread(2) through the page cache, the baseline every other
 * strategy is measured against.  It leaves what it reads cached.
 */
#include "internal.h"

static int buffered_init(struct pc_stream *s)
{
	return 0;
}

static ssize_t buffered_pread(struct pc_stream *s, void *buf, size_t len,
			      uint64_t off)
{
	return pcl_full_pread(s->fd, buf, len, off, 0, &s->stats.syscalls);
}

const struct pcl_strategy_ops pcl_strat_buffered = {
	.init = buffered_init,
	.read = pcl_read_at_cursor,
	.pread = buffered_pread,
};
