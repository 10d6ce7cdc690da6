/* SPDX-License-Identifier: MIT */
/*
 * The direct read strategy's state and the functions its parts share
 * (strat-direct.c lists the parts).  Library-internal.
 */
#ifndef PCL_DIRECT_H
#define PCL_DIRECT_H

#include <stdint.h>
#include <sys/types.h>

#include <liburing.h>

#include "direct-tune.h"
#include "internal.h"

enum slot_state { SLOT_FREE, SLOT_BUSY, SLOT_DONE };

struct slot {
	char *buf;
	uint64_t off;			/* file offset of buf[0] */
	ssize_t res;			/* bytes read, or -errno */
	ssize_t avail;			/* bytes read into it once finished, -1 before */
	enum slot_state state;
};

/* user_data of a read into the caller's buffer: this bit and its piece. */
#define USER_PIECE (1ull << 63)
/* user_data of a read into @n slots from slot @i. */
#define SLOT_DATA(i, n) ((uint64_t)(n) << 32 | (i))
#define SLOT_FIRST(data) ((unsigned int)((data) & 0xffffffffu))
#define SLOT_COUNT(data) ((unsigned int)((data) >> 32 & 0xffffu))

/* The two ways of a copy-API read (direct-measure.c). */
enum way { WAY_USER, WAY_PIPE };

struct tune {
	int trial;			/* trying each way, else keeping one */
	enum way way;			/* the way now */
	uint64_t bytes;			/* read this way since @t0 */
	double t0;
	double rate[2];			/* bytes per second each way scored */
};

struct piece {
	size_t len;
	ssize_t res;
	int done;
};

struct direct {
	int dfd;			/* the O_DIRECT descriptor */
	uint32_t align;			/* offset and length alignment */
	uint32_t mem_align;		/* buffer alignment */
	size_t chunk;			/* bytes per slot, a multiple of align */
	unsigned int nslots;		/* the ring's span of slots now */
	struct slot *slots;
	char *bufs;			/* the slots' buffers */
	size_t bufs_size;
	int bufs_huge;			/* in huge pages (a long file) */
	struct io_uring ring;
	int have_ring;
	int (*submit)(struct io_uring *ring);	/* NULL: io_uring_submit() (direct-shim.c) */
	int fixed_bufs;
	unsigned int head;		/* slot holding the cursor */
	unsigned int queued;		/* slots in the pipeline from head */
	unsigned int busy;		/* requests submitted and not yet completed */
	uint64_t next_off;		/* where the next slot will read */
	uint64_t size;			/* file size as last seen: read ahead to it */
	size_t head_used;		/* bytes of the head slot handed out */
	int restart;			/* rebuild the pipeline at the cursor */
	int lent;			/* the head slot is on loan to the caller */
	char *bounce;			/* pread()'s buffer, chunk bytes */
	struct piece *pieces;		/* up to nslots reads into a caller's buffer */
	unsigned int pieces_busy;
	struct tune tune;
	unsigned int nmax;		/* slots allocated: the most in flight */
	unsigned int want;		/* the tuner's depth: slots to keep busy */
	unsigned int req;		/* the tuner's request size, in slots */
	unsigned int nfixed;		/* slots 0 .. nfixed - 1 are registered */
	struct pcl_tune_depth dt;
	uint64_t win_bytes;		/* handed out by the pipeline this window */
	double win_t0;			/* when the window began, 0: not begun */
};

/* direct-open.c: the ops table's init() and release(). */
int pcl_direct_init(struct pc_stream *s);
void pcl_direct_release(struct pc_stream *s);

/* direct-ring.c */
int pcl_direct_ring_setup(struct pc_stream *s, struct direct *d);
void pcl_direct_slot_prep(struct direct *d, unsigned int i, unsigned int n);
int pcl_direct_submit(struct pc_stream *s, struct direct *d);
int pcl_direct_reap(struct pc_stream *s, struct direct *d);
int pcl_direct_wait_slot(struct pc_stream *s, struct direct *d, unsigned int i);

/* direct-pipe.c */
void pcl_direct_drain(struct pc_stream *s, struct direct *d);
void pcl_direct_idle(struct pc_stream *s, struct direct *d);
ssize_t pcl_direct_peek(struct pc_stream *s, struct direct *d, uint64_t pos,
			char **ret_ptr);
void pcl_direct_retire(struct direct *d);
void pcl_direct_loan_end(struct direct *d);

/* direct-short.c */
ssize_t pcl_direct_complete_short(struct pc_stream *s, struct direct *d,
				  char *buf, size_t len, size_t got, uint64_t off);

/* direct-user.c */
int pcl_direct_user_fits(struct pc_stream *s, struct direct *d, void *buf,
			 size_t len);
ssize_t pcl_direct_read_user(struct pc_stream *s, struct direct *d,
			     void *buf, size_t len);

/* direct-measure.c */
enum way pcl_direct_way(struct tune *t);
void pcl_direct_account(struct direct *d, size_t n);

/* direct-pread.c: the ops table's pread(). */
ssize_t pcl_direct_pread(struct pc_stream *s, void *buf, size_t len,
			 uint64_t off);

#endif
