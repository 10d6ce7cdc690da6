/* SPDX-License-Identifier: MIT */
/*
 * The watcher: act on other processes' file streams from outside.  It polls
 * the processes' descriptors (/proc/PID/fdinfo: position, flags, mount id,
 * inode), and behind each regular file read or written sequentially past the
 * minimum size it drops pages (lib/dropper.c) or writes back and drops them
 * (lib/flusher.c, polling cachestat(2): no wait, no fsync, no error sequence
 * touched), through a read-only description of its own of the same file.
 * That description is opened through /proc/PID/fd/N, checked first with
 * O_PATH (a regular file, the inode and mount fdinfo named), and kept while
 * the stream is acted on; only files of local file systems are touched
 * (mounts.h), nothing of a FUSE or network file: the
 * program's descriptor table, offsets, flags and locks are never changed,
 * and no close of ours runs ->flush on its description.  Only where that
 * open is refused, a pidfd_getfd(2) duplicate, on file systems without
 * ->flush.  Internal to the command: pco_ names.
 */
#ifndef PCO_OUTSIDE_H
#define PCO_OUTSIDE_H

#include <signal.h>
#include <stdint.h>
#include <sys/types.h>

struct pco_watcher;

struct pco_opts {
	uint64_t min_size;	/* sequential bytes before acting (8 MiB) */
	uint64_t budget;	/* read or written but not dropped, per stream */
	int follow_children;	/* add children of the targets as they appear */
	int stats_fd;		/* a --stats line per stream at its end; -1: none */
	const char *cgroup;	/* follow the processes of this cgroup, or NULL */
	int all;		/* follow every process of the host */
	int until_empty;	/* --cgroup: end once it has no process left */
	int kernel_only;	/* beside the shim: only the kernel's view acts */
	int own_children;	/* run: our children's pages are followed from their first */
	char bad[160];		/* the environment's bad setting, or "" (policy.h) */
};

/*
 * The policy the shim shares (common/policy.h: PAGECLIFF_MIN_SIZE, 8 MiB,
 * and PAGECLIFF_BUDGET, 64 MiB), children followed.  A bad setting is kept
 * in @o->bad: pco_watcher_start() then refuses with it (-EINVAL).
 */
void pco_opts_init(struct pco_opts *o);

/*
 * Follow process @pid.  Checks up front what would refuse it later; returns
 * 0 or -errno, with one line saying why in @why (ESRCH: gone; EPERM or
 * EACCES: another user's or Yama; ENOSYS: no pidfd_getfd).
 */
int pco_watcher_add(struct pco_watcher *w, pid_t pid, char *why, size_t size);

/*
 * The start-up attach and run share: the settings checked (-EINVAL, with
 * @why), the kernel checked (-ENOSYS, with @why), a watcher made and @pids
 * added (the first refusal's -errno, with @why as pco_watcher_add() says
 * it; -ENOMEM).  No pids: --cgroup, --all.
 */
int pco_watcher_start(const struct pco_opts *o, const pid_t *pids, int n,
		      struct pco_watcher **ret_w, char *why, size_t size);

/*
 * Tick until every target has exited, @secs have passed (0: no limit), or
 * *@stop is set (by a signal handler).  With @child > 0, also until that
 * child of ours exits: it is reaped and its wait status stored in
 * *@ret_status.  Returns 1 when it stopped for *@stop, else 0.
 */
int pco_watcher_loop(struct pco_watcher *w, pid_t child, double secs,
		     volatile sig_atomic_t *stop, int *ret_status);

/* Finish every stream (drop what was passed), print their stats, free all. */
void pco_watcher_free(struct pco_watcher *w);

/* Whether the kernel's view follows streams (else descriptor positions). */
int pco_watcher_kernel_view(const struct pco_watcher *w);

/* Can the watcher run here at all?  0, or -errno with @why. */
int pco_check_kernel(char *why, size_t size);

#endif
