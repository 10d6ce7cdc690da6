/* SPDX-License-Identifier: MIT */
/*
 * The ops table every read strategy fills in.  The stream core calls these and
 * never branches on which strategy it holds (compare fio's ioengine_ops).
 */
#ifndef PC_STRATEGY_H
#define PC_STRATEGY_H

#include <sys/types.h>

#include "pagecliff.h"

struct pc_stream;

/*
 * What a read strategy can do, declared (fio's FIO_* engine flags): the
 * core acts on these, never on which function pointers are set.
 */
enum {
	/* next() lends the strategy's own buffer: pc_stream_next() copies nothing. */
	PCL_CAP_ZEROCOPY = 1 << 0,
	/*
	 * Reads under a page are served from the strategy's own read-ahead, with
	 * no read system call each (an fstat, as the core's buffer makes, sees a
	 * truncate): the core's small-read buffer stays out of them.
	 */
	PCL_CAP_SMALL_READS = 1 << 1,
};

struct pcl_strategy_ops {
	enum pc_strategy id;
	const char *name;
	unsigned int flags;		/* PCL_CAP_* */
	/*
	 * Where to go when init() refuses (-EOPNOTSUPP, -EINVAL, -EPERM,
	 * -ENOSYS, -EACCES: pc_is_fallback_err()): the next strategy to try,
	 * or PC_AUTO for none.
	 */
	enum pc_strategy fallback;
	/* Set up s->priv; 0, or -errno with s->stats.reason saying why. */
	int (*init)(struct pc_stream *s);
	/* Read up to @len at s->pos; short only at end of file. */
	ssize_t (*read)(struct pc_stream *s, void *buf, size_t len);
	/* Read up to @len at @off; s->pos stays. */
	ssize_t (*pread)(struct pc_stream *s, void *buf, size_t len, uint64_t off);
	/* PCL_CAP_ZEROCOPY: lend the next chunk at s->pos (see pc_stream_next()). */
	ssize_t (*next)(struct pc_stream *s, const void **ret_data);
	/* The stream reached end of file at s->pos; NULL: nothing to do then. */
	void (*eof)(struct pc_stream *s);
	/* Free s->priv; must not fail; NULL: there is no s->priv. */
	void (*release)(struct pc_stream *s);
};

extern const struct pcl_strategy_ops pcl_strat_buffered;
extern const struct pcl_strategy_ops pcl_strat_dontcache;
extern const struct pcl_strategy_ops pcl_strat_dropbehind;
extern const struct pcl_strategy_ops pcl_strat_direct;

/* The table, indexed by enum pc_strategy; PC_AUTO has no entry. */
const struct pcl_strategy_ops *pcl_strategy_ops(enum pc_strategy id);

#endif
