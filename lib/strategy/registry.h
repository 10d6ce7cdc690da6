/* SPDX-License-Identifier: MIT */
/*
 * The registry of strategies: one row per enum pc_strategy with its name,
 * what it can do, its read and write ops tables and where each direction
 * falls back.  The stream cores find a strategy here and nowhere else
 * (tmux's cmd_table, fio's ioengine list); adding a strategy is its file and
 * one row in registry.c.
 */
#ifndef PCL_REGISTRY_H
#define PCL_REGISTRY_H

#include <stddef.h>

#include "pagecliff.h"

struct pcl_strategy_ops;
struct pcl_wstrategy_ops;

/*
 * What a strategy can do, declared (fio's FIO_* engine flags): the cores act
 * on these, never on which function pointers are set.
 */
enum {
	/* It serves read streams: the row's read ops are set. */
	PCL_CAP_READ = 1 << 0,
	/* It serves write streams: the row's write ops are set. */
	PCL_CAP_WRITE = 1 << 1,
	/* Reads: next() lends the strategy's own buffer, pc_stream_next() copies nothing. */
	PCL_CAP_ZEROCOPY = 1 << 2,
	/*
	 * Reads under a page are served from the strategy's own read-ahead, with
	 * no read system call each (an fstat, as the core's buffer makes, sees a
	 * truncate): the core's small-read buffer stays out of them.
	 */
	PCL_CAP_SMALL_READS = 1 << 3,
	/* Writes: lend() hands out buffers of its own. */
	PCL_WCAP_ZEROCOPY = 1 << 4,
	/* Writes: can write files open with O_APPEND. */
	PCL_WCAP_APPEND = 1 << 5,
	/* The preload shim acts with it: PC_STRATEGY_PRELOAD. */
	PCL_CAP_PRELOAD = 1 << 6,
};

/* A direction without a strategy to fall back to. */
#define PCL_NO_FALLBACK PC_STRATEGY_COUNT

struct pcl_strategy {
	const char *name;			/* "buffered": pc_strategy_name() */
	unsigned int caps;			/* PCL_CAP_*, PCL_WCAP_* */
	const struct pcl_strategy_ops *read;	/* set with PCL_CAP_READ */
	const struct pcl_wstrategy_ops *write;	/* set with PCL_CAP_WRITE */
	/*
	 * Where each direction goes when init() refuses for lack of support
	 * (pcl_is_fallback_err()), or PCL_NO_FALLBACK.
	 */
	enum pc_strategy read_fallback;
	enum pc_strategy write_fallback;
};

/*
 * The table, indexed by enum pc_strategy.  PC_AUTO's row has a name and no
 * ops: the cores ask auto (auto.c) which row to use.
 */
extern const struct pcl_strategy pcl_strategies[PC_STRATEGY_COUNT];

struct pcl_fd;

/* Where a stream keeps the strategy asked for, the one in use and why. */
struct pcl_choice {
	enum pc_strategy requested;
	enum pc_strategy *ret_id;	/* its stats' strategy */
	char *reason;			/* its stats' reason */
	size_t size;			/* of @reason */
};

/*
 * How one kind of stream is made (pcl_stream_new()) and takes its strategy
 * (pcl_strategy_setup()).
 */
struct pcl_setup {
	unsigned int dir;		/* PCL_CAP_READ or PCL_CAP_WRITE */
	const char *plain;		/* the reason for a file that is not regular:
					 * it gets PC_BUFFERED */
	size_t size;			/* of the stream */
	/*
	 * Fill the new, zeroed @stream in from the file @f and the caller's
	 * @opts (NULL: the defaults) and check the options: 0 with where the
	 * stream keeps its strategy in *@ret, or -errno.
	 */
	int (*take)(void *stream, const struct pcl_fd *f, const void *opts,
		    struct pcl_choice *ret);
	/* auto's choice for @stream, with why in @reason (@size bytes). */
	enum pc_strategy (*choose)(void *stream, char *reason, size_t size);
	/* Take strategy @id for @stream: 0, or -errno with why in its reason. */
	int (*init)(void *stream, enum pc_strategy id);
};

/*
 * Set @stream up with strategy @requested (PC_AUTO: @how->choose()'s) for
 * @how->dir, walking the direction's fallback chain while a strategy
 * refuses for lack of support (pcl_is_fallback_err()), or one that cannot
 * serve the direction.  @reason (@size bytes, the stream's) says why the
 * strategy in use, each refusal's reason kept in front of the next.
 * Returns 0 with *@ret_id the strategy in use, or the refusal that ended
 * the chain (*@ret_id untouched).
 */
int pcl_strategy_setup(const struct pcl_setup *how, void *stream,
		       enum pc_strategy requested, int regular, char *reason,
		       size_t size, enum pc_strategy *ret_id);

#endif
