/* SPDX-License-Identifier: MIT */
/*
 * The RAM testbed (root): one or several file systems, each on a loop device
 * over a file in a tmpfs of its own, for machines without fast drives; and
 * the state file in /run/pagecliff/ that records every mount, loop device,
 * cgroup and data folder a run makes or claims, so that the next run (or
 * --cleanup) can undo what a killed one left.  Functions return 0 or -errno
 * and never print, but testbed_parse(), which parses the command line's
 * value and refuses a bad one itself.
 */
#ifndef PC_CLI_TESTBED_H
#define PC_CLI_TESTBED_H

#include <limits.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>

#define STATE_DIR "/run/pagecliff"

/* The most devices one testbed builds (bench's BENCH_MAX_DIRS). */
#define TESTBED_MAX_DEVICES 16

/* One device of a testbed: its backing file, loop device and mount. */
struct testbed_dev {
	char backing[192];		/* the file in the tmpfs */
	char mnt[160];			/* where its file system is mounted */
	char loopdev[64];
	int loop_fd;			/* held until teardown; AUTOCLEAR */
	int fs_mounted;
};

/*
 * The state file of one run: every step recorded before it is taken.
 * Zeroed, it is closed and records nothing.
 */
struct state_journal {
	int fd;				/* valid while path[0] */
	char path[PATH_MAX];		/* STATE_DIR/bench-<id>.state, "" when closed */
	char id[32];			/* <id>, "" until known */
};

/*
 * A testbed: one tmpfs and, per device, a file in it, a loop device and a
 * file system.  One device keeps the names of the single testbed (ram/disk.img,
 * mnt); several are ram/diskN.img and mntN.
 */
struct testbed {
	char base[128];			/* STATE_DIR/testbed-<id> */
	char ram[160];			/* tmpfs mount point */
	char fstype[16];		/* "xfs", or "ext4" without mkfs.xfs */
	uint64_t size;			/* bytes per device */
	unsigned int count;		/* devices asked for */
	unsigned int ndev;		/* devices begun (dev[0..ndev-1]) */
	int ram_mounted;
	int loop_fd;			/* -1 or 0 before testbed_create(); unused after */
	struct state_journal *journal;	/* where each step is recorded */
	struct testbed_dev dev[TESTBED_MAX_DEVICES];
};

/*
 * Start recording this run's state in @j, STATE_DIR/bench-<id>.state, whose
 * flock this process holds until state_close() or its death.  Without root
 * (no STATE_DIR) returns -errno and records nothing.
 */
int state_open(struct state_journal *j);
/* This run's <id>: the pid, "-N" added when another PID namespace's run of
 * the same pid holds that name. */
const char *state_run_id(struct state_journal *j);
/* Append "@what @path" to the state file (ignored when none is open). */
int state_record(struct state_journal *j, const char *what, const char *path);
/* @what of a data folder (DIR/pagecliff-bench) a run claims: undone with
 * bench_release_stale(), the data kept with STATE_FOLDER_KEEP (--keep). */
#define STATE_FOLDER "folder"
#define STATE_FOLDER_KEEP "folder-keep"
/* @what of an output (report, timeline, chart) a run made: "output DEV INO
 * BTIME GEN PATH", the identity of bench-made.h; the undo removes it while
 * it is still that file, all of that matching, empty or partial (a run that
 * ends writes it, then removes the state file).  An older bench's "output
 * DEV:INO PATH" is still undone, by device and inode alone. */
#define STATE_OUTPUT "output"
/* Record the output a run made at @path, open as @fd (its absolute path). */
int state_record_output(struct state_journal *j, const char *path, int fd);
/* Remove the state file: everything in it has been undone. */
void state_close(struct state_journal *j);

/* Called for each thing undone from a killed run's state. */
typedef void (*state_undo_fn)(const char *what, const char *path, int result,
			      void *arg);
/*
 * Undo the state files whose pid does not exist here and whose lock nobody
 * holds (a missing pid alone proves nothing across PID namespaces), newest
 * record first, and remove them.  Returns how many things were undone (0 when
 * nothing was left), or -errno.
 */
int state_cleanup_stale(state_undo_fn fn, void *arg);

/*
 * Parse --testbed's value: ram:SIZE (one device) or ram:COUNTxSIZE, SIZE per
 * device in fio units.  Refuses, with one line and exit 2 (the CLI's
 * usage_error), a bad value, more than TESTBED_MAX_DEVICES, or COUNT x SIZE
 * of tmpfs over 80% of the memory available now.
 */
void testbed_parse(const char *arg, uint64_t *ret_size, unsigned int *ret_count);

/*
 * Build a testbed of @count devices of @size bytes each: tmpfs, and per
 * device a backing file, loop device, mkfs (xfs, else ext4; ext4 below
 * 320 MiB), mount.  Every step is recorded before it is taken.  Stops when
 * *@stop becomes non-zero between steps (-EINTR).  On failure everything
 * done so far is undone; *ret_step names the step that failed ("tmpfs",
 * "loop device", "file system", ...).  Each step is recorded in @journal.
 */
int testbed_create(struct testbed *tb, struct state_journal *journal, unsigned int count,
		   uint64_t size, atomic_int *stop, const char **ret_step);

/* Unmount, detach and remove what testbed_create() made; idempotent. */
int testbed_destroy(struct testbed *tb);

#endif
