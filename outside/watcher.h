/* SPDX-License-Identifier: MIT */
/*
 * What the watcher's files share (internal to outside/, below outside.h):
 * the watcher and its targets, and the calls between watcher.c (the loop
 * and the looks, on top), watcher-kview.c (the kernel view's glue) and
 * targets.c (which processes are followed), in that order of calls.
 */
#ifndef PCO_OUTSIDE_WATCHER_H
#define PCO_OUTSIDE_WATCHER_H

#include <stdint.h>
#include <sys/types.h>

#include "hot.h"
#include "kview.h"
#include "mounts.h"
#include "outside.h"
#include "proc.h"
#include "stream.h"

#define PCO_MAX_FDS 65536
#define PCO_MAX_PIDS 65536
#define PCO_MAPPED_MAX 32
/* New members of a cgroup are looked for this often. */
#define PCO_DISCOVER_CGROUP 0.1

struct pco_target {
	pid_t pid;
	int pidfd;
	int fd_dir;			/* /proc/PID/fd kept open, or -1 (--all) */
	int dead;
	int foreign;			/* in another mount namespace than ours */
	double maps_seen;		/* when /proc/PID/maps was read last */
	double added;			/* when it was first looked at (0: not yet) */
	uint64_t read_left;		/* read from storage before this look, not yet claimed */
	uint64_t read_bytes;		/* its read_bytes at this look, and the last full one */
	uint64_t read_last;
	struct pco_exec_id exec;	/* its program, as last seen */
	int exec_known;			/* exec was read while it had a stream acted on */
	double exec_seen;		/* when that was read */
	double ended_rate, ended_at;	/* the last stream that ended: its rate, when */
	uint64_t io_sum;		/* its I/O counters' sum at the last full look */
	int quiet;			/* no I/O at the last look: its streams wait */
	unsigned int quiet_looks;	/* looks in a row it was quiet */
	double next_at;			/* a quiet target is asked again then */
	double full_at;			/* when its descriptors were last looked at */
	uint64_t mapped[PCO_MAPPED_MAX];	/* inodes said to be mapped */
	int nmapped;
	struct pco_stream *streams;
	int n, cap;
};

struct pco_watcher {
	struct pco_opts o;
	struct pco_ctx ctx;
	struct pco_target *t;
	int n, cap;
	struct pco_stream *drain;	/* ended streams whose cleaner still works */
	int ndrain, capdrain;
	double discovered;
	double children_seen;		/* when children were looked for last */
	int cgroup_gone;		/* removed, or (until_empty) emptied */
	int cgroup_had;			/* it had a member once */
	int keep_open;			/* fdinfo and fd folders kept open (see read_fdinfo) */
	pid_t self;
	uint64_t mntns;			/* our mount namespace's inode */
	struct pco_mounts *mounts;	/* which file systems may be touched */
	int stopping;			/* a signal asked us to end: no long drain */
	int fds[PCO_MAX_FDS];		/* a listing of one target's descriptors */
	pid_t *pids;
	pid_t *known;			/* the live targets' pids, sorted (discover()) */
	struct pco_hot *hot;	/* --all: kernel events name the candidates */
	struct pco_kview *kv;	/* the kernel's view of streams, or NULL */
	struct pco_kview_env env;
	int raised;		/* the descriptor limit was raised */
	int freeing;		/* pco_watcher_free(): no new targets */
	double now;		/* the current tick's time (the kernel view's calls) */
};

/* targets.c */

/* The live target @pid, or NULL. */
struct pco_target *pco_target_find(struct pco_watcher *w, pid_t pid);

/*
 * Follow @pid; from a listing read at @listed (0: named by the user), of
 * @parent's children (0: any).  0, or -errno with one line in @why.
 */
int pco_target_add(struct pco_watcher *w, pid_t pid, pid_t parent, uint64_t listed,
		   char *why, size_t size);

/* Children of the targets, members of the cgroup, processes of the host: followed. */
void pco_targets_discover(struct pco_watcher *w, double now);

/* watcher-kview.c */

/* Load the kernel's view where it can be, and say which view follows streams. */
void pco_watcher_kview_on(struct pco_watcher *w);

/*
 * One owner per stream: a writer, and a reader followed by its moving
 * cursor, keep their file from the kernel's view; a reader that guesses
 * (its cursor stands) hands its file to the kernel's view once that acts.
 */
void pco_watcher_share(struct pco_watcher *w, struct pco_target *t, double now);

/* Say once per file system, with --stats, that its files are left alone. */
void pco_watcher_say_served(struct pco_watcher *w, const struct pco_mount *m);

#endif
