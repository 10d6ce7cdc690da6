/* SPDX-License-Identifier: MIT */
/*
 * The ops table every write strategy fills in, and the write stream's state
 * they share.  The write-stream core (wstream.c) calls these and never
 * branches on which strategy it holds.  Library-internal.
 */
#ifndef PCL_WSTRATEGY_H
#define PCL_WSTRATEGY_H

#include <stdint.h>
#include <sys/types.h>

#include "pagecliff.h"
#include "registry.h"

struct pc_wstream;

/*
 * A write strategy's name, capabilities and fallback are its row in the
 * registry (registry.h); this table is what it does.
 */
struct pcl_wstrategy_ops {
	/*
	 * Set up s->priv; 0, or -errno with s->stats.reason saying why (-EOPNOTSUPP,
	 * -EINVAL, -EPERM, -ENOSYS, -EACCES: the registry's fallback is tried).
	 */
	int (*init)(struct pc_wstream *s);
	/*
	 * Write all of @len at @off (ignored with O_APPEND: at the end), handing
	 * every byte to the kernel before it returns.  Returns @len, fewer
	 * after an error that stopped it, or -errno.
	 */
	ssize_t (*pwrite)(struct pc_wstream *s, const void *buf, size_t len, uint64_t off);
	/* PCL_WCAP_ZEROCOPY in the row: a buffer of s->chunk bytes to fill, or NULL (-ENOMEM ...). */
	void *(*lend)(struct pc_wstream *s, int *ret_err);
	/* PCL_WCAP_ZEROCOPY in the row: write @len bytes of the lent buffer at @off. */
	ssize_t (*commit)(struct pc_wstream *s, size_t len, uint64_t off);
	/* Wait for writes in flight (before fdatasync); 0 or -errno. */
	int (*drain)(struct pc_wstream *s);
	/* Close: wait, start writeback, evict what it may; 0 or -errno. */
	int (*finish)(struct pc_wstream *s);
	/* Free s->priv; must not fail. */
	void (*release)(struct pc_wstream *s);
};

struct pc_wstream {
	int fd;				/* the file, as opened by the caller or us */
	int own_fd;			/* the stream opened fd and closes it */
	int regular;			/* fd is a regular file */
	int append;			/* fd has O_APPEND */
	int readable;			/* fd is open O_RDWR */
	uint64_t pos;			/* the cursor */
	size_t chunk;			/* opts.chunk_size, checked */
	int err;			/* first I/O error not returned yet */
	struct pc_wopts opts;
	const struct pcl_wstrategy_ops *ops;
	unsigned int caps;		/* the strategy's PCL_WCAP_* (registry.h) */
	void *priv;			/* the strategy's state */
	void *lend_buf;			/* pc_wstream_lend() for strategies without lend() */
	int lent;			/* a buffer is lent */
	struct pc_wstats stats;
};

/* printf into / append "; " and printf to s->stats.reason (reason.c); the
 * rest of what a write strategy asks of its stream is in wstream-io.c. */
void pcl_wset_reason(struct pc_wstream *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void pcl_wadd_reason(struct pc_wstream *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Keep @err as the stream's first I/O error not returned yet. */
void pcl_wnote_err(struct pc_wstream *s, int err);
/*
 * A write that handed over @done bytes, then got @n (<= 0, errno set when
 * < 0): @done now and the kernel's errno kept for the next call (a full
 * file system takes what fits, then says ENOSPC), or -errno when @done is 0.
 */
ssize_t pcl_wshort_write(struct pc_wstream *s, size_t done, ssize_t n);

/*
 * pwritev2 until all of @len is written, retrying EINTR and short writes;
 * with O_APPEND at the end of the file (offset -1).  *ret_off gets where the
 * bytes went.  Counts calls.  Returns @len, the bytes written before an
 * error, or -errno when none were.
 */
ssize_t pcl_wfull_pwrite(struct pc_wstream *s, const void *buf, size_t len,
			uint64_t off, int rwf, uint64_t *ret_off);

/* A description of s->fd's file of our own, opened with @flags, or -errno. */
int pcl_wreopen(struct pc_wstream *s, int flags);

struct pcl_flusher;

/*
 * Writes through the flusher (wflush.c): set @f up for s (waiting through
 * @wait_fd, or -1 for one of its own), write with pwritev2 flags @rwf, and
 * finish at close.  Writeback errors are kept with pcl_wnote_err().
 */
int pcl_wflush_init(struct pc_wstream *s, struct pcl_flusher *f, int wait_fd);
ssize_t pcl_wflush_pwrite(struct pc_wstream *s, struct pcl_flusher *f,
			 const void *buf, size_t len, uint64_t off, int rwf);
int pcl_wflush_finish(struct pc_wstream *s, struct pcl_flusher *f);

#endif
