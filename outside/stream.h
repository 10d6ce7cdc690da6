/* SPDX-License-Identifier: MIT */
/*
 * One descriptor of a followed process, as the watcher sees it: a candidate
 * until its sequential run passes the minimum size, then a reader (dropped
 * behind with lib/dropper.c) or a writer (written back and dropped behind
 * with lib/flusher.c), acting through a read-only description of its own,
 * kept while the stream is acted on and closed at the look that finds the
 * program's descriptor gone: the file system can be unmounted a look after
 * the program closed the file.
 */
#ifndef PCO_OUTSIDE_STREAM_H
#define PCO_OUTSIDE_STREAM_H

#include <fcntl.h>
#include <stdint.h>
#include <sys/types.h>

#include "dropper.h"
#include "flusher.h"
#include "mounts.h"
#include "proc.h"
#include "state.h"

/*
 * A range to clean without the engines: what a stream passed before the
 * watcher saw it, and a writer's tail after its close.  Batch by batch, clean
 * pages are dropped, dirty ones kept, or (@wb: the stream wrote them all)
 * written back first, never waited for: the next look drops them.
 */
struct pco_cleaner {
	uint64_t lo, hi;
	int wb;			/* writeback may be started on dirty pages */
	uint64_t started;	/* it was, below this */
	int looks;		/* looks left before giving up */
};

struct pco_stream {
	pid_t pid;
	int fd;			/* the number in the process */
	int info;		/* its /proc/PID/fdinfo/N kept open, or -1 */
	struct pco_fdinfo fi;	/* as last read */
	enum pco_state state;	/* changed only by pco_state_step() */
	int seen;		/* in this look's listing */
	unsigned int skipped;	/* looks a PCO_SKIP stream was not read */
	int own;		/* our own read-only description, during a look; or -1 */
	int anchor;		/* an O_PATH of the file, for a process in another
				 * mount namespace (its paths are not ours to walk);
				 * held from activation to the end's work; or -1 */
	int foreign;		/* its process is in another mount namespace */
	int overlay;		/* on overlayfs: counted through a mapping */
	int c0_set;		/* c0 was counted (a reader followed by residency) */
	int held;		/* a writer candidate's file was looked at once */
	int have_handle;	/* handle names the file (name_to_handle_at) */
	/* A struct file_handle, to open the file again once closed (renamed) */
	_Alignas(struct file_handle) unsigned char handle[sizeof(struct file_handle) + MAX_HANDLE_SZ];
	uint64_t size;		/* at the first look (candidates) */
	uint64_t run_start;	/* the sequential run began here */
	uint64_t first;		/* position at the first look */
	uint64_t own_below;	/* of the pages below first, this many are its own */
	uint64_t last;		/* position at the last look (or where it must be) */
	uint64_t raw_last;	/* the descriptor's own position at the last look */
	int still;		/* looks its position stood */
	double moved_at;	/* when it last moved (or was first seen) */
	double proc_start;	/* when its process started (epoch s), 0: not read */
	unsigned int looks;	/* looks at it, the first sight included */
	int sized;		/* a writer followed by the file's size */
	uint64_t c0;		/* bytes cached when it was first opened by us */
	double t_last, rate;	/* when, and bytes per second (smoothed) */
	uint64_t bytes;		/* bytes the cursor moved forward */
	uint64_t runs, seeks;
	int have_drop, have_fl;
	struct pcl_dropper drop;
	struct pcl_flusher fl;
	struct pco_cleaner clean;
	uint64_t dropped, kept, flushed, syscalls;	/* the cleaner's */
	uint64_t flushed_to;	/* flushed counts what was started below this */
	int unknown;		/* the cleaner could not tell residency */
	int cut;		/* ended by an exec: its descriptor lives on, its
				 * readahead is the next program's */
	/*
	 * A reader's file as cached at the stream's first sight, from its
	 * position on: never dropped (the dropper's and the cleaner's keep);
	 * NULL where residency could not be told.  On the heap: streams are
	 * copied.
	 */
	struct pcl_extents *keep;
	char path[256];
	char mnt_point[256];	/* its mount's point, a prefix of path; "" unknown */
};

struct pco_ctx {
	uint64_t min_size, budget;
	int stats_fd;
};

/*
 * A new stream of @pid's @fd, as @fi says, on mount @m: a candidate, or
 * left alone (not a regular file, O_DIRECT, a file system that is not
 * local: then nothing of the file is looked at, not even its type).
 * @foreign: the process is in another mount namespace than the watcher.
 */
void pco_stream_init(struct pco_stream *s, pid_t pid, int fd, const struct pco_fdinfo *fi,
		     const struct pco_mount *m, int foreign);

/*
 * The position moved to @fi->pos at @now: act.  @read_left, for a stream
 * new in this look: the bytes its process read from storage that no stream
 * accounts for (see the watcher's claimable()); a reader found far into its
 * file (attach to a running program, a look that came late) counts part of
 * the cached pages around its position as its own, and takes them off.
 */
void pco_stream_look(struct pco_stream *s, int pidfd, const struct pco_fdinfo *fi, double now,
		     uint64_t *read_left, const struct pco_ctx *c);

/*
 * The descriptor is gone (closed, reused, the process exited): finish behind
 * it.  Returns 1 while a cleaner still has work (call pco_stream_drain()).
 */
int pco_stream_end(struct pco_stream *s, const struct pco_ctx *c);

/* One more look of an ended stream's cleaner; 1 while work remains. */
int pco_stream_drain(struct pco_stream *s);

/*
 * The kernel's view acts on the file of a stream that guesses (its cursor
 * stands: followed by residency or size): say what it did, and hand off.
 */
void pco_stream_yield(struct pco_stream *s, const struct pco_ctx *c);

/* Whether @s follows a cursor that stands (by residency or by the file's size). */
static inline int pco_stream_guesses(const struct pco_stream *s)
{
	return s->state == PCO_RESIDENT || s->sized;
}

/* Free what it holds, print its --stats line once. */
void pco_stream_release(struct pco_stream *s, const struct pco_ctx *c);

/* Seconds until this stream must be looked at again to stay in the budget. */
double pco_stream_interval(const struct pco_stream *s, const struct pco_ctx *c);

#endif
