/* SPDX-License-Identifier: MIT */
/*
 * The ops table every read strategy fills in.  The stream core calls these and
 * never branches on which strategy it holds (compare fio's ioengine_ops).
 */
#ifndef PCL_STRATEGY_H
#define PCL_STRATEGY_H

#include <sys/types.h>

#include "pagecliff.h"
#include "registry.h"

struct pc_stream;

/*
 * A read strategy's name, capabilities and fallback are its row in the
 * registry (registry.h); this table is what it does.
 */
struct pcl_strategy_ops {
	/*
	 * Set up s->priv; 0, or -errno with s->stats.reason saying why (-EOPNOTSUPP,
	 * -EINVAL, -EPERM, -ENOSYS, -EACCES: the registry's fallback is tried).
	 */
	int (*init)(struct pc_stream *s);
	/* Read up to @len at s->pos; short only at end of file. */
	ssize_t (*read)(struct pc_stream *s, void *buf, size_t len);
	/* Read up to @len at @off; s->pos stays. */
	ssize_t (*pread)(struct pc_stream *s, void *buf, size_t len, uint64_t off);
	/* PCL_CAP_ZEROCOPY in the row: lend the next chunk at s->pos (see pc_stream_next()). */
	ssize_t (*next)(struct pc_stream *s, const void **ret_data);
	/* The stream reached end of file at s->pos; NULL: nothing to do then. */
	void (*eof)(struct pc_stream *s);
	/* Free s->priv; must not fail; NULL: there is no s->priv. */
	void (*release)(struct pc_stream *s);
};


#endif
