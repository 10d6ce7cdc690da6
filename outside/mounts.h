/* SPDX-License-Identifier: MIT */
/*
 * Which file systems the watcher may touch at all.  Every open, stat or
 * close of a file is a request to its file system, and on some of them that
 * request goes to a server a user runs (FUSE: a hostile one can leave the
 * caller waiting in state D for good) or over a network (NFS, CIFS: a dead
 * server does the same).  The watcher is root and follows every process of
 * a host, so it acts only on files of local file systems whose calls no
 * user can hold up, and tells which one a descriptor lives on from what
 * /proc says (fdinfo's mount id, mountinfo's type), never from the file.
 */
#ifndef PCO_OUTSIDE_MOUNTS_H
#define PCO_OUTSIDE_MOUNTS_H

#include <stdint.h>
#include <sys/types.h>

struct pco_mounts;

/* What the watcher may do with a file on a mount. */
enum pco_fs_class {
	PCO_FS_LOCAL,		/* a local file system: act on its files */
	PCO_FS_SERVED,		/* a user's server or a network behind it: never touch */
	PCO_FS_UNLISTED,	/* not a mount of the process's (pipes, sockets, another namespace) */
};

/* A mount as the table knows it. */
struct pco_mount {
	uint64_t mnt_id;
	unsigned int dev;		/* makedev() of its st_dev */
	enum pco_fs_class class;
	char fstype[64];
	char point[1024];		/* its mount point, as the process sees it */
};

/* An empty table; 0 or -ENOMEM. */
int pco_mounts_new(struct pco_mounts **ret_ms);
void pco_mounts_free(struct pco_mounts *ms);

/*
 * The mount @mnt_id of process @pid (read from /proc/PID/mountinfo when not
 * known yet, or known for over a few seconds: ids are reused after a
 * umount).  Never NULL: an id the process does not list is PCO_FS_UNLISTED.
 */
const struct pco_mount *pco_mount_by_id(struct pco_mounts *ms, pid_t pid, uint64_t mnt_id,
					double now);

/* The same by device number (a mapping in /proc/PID/maps names its device). */
const struct pco_mount *pco_mount_by_dev(struct pco_mounts *ms, pid_t pid, unsigned int dev,
					 double now);

/*
 * Whether @m was said (left alone) already; marks it said.  One line per
 * file system, however many of its files are streamed.
 */
int pco_mount_said(struct pco_mounts *ms, const struct pco_mount *m);

/*
 * The class of a file-system type as mountinfo names it, an overlay's
 * aside (PCO_FS_LOCAL only when each of its layers lies on a local mount).
 */
enum pco_fs_class pco_fs_classify(const char *fstype);

#endif
