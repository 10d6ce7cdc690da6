// SPDX-License-Identifier: MIT
/*
 * Our own read-only description of a followed stream's file: opened through
 * /proc/PID/fd once checked (never a device a number was reused for), kept
 * across looks while the stream is acted on, closed at the look that finds
 * the program's descriptor gone, and reached again after that by path,
 * handle or anchor for the work left at the end.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <unistd.h>
#include <linux/openat2.h>

#include "internal.h"
#include "stream-parts.h"
#include "fsmagic.h"

/*
 * @fd is a regular file, the one fdinfo named (its mount and inode): the
 * number was not reused meanwhile for another file, a device or a pipe.
 * Compared as fdinfo shows both, ours too: a stacking file system
 * (overlayfs) reports the real file's inode number to stat(2) but its own
 * in fdinfo, and the two never matched (an overlay's files were never
 * followed).
 */
static int same_file(const struct pco_stream *s, int fd)
{
	struct pco_fdinfo mine;
	struct stat st;

	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || pco_fdinfo_read(getpid(), fd, &mine))
		return 0;
	return mine.ino == s->fi.ino && mine.mnt_id == s->fi.mnt_id;
}

/*
 * Closing a pidfd_getfd(2) duplicate runs the file system's ->flush on the
 * program's own description: NFS writes back and waits, FUSE sends FLUSH,
 * CIFS, Ceph, orangefs, AFS and ecryptfs (the lower file's) do work too.
 * Only the local file systems known to have no ->flush for regular files
 * are closed on; anywhere else the stream is left alone.
 */
static int close_is_quiet(int fd)
{
	struct statfs sf;

	if (fstatfs(fd, &sf))
		return 0;
	switch ((unsigned long)sf.f_type) {
	case EXT4_SUPER_MAGIC:	/* ext2, ext3, ext4 */
	case XFS_SUPER_MAGIC:
	case BTRFS_SUPER_MAGIC:
	case TMPFS_MAGIC:
	case F2FS_SUPER_MAGIC:
		return 1;
	}
	return 0;
}

/*
 * @at (an O_PATH descriptor, closed here) opened read-only if it is the
 * stream's file, or -errno.  Checked before the open: opening a device node
 * a number was reused for could act on the device.
 */
int pco_own_reopen(const struct pco_stream *s, int at)
{
	char path[64];
	int own;

	if (!same_file(s, at)) {
		close(at);
		return -ESTALE;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", at);
	own = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (own < 0)
		own = -errno;
	close(at);
	return own;
}

/*
 * Our own read-only description of the file behind @s->fd, or -errno: a
 * fresh open of /proc/PID/fd/N, through an O_PATH descriptor checked first.
 * Where the open is refused (the file's mode), the program's description
 * itself, duplicated, on file systems whose close does nothing to it;
 * elsewhere the stream is left alone.
 */
int pco_own_open(struct pco_stream *s, int pidfd)
{
	char path[64];
	int at, own, dup;

	snprintf(path, sizeof(path), "/proc/%d/fd/%d", (int)s->pid, s->fd);
	at = open(path, O_PATH | O_CLOEXEC);
	if (at < 0)
		return -errno;
	own = pco_own_reopen(s, at);
	if (own >= 0 || (own != -EACCES && own != -EPERM))
		return own;
	dup = pco_pidfd_getfd(pidfd, s->fd);
	if (dup < 0)
		return dup;
	if (!same_file(s, dup) || !close_is_quiet(dup)) {
		close(dup);
		return -EACCES;
	}
	return dup;
}

/*
 * The file again once the program closed it (a reader's tail, a writer's
 * writeback to wait for): by the path it had, or by its handle through its
 * old folder where it was renamed since (restic renames what it wrote).
 * -errno where neither names the same file on the same mount any more
 * (deleted, unmounted).
 */
int pco_own_closed(const struct pco_stream *s)
{
	struct open_how how = { .flags = O_PATH | O_CLOEXEC,
				.resolve = RESOLVE_NO_XDEV | RESOLVE_NO_SYMLINKS |
					   RESOLVE_NO_MAGICLINKS | RESOLVE_BENEATH };
	const char *rel = s->path + strlen(s->mnt_point);
	int mnt, at;

	if (s->foreign) {
		/* its paths are its namespace's: a walk here could end anywhere */
		at = s->anchor >= 0 ? fcntl(s->anchor, F_DUPFD_CLOEXEC, 0) : -1;
		return at < 0 ? -ESTALE : pco_own_reopen(s, at);
	}
	if (!s->mnt_point[0])
		return -ESTALE;
	/*
	 * From its mount's point, never across another mount or a link: a
	 * user who mounted a FUSE file system or put a symbolic link on the
	 * old path since cannot make a lookup of ours wait on their server.
	 */
	mnt = open(s->mnt_point, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (mnt < 0)
		return -errno;
	while (*rel == '/')
		rel++;
	at = syscall(SYS_openat2, mnt, rel, &how, sizeof(how));
	if (at < 0 && s->have_handle > 0)
		at = open_by_handle_at(mnt, (struct file_handle *)s->handle, O_PATH | O_CLOEXEC);
	close(mnt);
	return at < 0 ? -ESTALE : pco_own_reopen(s, at);
}

/* Note the file's handle once, for pco_own_closed(). */
static void note_handle(struct pco_stream *s)
{
	struct file_handle *h = (struct file_handle *)s->handle;
	int mnt;

	if (s->have_handle)
		return;
	h->handle_bytes = MAX_HANDLE_SZ;
	s->have_handle = name_to_handle_at(s->own, "", h, &mnt, AT_EMPTY_PATH) ? -1 : 1;
}

/* Our description for this look; 0 or -errno (closed or replaced meanwhile). */
int pco_own_get(struct pco_stream *s, int pidfd)
{
	if (s->own < 0)
		s->own = pco_own_open(s, pidfd);
	if (s->own < 0)
		return s->own;
	if (s->have_fl)
		pcl_flusher_rebind(&s->fl, s->own);
	return 0;
}

/*
 * A process in another mount namespace: once the stream has work for after
 * its close, an O_PATH of the file is kept to reach it then (an O_PATH's
 * close calls nothing of the file system).
 */
static void keep_anchor(struct pco_stream *s)
{
	char path[64];

	if (!s->foreign || s->anchor >= 0 || s->own < 0 || !pco_stream_end_work(s))
		return;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", s->own);
	s->anchor = open(path, O_PATH | O_CLOEXEC);
}

/*
 * Close our description: nothing of the file stays held (but the anchor
 * of a process in another mount namespace).
 */
void pco_own_put(struct pco_stream *s)
{
	if (s->have_fl)
		pcl_flusher_rebind(&s->fl, -1);
	if (s->own >= 0) {
		note_handle(s);
		keep_anchor(s);
		close(s->own);
	}
	s->own = -1;
}

/*
 * The look is done.  A stream acted on keeps its description to the next
 * look: opening it afresh at every look (a path walk through /proc, a
 * check, an open and a close) was most of the watcher's looking.  It is
 * closed once the program's descriptor is gone and the end's work done,
 * so a file system is busy after the program closed its file only until
 * the next look (PCO_IDLE at most).  Others close theirs now.
 */
void pco_own_done(struct pco_stream *s)
{
	if (s->own >= 0 && pco_stream_active(s)) {
		note_handle(s);
		keep_anchor(s);
		return;
	}
	pco_own_put(s);
}
