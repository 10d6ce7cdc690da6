/* SPDX-License-Identifier: MIT */
/*
 * The RAM testbed (root): a file system on a loop device over a file in a
 * tmpfs of its own, for machines without fast drives; and the state file in
 * /run/pagecliff/ that records every mount, loop device and cgroup a run
 * makes, so that the next run can undo what a killed one left.
 * Functions return 0 or -errno and never print.
 */
#ifndef PC_CLI_TESTBED_H
#define PC_CLI_TESTBED_H

#include <limits.h>
#include <stdint.h>

#define STATE_DIR "/run/pagecliff"

struct testbed {
	char base[128];			/* STATE_DIR/testbed-<id> */
	char ram[160];			/* tmpfs mount point */
	char backing[192];		/* the file in it */
	char mnt[160];			/* where the file system is mounted */
	char loopdev[64];
	char fstype[16];		/* "xfs", or "ext4" without mkfs.xfs */
	uint64_t size;
	int loop_fd;			/* held until teardown; AUTOCLEAR */
	int ram_mounted, fs_mounted;
};

/*
 * Start recording this process's state in STATE_DIR/bench-<id>.state, whose
 * flock this process holds until state_close() or its death.  Without root
 * (no STATE_DIR) returns -errno and records nothing.
 */
int state_open(void);
/* This run's <id>: the pid, "-N" added when another PID namespace's run of
 * the same pid holds that name. */
const char *state_run_id(void);
/* Append "@what @path" to the state file (ignored when none is open). */
int state_record(const char *what, const char *path);
/* Remove the state file: everything in it has been undone. */
void state_close(void);

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
 * Build a testbed of @size bytes: tmpfs, backing file, loop device, mkfs
 * (xfs, else ext4; ext4 below 320 MiB), mount.  Every step is recorded before it is taken.
 * On failure everything done so far is undone; *ret_step names the step
 * that failed ("tmpfs", "loop", "mkfs", "mount").
 */
int testbed_create(struct testbed *tb, uint64_t size, const char **ret_step);

/* Unmount, detach and remove what testbed_create() made; idempotent. */
int testbed_destroy(struct testbed *tb);

#endif
