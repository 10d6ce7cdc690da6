// SPDX-License-Identifier: MIT
/*
 * buffered writes: plain pwrite(2) (write(2) with O_APPEND).  Dirty pages
 * stay until the kernel writes them back; the baseline the others are
 * measured against, and what non-regular files get.
 */
#include "internal.h"
#include "wstrategy.h"

static int wbuffered_init(struct pc_wstream *s)
{
	return 0;
}

static ssize_t wbuffered_pwrite(struct pc_wstream *s, const void *buf, size_t len,
				uint64_t off)
{
	return pcl_wfull_pwrite(s, buf, len, off, 0, NULL);
}

const struct pcl_wstrategy_ops pcl_wstrat_buffered = {
	.init = wbuffered_init,
	.pwrite = wbuffered_pwrite,
};
