// SPDX-License-Identifier: MIT
/*
 * dropbehind writes: buffered pwrite(2) driven through the flusher
 * (flusher.c, shared with the preload shim), which starts writeback of whole
 * batches behind the cursor and evicts them a few batches later.  Works on
 * every kernel; a writeback error the flusher sees is returned by the next
 * call or by close.
 */
#include <errno.h>
#include <stdlib.h>

#include "flusher.h"
#include "internal.h"
#include "wstrategy.h"

static int wdropbehind_init(struct pc_wstream *s)
{
	struct pcl_flusher *f = calloc(1, sizeof(*f));
	int ret;

	if (!f)
		return -ENOMEM;
	ret = pcl_wflush_init(s, f, -1);
	if (ret) {
		free(f);
		return ret;
	}
	s->priv = f;
	return 0;
}

static ssize_t wdropbehind_pwrite(struct pc_wstream *s, const void *buf, size_t len,
				  uint64_t off)
{
	return pcl_wflush_pwrite(s, s->priv, buf, len, off, 0);
}

static int wdropbehind_finish(struct pc_wstream *s)
{
	return pcl_wflush_finish(s, s->priv);
}

static void wdropbehind_release(struct pc_wstream *s)
{
	pcl_flusher_release(s->priv);
	free(s->priv);
	s->priv = NULL;
}

const struct pcl_wstrategy_ops pcl_wstrat_dropbehind = {
	.init = wdropbehind_init,
	.pwrite = wdropbehind_pwrite,
	.finish = wdropbehind_finish,
	.release = wdropbehind_release,
};
