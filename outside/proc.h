/* SPDX-License-Identifier: MIT */
/*
 * What the watcher reads of other processes: /proc/PID/fdinfo, children,
 * cgroup members, and the pidfd system calls (Linux 5.6).
 */
#ifndef PCO_OUTSIDE_PROC_H
#define PCO_OUTSIDE_PROC_H

#include <stdint.h>
#include <sys/types.h>

/* One descriptor as /proc/PID/fdinfo/N says. */
struct pco_fdinfo {
	uint64_t pos;
	unsigned int flags;	/* open flags, O_ACCMODE included */
	uint64_t mnt_id;
	uint64_t ino;
};

int pco_pidfd_open(pid_t pid);
/* A duplicate of @pid's @fd (shares its open file description), or -errno. */
int pco_pidfd_getfd(int pidfd, int fd);
/* 0 while the process behind @pidfd runs, -ESRCH once it has exited. */
int pco_pidfd_alive(int pidfd);

/* Parse /proc/@pid/fdinfo/@fd; 0 or -errno (-ENOENT: closed). */
int pco_fdinfo_read(pid_t pid, int fd, struct pco_fdinfo *ret);

/*
 * The same through a descriptor of /proc/@pid/fdinfo/@fd kept open: each
 * read from offset 0 shows the descriptor anew (one pread(2) a look, no
 * open and close); -ENOENT once the number is closed.
 */
int pco_fdinfo_open(pid_t pid, int fd);
int pco_fdinfo_pread(int info, struct pco_fdinfo *ret);

/*
 * The numbers of @pid's descriptors, into @fds (up to @max); returns how
 * many or -errno (-ENOENT: gone, -EACCES: not ours to see).
 */
int pco_fds(pid_t pid, int *fds, int max);

/*
 * The same through /proc/@pid/fd kept open (@dir from pco_fds_open()): read
 * again from its start each call, with no open and close.
 */
int pco_fds_open(pid_t pid);
int pco_fds_at(int dir, int *fds, int max);

/* Children of every thread of @pid, into @pids (up to @max); how many. */
int pco_children(pid_t pid, pid_t *pids, int max);

/* The pids listed in @path (a cgroup.procs file), or /proc's when NULL. */
int pco_pid_list(const char *path, pid_t *pids, int max);

/*
 * Call @fn for each data file @pid maps (inode set, not executable, an
 * absolute path outside /usr and /lib, not a .so), with its device
 * (makedev()) and inode; 0 or -errno.
 */
int pco_maps(pid_t pid, void (*fn)(void *arg, const char *path, unsigned int dev, uint64_t ino),
	     void *arg);

/* One mapping of a file, as /proc/PID/maps lists it. */
struct pco_map {
	uint64_t start, end;		/* its addresses: [start, end) */
	uint64_t off;			/* the file offset at start */
	unsigned int dev;		/* makedev() */
	uint64_t ino;
};

/*
 * The mappings of file (@dev, @ino) by @pid into @maps (up to @max), but
 * executable ones; how many, or -errno.
 */
int pco_maps_of(pid_t pid, unsigned int dev, uint64_t ino, struct pco_map *maps, int max);

/*
 * The inode of @pid's mount namespace (0: ours); 0 when it cannot be read.
 * Two processes with the same one see the same paths.
 */
uint64_t pco_mntns(pid_t pid);

/*
 * @pid's parent and when it started, in clock ticks since boot
 * (/proc/PID/stat); 0 or -errno.
 */
int pco_proc_stat(pid_t pid, pid_t *ret_ppid, uint64_t *ret_start);

/* A program as exec(2) made it: a change means the process executed another. */
struct pco_exec_id {
	uint64_t code, stack;	/* where its code and its stack begin */
	char comm[16];
};

/*
 * @pid's program now; 0 or -errno.  An exec of the same program with
 * address randomization off leaves it unchanged.
 */
int pco_exec_id(pid_t pid, struct pco_exec_id *ret);

/*
 * The sum of @pid's I/O counters (/proc/PID/io: characters and system calls
 * read and written, bytes from and to storage): a change means it read or
 * wrote anything, through any call or a page fault; and its read_bytes, the
 * bytes it (all its threads, and the children it reaped) caused to be read
 * from storage, readahead included.  0 or -errno (-ENOENT: no task I/O
 * accounting in this kernel).
 */
int pco_io_counts(pid_t pid, uint64_t *ret_sum, uint64_t *ret_read_bytes);

/* One field of /proc/PID/io (read_bytes, wchar...) into *@ret; 0 or -errno. */
int pco_io_field(pid_t pid, const char *name, uint64_t *ret);

/* Now, in the same clock ticks since boot (CLOCK_BOOTTIME); 0 when unknown. */
uint64_t pco_boot_ticks(void);

/* When @pid started, in seconds since the epoch; 0 when unknown. */
double pco_start_time(pid_t pid);

#endif
