/* SPDX-License-Identifier: MIT */
/*
 * One process's file as the kernel's view sees it (kview.h): the pages it
 * added, in the order they came, and how to act on them.
 */
#ifndef PCO_OUTSIDE_KFILE_H
#define PCO_OUTSIDE_KFILE_H

#include <stdint.h>
#include <sys/types.h>

#include "kview.h"
#include "proc.h"

#define PCO_KF_MAPS 8

enum pco_kf_state {
	PCO_KF_CANDIDATE,	/* its sequential runs are not past the minimum yet */
	PCO_KF_ACTING,		/* dropped behind through kf->fd */
	PCO_KF_NOFD,		/* no way to it found yet: looked for again */
	PCO_KF_ALONE,		/* never touched (not local, refused, gone) */
};

/* Pages [lo, hi) it added, in one go or run. */
struct pco_kpiece {
	uint64_t lo, hi;
};

struct pco_kfile {
	pid_t pid;
	unsigned int kdev;		/* the kernel's dev_t */
	unsigned int dev;		/* makedev() of it */
	uint64_t ino;
	enum pco_kf_state state;
	int fd;				/* our read-only description, or -1 */
	int fdnum;			/* the process's descriptor of it, or -1 */
	uint64_t last_pos;		/* that descriptor's position at the last look */
	int moving;			/* and whether it moved */
	int ended;			/* its process exited */
	int owned;			/* PCO_KV_OWNED: see kview.h */
	int deferred;			/* a position reader of it was seen, no mapping */
	int self;			/* its process drops its pages itself */
	int working;			/* it reads again what was dropped: left alone */
	uint64_t refaulted;		/* pages added again in what was dropped */
	struct pco_kpiece drops[16];	/* the last ranges dropped (PCO_KF_DROPS) */
	unsigned int ndrops;
	double seek;			/* seconds between looks for a way to it */
	int writer;			/* its newest pages were dirty when first found */
	double maps_at;			/* when its mappings were last read */
	int unknown;			/* residency could not be told */
	int took;			/* a guessing position stream handed it over */
	unsigned int tries;		/* ticks the oldest pieces stayed cached */
	struct pco_kpiece *pieces;	/* a ring: head is the oldest */
	unsigned int head, n, cap;
	uint64_t held;			/* pages in pieces */
	uint64_t added, seq;		/* pages added; those in long runs */
	uint64_t lo_min, hi_max;	/* the span of pages it added in */
	uint64_t kept;			/* pages cached there it did not add, at its end */
	uint64_t claimed;		/* pages below it taken as its own (attach) */
	uint64_t dropped, left;		/* pages: dropped by us, left cached */
	uint64_t syscalls;
	double last_add, looked;	/* when it last grew; a way to it last sought */
	uint64_t seen;			/* boot clock ticks when it was first seen */
	double rate;			/* pages per second, smoothed */
	double rate_at;			/* when it was last measured */
	uint64_t fresh;			/* pages added since then */
	struct pco_map maps[PCO_KF_MAPS];
	int nmaps;
	char path[256];
};

/* Note that @kf gained pages [@lo, @hi) in a run of @run pages at @now. */
void pco_kfile_add(struct pco_kfile *kf, uint64_t lo, uint64_t hi, uint64_t run, double now);

/*
 * Act behind @kf: drop what it added beyond the newest @keep pages (all of
 * it when it ended or went idle); @min: sequential pages before acting.
 */
void pco_kfile_act(struct pco_kfile *kf, const struct pco_kview_env *env, double now,
		   uint64_t keep, uint64_t min);

/*
 * Take as @kf's own the cached pages right below the lowest it added, up to
 * @pages, whole MiB by whole MiB while they are all cached: what a process
 * followed late (attach) read before, in the same run.
 */
void pco_kfile_claim(struct pco_kfile *kf, uint64_t pages);

/* Whether @kf is done: ended or long idle, nothing left to try. */
int pco_kfile_done(const struct pco_kfile *kf, double now);

/* Print its --stats line (when it acted) to @stats_fd, close and free. */
void pco_kfile_release(struct pco_kfile *kf, int stats_fd);

#endif
