/* SPDX-License-Identifier: MIT */
/*
 * The kernel's view of streams.  The BPF program (bpf/pagecliff.bpf.c,
 * pc_kv_add) sends, per thread and file, the runs of page indices the thread
 * adds to the page cache, whatever made it add them: read, pread, a pool of
 * preadv, sendfile, copy_file_range, splice, io_uring, raw system calls,
 * faults through a mapping, writes.  Per process and file (a "kfile") the
 * pages it added are kept in the order they came.  Once its sequential runs
 * pass the minimum size, what it added beyond the newest half of the budget
 * is dropped through a read-only description of our own: written back first
 * where dirty (started, never waited for), paged out of the process's own
 * mappings where it maps the file.  Pages the process did not add (cached
 * before, or by others) are in no kfile: never dropped.  Pages another way
 * already dropped (the shim, the watcher's position streams, the kernel) are
 * found gone and only counted.  Internal to the watcher: pco_ names.
 */
#ifndef PCO_OUTSIDE_KVIEW_H
#define PCO_OUTSIDE_KVIEW_H

#include <stdint.h>
#include <sys/types.h>

#include "mounts.h"
#include "outside.h"

struct pco_kview;

/*
 * A position stream of the watcher acts on the file (a writer, or a reader
 * whose cursor moves): the file is left to it, unless the process maps it.
 */
enum { PCO_KV_FREE, PCO_KV_OWNED };

/* What the watcher lends the kernel view for a tick. */
struct pco_kview_env {
	void *arg;
	/*
	 * @pid's pidfd, following it first where it may be and where it had
	 * started by @seen (boot clock ticks: its pid not reused since); -errno:
	 * not followed.
	 */
	int (*pidfd)(void *arg, pid_t pid, uint64_t seen);
	/* Whether one of @pid's position streams acts on file (@dev, @ino) */
	int (*owned)(void *arg, pid_t pid, unsigned int dev, uint64_t ino);
	/* Say once, with --stats, that mount @m is left alone (not local) */
	void (*served)(void *arg, const struct pco_mount *m);
	struct pco_mounts *mounts;
};

/*
 * Load the program and follow nothing yet (@o->all: every process); 0, or
 * -errno with one line saying why in @why (no BPF, not root, no BTF...).
 * PAGECLIFF_NO_BPF set in the environment refuses it (-ENOTSUP).
 */
int pco_kview_open(const struct pco_opts *o, struct pco_kview **ret_kv, char *why, size_t size);

/* Follow the pages @pid and its descendants add; 0 or -errno. */
int pco_kview_follow(struct pco_kview *kv, pid_t pid);

/*
 * Take the kernel's records and act behind every stream; returns the
 * seconds until it must look again (1e9: nothing is streaming).
 */
double pco_kview_tick(struct pco_kview *kv, const struct pco_kview_env *env, double now);

/*
 * A position stream of @pid follows file (@dev, @ino) (a @writer, or a
 * reader by its moving cursor): the file is left to it for good (unless the
 * process maps it).
 */
void pco_kview_defer(struct pco_kview *kv, pid_t pid, unsigned int dev, uint64_t ino,
		     int writer);

/*
 * Whether it acts on @pid's file (@dev: makedev(), @ino); if so it takes
 * the file over from a position stream that guesses, whose line then
 * counts what was kept.
 */
int pco_kview_take(struct pco_kview *kv, pid_t pid, unsigned int dev, uint64_t ino);

/* A descriptor that polls readable when records wait, or -1. */
int pco_kview_fd(const struct pco_kview *kv);

/* @pid exited: finish behind its files at the next ticks. */
void pco_kview_gone(struct pco_kview *kv, pid_t pid);

/* Whether ended files still have work (dirty pages being written back). */
int pco_kview_busy(const struct pco_kview *kv);

/* Finish every file (drop what is left), print their stats, free all. */
void pco_kview_free(struct pco_kview *kv, const struct pco_kview_env *env);

#endif
