// SPDX-License-Identifier: MIT
/*
 * One followed descriptor: from its positions in /proc/PID/fdinfo to the
 * dropper and the flusher, acting through a read-only description of the
 * same file that the watcher opens through /proc/PID/fd once a stream is
 * acted on and closes at the look that finds the program's descriptor gone
 * (after that, for a writer's writeback: by its path, or its handle where
 * it was renamed, a look at a time).  So the watcher keeps a file system
 * busy after the program is done with it until its next look at most.
 * Nothing here touches the program's descriptor, offset, flags or the
 * file's writeback error sequence: the flusher never waits, it asks
 * cachestat(2) at each look which batches finished writeback
 * (PCL_FLUSHER_POLL).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "internal.h"
#include "policy.h"
#include "stream.h"

/* Readahead reaches this far ahead of a reader (8 MiB read_ahead_kb, doubled, twice). */
#define PCO_READAHEAD (32ull << 20)
/* Batches the flusher snapshots ahead of a writer's cursor. */
#define PCO_WRITE_AHEAD 6
/* A writer this close to the end of the file appends (one write in progress). */
#define PCO_WRITE_SLACK (8ull << 20)
/*
 * A reader's position that stood this long (and two looks) is one that does
 * not move (pread): a read(2) reader paced between the watcher's looks only
 * pauses.
 */
#define PCO_STILL 0.05
/* Looks an ended stream's cleaner may wait for writeback. */
#define PCO_DRAIN_LOOKS 400
/*
 * A cleaner starts writeback this far past what it has dropped, no further
 * in one look: catching up with what an appender wrote before attach (half a
 * GiB) is one short system call a look, not one that queues it all at once.
 */
#define PCO_CLEAN_AHEAD (PCL_FLUSHER_POLL_LAG * (uint64_t)PCL_DROP_BATCH)

void pco_stream_init(struct pco_stream *s, pid_t pid, int fd, const struct pco_fdinfo *fi,
		     const struct pco_mount *m, int foreign)
{
	struct stat st;
	char path[64];
	ssize_t n;

	*s = (struct pco_stream){ .pid = pid, .fd = fd, .info = -1, .fi = *fi, .own = -1,
				  .anchor = -1, .foreign = foreign, .seen = 1,
				  .overlay = !strcmp(m->fstype, "overlay") };
	s->first = s->last = s->raw_last = fi->pos;
	/*
	 * A reader's run begins where it is first seen: a position can be
	 * reached by a seek.  A writer's from 0: one seen late at the end of
	 * the file it is writing (restic's pack files) wrote all before it.
	 */
	if ((fi->flags & O_ACCMODE) == O_RDONLY)
		s->run_start = fi->pos;
	snprintf(path, sizeof(path), "/proc/%d/fd/%d", (int)pid, fd);
	/* Even a stat is a request to the file system's server: none unless local. */
	if (m->class != PCO_FS_LOCAL || stat(path, &st) || !S_ISREG(st.st_mode) ||
	    (fi->flags & O_DIRECT)) {
		pco_state_step(&s->state, PCO_EV_UNFIT);
		return;
	}
	s->size = st.st_size;
	n = readlink(path, s->path, sizeof(s->path) - 1);
	s->path[n > 0 ? n : 0] = 0;
}

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
 * cachestat(2) of [@off, @off + @len) of @fd (@len 0: to the end); on
 * overlayfs the overlay's own mapping is empty, and the count is taken
 * through a mapping, which reaches the real file (lib/sys.c).
 */
static int count(const struct pco_stream *s, int fd, uint64_t off, uint64_t len,
		 struct pcl_cachestat *ret)
{
	struct pcl_residency r = { .how = PCL_RES_MINCORE, .overlay = 1,
				   .page = pcl_page_size() };

	if (!s->overlay)
		return pcl_cachestat(fd, off, len, ret);
	return pcl_residency_count(&r, fd, off, len, ret);
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
	case 0xef53:		/* ext2, ext3, ext4 */
	case 0x58465342:	/* XFS */
	case 0x9123683e:	/* btrfs */
	case 0x01021994:	/* tmpfs */
	case 0xf2f52010:	/* f2fs */
		return 1;
	}
	return 0;
}

/*
 * @at (an O_PATH descriptor, closed here) opened read-only if it is the
 * stream's file, or -errno.  Checked before the open: opening a device node
 * a number was reused for could act on the device.
 */
static int reopen_checked(const struct pco_stream *s, int at)
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
static int open_own(struct pco_stream *s, int pidfd)
{
	char path[64];
	int at, own, dup;

	snprintf(path, sizeof(path), "/proc/%d/fd/%d", (int)s->pid, s->fd);
	at = open(path, O_PATH | O_CLOEXEC);
	if (at < 0)
		return -errno;
	own = reopen_checked(s, at);
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
static int open_closed(const struct pco_stream *s)
{
	char dir[sizeof(s->path)], *slash;
	int at, fd;

	if (s->foreign) {
		/* its paths are its namespace's: a walk here could end anywhere */
		at = s->anchor >= 0 ? fcntl(s->anchor, F_DUPFD_CLOEXEC, 0) : -1;
		return at < 0 ? -ESTALE : reopen_checked(s, at);
	}
	at = open(s->path, O_PATH | O_CLOEXEC);
	if (at >= 0) {
		fd = reopen_checked(s, at);
		if (fd >= 0)
			return fd;
	}
	if (s->have_handle <= 0 || s->path[0] != '/')
		return -ESTALE;
	memcpy(dir, s->path, sizeof(dir));
	slash = strrchr(dir, '/');
	slash[slash == dir] = 0;
	at = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (at < 0)
		return -errno;
	fd = open_by_handle_at(at, (struct file_handle *)s->handle, O_PATH | O_CLOEXEC);
	close(at);
	return fd < 0 ? -errno : reopen_checked(s, fd);
}

/* Note the file's handle once, for open_closed(). */
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
static int own_get(struct pco_stream *s, int pidfd)
{
	if (s->own < 0)
		s->own = open_own(s, pidfd);
	if (s->own < 0)
		return s->own;
	if (s->have_fl)
		pcl_flusher_rebind(&s->fl, s->own);
	return 0;
}

static int end_work(const struct pco_stream *s);

/*
 * A process in another mount namespace: once the stream has work for after
 * its close, an O_PATH of the file is kept to reach it then (an O_PATH's
 * close calls nothing of the file system).
 */
static void keep_anchor(struct pco_stream *s)
{
	char path[64];

	if (!s->foreign || s->anchor >= 0 || s->own < 0 || !end_work(s))
		return;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", s->own);
	s->anchor = open(path, O_PATH | O_CLOEXEC);
}

/*
 * Close our description: nothing of the file stays held (but the anchor
 * of a process in another mount namespace).
 */
static void own_put(struct pco_stream *s)
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

static int active(const struct pco_stream *s);

/*
 * The look is done.  A stream acted on keeps its description to the next
 * look: opening it afresh at every look (a path walk through /proc, a
 * check, an open and a close) was most of the watcher's looking.  It is
 * closed once the program's descriptor is gone and the end's work done,
 * so a file system is busy after the program closed its file only until
 * the next look (PCO_IDLE at most).  Others close theirs now.
 */
static void own_done(struct pco_stream *s)
{
	if (s->own >= 0 && active(s)) {
		note_handle(s);
		keep_anchor(s);
		return;
	}
	own_put(s);
}

/* Pages cached where the reader has not been: the file was cached before it. */
static int warm_ahead(const struct pco_stream *s, int fd, uint64_t pos, uint64_t size)
{
	uint64_t from = pcl_align_up(pos + PCO_READAHEAD, pcl_page_size());
	struct pcl_cachestat cs;

	if (from >= size)
		return 0;
	return count(s, fd, from, 0, &cs) || cs.nr_cache;
}

static void start_reader(struct pco_stream *s, uint64_t pos, uint64_t size)
{
	int warm = !s->keep && warm_ahead(s, s->own, pos, size);

	pco_state_step(&s->state, PCO_EV_READ_RUN);
	/*
	 * What was cached at the first sight is known page by page: all
	 * else from there on the reader brought in.  Otherwise, as follows.
	 */
	if (s->keep) {
		pcl_dropper_init_kept(&s->drop, s->own, 0, pos, s->keep);
		s->have_drop = 1;
	} else {
		s->have_drop = !pcl_dropper_init(&s->drop, s->own, 0, pos);
	}
	if (!s->have_drop)
		return;
	s->drop.measure = 1;
	/*
	 * Cold beyond the cursor: what is cached behind it since the first
	 * look the stream read itself; drop it (never what is dirty) and
	 * treat the file as cold.  Below the first position the watcher did
	 * not see pages being added: only the stretch claim()
	 * counted the program's own goes too, the rest stays.
	 */
	if (!warm) {
		s->drop.warm = 0;
		s->clean = (struct pco_cleaner){ .lo = pcl_align_down(s->first, pcl_page_size()) -
							s->own_below,
						  .hi = s->drop.dropped_to, .looks = 1 };
		if (s->clean.lo > s->clean.hi)
			s->clean.lo = s->clean.hi;
	}
	pcl_dropper_before(&s->drop, s->own, pos, 0);
}

/*
 * A writer at the end of the file appends: all it leaves behind it it wrote
 * itself, so the cleaner writes it back and drops it, with no snapshot.  The
 * flusher, whose snapshots must be taken before the writer reaches a batch,
 * is for writers inside a file; where the watcher looks too late for that,
 * the batch counts as someone else's and is kept.
 */
/*
 * Where an appender's own pages begin: 0 when the file was born after its
 * process started (it made the file), else where the watcher first saw it
 * (its position, or the file's end if that was further: a pwrite user's
 * position stays at 0): an older file (a log, a database) holds others'
 * pages, cached or dirty, below that.
 */
static int born_after(struct pco_stream *s)
{
	struct statx stx;
	char path[64];
	int ret;

	if (s->own >= 0) {
		ret = statx(s->own, "", AT_EMPTY_PATH, STATX_BTIME, &stx);
	} else {
		snprintf(path, sizeof(path), "/proc/%d/fd/%d", (int)s->pid, s->fd);
		ret = statx(AT_FDCWD, path, 0, STATX_BTIME, &stx);
	}
	if (!s->proc_start)
		s->proc_start = pco_start_time(s->pid);	/* read once: /proc/stat is long */
	return s->proc_start > 0 && !ret && (stx.stx_mask & STATX_BTIME) &&
	       stx.stx_btime.tv_sec + 1 >= s->proc_start;
}

static uint64_t own_from(struct pco_stream *s)
{
	uint64_t from = s->first > s->size ? s->first : s->size;

	return born_after(s) ? 0 : pcl_align_down(from, pcl_page_size());
}

/*
 * How far an appender's cleaner stays behind it.  A deleted file (a scratch
 * file: restic's temporary packs, an O_TMPFILE not linked yet) loses its
 * pages at its last close, dirty or not, and is often read back before: its
 * last budget's worth is left alone, and only a file that grows past that
 * is written back behind.  A file linked again is cleaned as any other.
 */
static uint64_t clean_to(const struct pco_stream *s, uint64_t pos, const struct pco_ctx *c)
{
	struct stat st;

	if (s->own >= 0 && !fstat(s->own, &st) && !st.st_nlink)
		pos = pos > c->budget ? pos - c->budget : 0;
	return pcl_align_down(pos, PCL_DROP_BATCH);
}

static void start_writer(struct pco_stream *s, uint64_t pos, uint64_t size,
			 const struct pco_ctx *c)
{
	s->runs = 1;
	if (pos >= size) {
		pco_state_step(&s->state, PCO_EV_APPEND_RUN);
		s->clean = (struct pco_cleaner){ .lo = own_from(s), .hi = clean_to(s, pos, c),
						  .wb = 1, .looks = PCO_DRAIN_LOOKS };
		if (s->clean.hi < s->clean.lo)
			s->clean.hi = s->clean.lo;
		return;
	}
	pco_state_step(&s->state, PCO_EV_WRITE_RUN);
	/* Polled, never waited on: one writer's slow device must not hold up the others' looks. */
	s->have_fl = !pcl_flusher_init(&s->fl, s->own, PCL_FLUSHER_POLL, 0, pos);
	if (s->have_fl)
		pcl_flusher_before(&s->fl, pos, PCO_WRITE_AHEAD * s->fl.batch);
}

static void activate(struct pco_stream *s, int pidfd, uint64_t pos, const struct pco_ctx *c)
{
	unsigned int acc = s->fi.flags & O_ACCMODE;
	struct pco_fdinfo now;
	struct stat st;

	if (s->own < 0)
		s->own = open_own(s, pidfd);
	if (s->own < 0 || fstat(s->own, &st)) {
		pco_state_step(&s->state, PCO_EV_REFUSED);
		return;
	}
	/*
	 * The size first, then the position: a write in progress has grown
	 * the file before it moves the position, by at most one write.
	 */
	if (acc != O_RDONLY &&
	    !(s->info >= 0 ? pco_fdinfo_pread(s->info, &now) : pco_fdinfo_read(s->pid, s->fd, &now)) &&
	    now.ino == s->fi.ino &&
	    now.pos > pos)
		pos = now.pos;
	if (s->sized && (uint64_t)st.st_size > pos)
		pos = st.st_size;	/* written where the position does not move */
	if (acc != O_RDONLY && pos + PCO_WRITE_SLACK >= (uint64_t)st.st_size)
		start_writer(s, pos, pos, c);
	else if (acc == O_WRONLY)
		start_writer(s, pos, st.st_size, c);
	else
		start_reader(s, pos, st.st_size);
	if (pco_state_reader(s->state))
		s->runs = 1;
}

/*
 * Drop [@off, @off + @len) and count what left the cache (cachestat before
 * and after): --stats says what was dropped, not what was asked.
 */
static void clean_gap(void *arg, uint64_t off, uint64_t len)
{
	struct pco_stream *s = arg;
	struct pcl_cachestat before, after;

	s->syscalls += 3;
	if (count(s, s->own, off, len, &before) || !before.nr_cache ||
	    posix_fadvise(s->own, off, len, POSIX_FADV_DONTNEED) ||
	    count(s, s->own, off, len, &after) || after.nr_cache >= before.nr_cache)
		return;
	s->dropped += (before.nr_cache - after.nr_cache) * pcl_page_size();
}

/* Drop [@off, @off + @len), but what was cached at the first sight. */
static void clean_drop(struct pco_stream *s, uint64_t off, uint64_t len)
{
	if (s->keep && !s->clean.wb)
		s->kept += pcl_extents_split(s->keep, off, len, clean_gap, s);
	else
		clean_gap(s, off, len);
}

/*
 * One look of a cleaner: batch by batch from lo, drop what is clean, keep
 * what someone dirtied (or start its writeback and wait for it, @wb).
 */
static int clean_look(struct pco_stream *s)
{
	struct pco_cleaner *c = &s->clean;
	uint64_t batch = PCL_DROP_BATCH;
	struct pcl_cachestat cs;

	if (c->wb && c->started < c->hi) {
		uint64_t from = c->started > c->lo ? c->started : c->lo;
		uint64_t to = c->hi - c->lo > PCO_CLEAN_AHEAD ? c->lo + PCO_CLEAN_AHEAD : c->hi;

		s->syscalls++;
		/* Counted once: the last pass starts again from lo. */
		if (to > from && !sync_file_range(s->own, from, to - from, SYNC_FILE_RANGE_WRITE) &&
		    to > s->flushed_to) {
			s->flushed += to - (from > s->flushed_to ? from : s->flushed_to);
			s->flushed_to = to;
		}
		if (to > c->started)
			c->started = to;
	}
	while (c->lo < c->hi) {
		uint64_t len = c->hi - c->lo < batch ? c->hi - c->lo : batch;

		s->syscalls++;
		if (count(s, s->own, c->lo, len, &cs)) {
			s->unknown = 1;	/* hidden (EPERM) or no cachestat: nothing told */
			break;
		}
		if (c->wb && (cs.nr_dirty || cs.nr_writeback))
			break;		/* its writeback is not done yet */
		if (cs.nr_dirty || cs.nr_writeback) {
			s->kept += len;
		} else if (cs.nr_cache) {
			clean_drop(s, c->lo, len);
		}
		c->lo += len;
	}
	if (c->lo < c->hi && --c->looks <= 0) {
		s->kept += c->hi - c->lo;
		c->lo = c->hi;
	}
	return c->lo < c->hi;
}

static void look_reader(struct pco_stream *s, uint64_t pos)
{
	if (!s->have_drop)
		return;
	if (pos < s->last) {
		pcl_dropper_advance(&s->drop, s->own, s->last, 0);
		pcl_dropper_reset(&s->drop, pos);
		s->seeks++;
		s->runs++;
	} else {
		pcl_dropper_advance(&s->drop, s->own, pos, 0);
	}
	pcl_dropper_before(&s->drop, s->own, pos, 0);
}

static void look_writer(struct pco_stream *s, uint64_t pos, const struct pco_ctx *c)
{
	if (s->state == PCO_APPENDER) {
		uint64_t to = pos < s->last ? 0 : clean_to(s, pos, c);

		if (pos < s->last)	/* what it wrote so far is cleaned */
			pco_state_step(&s->state, PCO_EV_WENT_BACK);
		else if (to > s->clean.hi)
			s->clean.hi = to;
		s->clean.looks = PCO_DRAIN_LOOKS;
		return;
	}
	if (!s->have_fl)
		return;
	if (pos > s->fl.cursor)
		pcl_flusher_wrote(&s->fl, s->fl.cursor, pos - s->fl.cursor);
	else if (pos < s->fl.cursor)
		s->runs++;
	else
		pcl_flusher_poll(&s->fl);	/* what finished writeback since */
	pcl_flusher_before(&s->fl, pos, PCO_WRITE_AHEAD * s->fl.batch);
}

/*
 * A writer that moves before it passed the minimum: keep a description of
 * its file, so that if it closes the file (or exits) before the next look
 * finds it past the minimum, what it appended can still be written back
 * and dropped (restic writes and closes a 16 MiB pack file in one go).
 */
static void hold_writer(struct pco_stream *s, int pidfd, uint64_t pos)
{
	struct stat st;

	if ((s->fi.flags & O_ACCMODE) == O_RDONLY || s->held)
		return;
	s->held = 1;
	if (s->own < 0)
		s->own = open_own(s, pidfd);
	if (s->own >= 0 && !fstat(s->own, &st) && pos + PCO_WRITE_SLACK >= (uint64_t)st.st_size)
		pco_state_step(&s->state, PCO_EV_AT_END);
}

/* Bytes of [@off, end of file) cached, or 0 when it cannot be told. */
static uint64_t cached_from(const struct pco_stream *s, int fd, uint64_t off)
{
	struct pcl_cachestat cs;

	return count(s, fd, off, 0, &cs) ? 0 : cs.nr_cache * pcl_page_size();
}

/*
 * A writable descriptor whose position stands while its file grows is
 * written without moving it (pwrite, one long copy_file_range or sendfile):
 * the end of the file is where its writer is.  A file older than its
 * process only once it grew by the minimum while the watcher looked: a
 * database rewrites its file in place with pread/pwrite and grows it a
 * little now and then; that is no stream, and its file's pages are not its
 * own.
 */
static uint64_t size_cursor(struct pco_stream *s, uint64_t pos, const struct pco_ctx *c)
{
	char path[64];
	struct stat st;
	int ret;

	if (s->own >= 0) {
		ret = fstat(s->own, &st);
	} else {
		snprintf(path, sizeof(path), "/proc/%d/fd/%d", (int)s->pid, s->fd);
		ret = stat(path, &st);
	}
	if (ret || (uint64_t)st.st_size <= pos || (uint64_t)st.st_size <= s->size ||
	    ((uint64_t)st.st_size < s->size + c->min_size && !born_after(s)))
		return pos;
	return st.st_size;
}

/*
 * A reader whose position stands while the file fills the cache reads
 * without moving it (pread, copy_file_range or sendfile with offsets, one
 * long call, io_uring, AIO).  Only a file that was cold but for a prefix
 * is followed that way: everything cached is then its reader's, and the
 * cursor is taken as the end of the cached prefix less readahead.  Dropping
 * a page not read yet costs a read again, never a wrong byte.
 */
static uint64_t residency_cursor(struct pco_stream *s, int pidfd, double now,
				 const struct pco_ctx *c)
{
	uint64_t cached, frontier;

	if (pco_state_candidate(s->state) &&
	    (++s->still < 2 || now - s->moved_at < PCO_STILL || s->size < c->min_size))
		return s->last;
	if (!s->c0_set) {
		s->own = open_own(s, pidfd);
		if (s->own < 0) {
			pco_state_step(&s->state, PCO_EV_REFUSED);
			return s->last;
		}
		s->c0 = cached_from(s, s->own, 0);
		s->c0_set = 1;
		return s->last;
	}
	if (s->own < 0 && (s->own = open_own(s, pidfd)) < 0)
		return s->last;
	if (pco_state_candidate(s->state)) {
		cached = cached_from(s, s->own, 0);
		if (cached < s->c0 + c->min_size)
			return s->last;
		if (cached_from(s, s->own, pcl_align_up(cached + PCO_READAHEAD, pcl_page_size()))) {
			pco_state_step(&s->state, PCO_EV_WARM);	/* cached before: hands off */
			return s->last;
		}
		pco_state_step(&s->state, PCO_EV_CACHE_RUN);
		s->runs = 1;
		/* The prefix cached before we looked is not its own: kept. */
		s->have_drop = !pcl_dropper_init(&s->drop, s->own, 0, s->c0);
		if (s->have_drop) {
			s->drop.warm = 0;
			s->drop.keep = s->keep;
			s->drop.measure = 1;
		}
	}
	frontier = s->drop.dropped_to + cached_from(s, s->own, s->drop.dropped_to);
	frontier = frontier > PCO_READAHEAD ? frontier - PCO_READAHEAD : 0;
	return frontier > s->last ? frontier : s->last;
}

/*
 * A candidate moved forward from @from to @to: a seek (random access, a
 * forward lseek) when most of what it skipped is not cached, for a reader
 * or a writer leaves its pages cached behind it.  Asked through our own
 * description, or a fresh one opened for the question.
 */
static int skipped_cold(const struct pco_stream *s, uint64_t from, uint64_t to)
{
	uint64_t lo = pcl_align_down(from, pcl_page_size()), len = pcl_align_up(to, pcl_page_size()) - lo;
	struct pcl_cachestat cs;
	char path[64];
	int fd = s->own, ret;

	if (len < 4 * pcl_page_size())
		return 0;
	if (fd < 0) {
		/* checked first, as every open: the number may name a device now */
		snprintf(path, sizeof(path), "/proc/%d/fd/%d", (int)s->pid, s->fd);
		fd = open(path, O_PATH | O_CLOEXEC);
		if (fd < 0 || (fd = reopen_checked(s, fd)) < 0)
			return 0;
	}
	ret = !count(s, fd, lo, len, &cs) && 2 * cs.nr_cache * pcl_page_size() < len;
	if (fd != s->own)
		close(fd);
	return ret;
}

/* Where the stream is: its position, or where a cursor that stands must be. */
static uint64_t cursor(struct pco_stream *s, int pidfd, const struct pco_fdinfo *fi,
		       double now, const struct pco_ctx *c)
{
	unsigned int acc = fi->flags & O_ACCMODE;
	int stands = fi->pos == s->raw_last;

	if (!stands || !s->moved_at) {
		s->still = 0;
		s->moved_at = now;
	}
	s->raw_last = fi->pos;
	if (!stands || s->state == PCO_SKIP || s->state == PCO_READER || s->state == PCO_WRITER)
		return fi->pos > s->last || s->state != PCO_RESIDENT ? fi->pos : s->last;
	if (acc != O_RDONLY) {
		uint64_t pos = size_cursor(s, fi->pos, c);

		if (pos > fi->pos && pos > s->last)
			s->sized = 1;
		if (pos > s->last)
			return pos;
		return s->sized ? s->last : fi->pos;
	}
	return residency_cursor(s, pidfd, now, c);
}

/*
 * Which pages of [@from, size) are cached at the first sight: the reader
 * will not have brought those in, whatever it does next, and they stay.
 * Where residency cannot be told, none is known (NULL).
 */
static void first_keep(struct pco_stream *s, uint64_t from)
{
	struct pcl_residency res;
	uint64_t calls = 0;

	s->keep = calloc(1, sizeof(*s->keep));
	if (!s->keep)
		return;
	pcl_residency_init(&res, s->own);
	if (pcl_extents_scan(s->keep, &res, s->own, from, s->size, &calls)) {
		free(s->keep);
		s->keep = NULL;
	}
	s->syscalls += calls + res.calls;
}

/*
 * The pages cached below the first position stay (but the stretch claimed
 * as the process's own reading): counted as kept, for they were passed and
 * not dropped.  Cached now less the claim: what the process read from
 * storage before it was seen is all the watcher can know of them.
 */
static void below_kept(struct pco_stream *s, uint64_t below)
{
	if (below > s->own_below)
		s->kept += below - s->own_below;
}

/*
 * Bytes cached in [@off, @off + @len), 0 when it cannot be told.  A count
 * walks every page cached in its range: never the whole of a large warm
 * file where a part will do.
 */
static uint64_t cached_in(const struct pco_stream *s, int fd, uint64_t off, uint64_t len)
{
	struct pcl_cachestat cs;

	if (!len)
		return 0;
	return count(s, fd, off, len, &cs) ? 0 : cs.nr_cache * pcl_page_size();
}


/*
 * What a reader's file holds cached at the first sight of the stream: where
 * its position then stands (pread, one long copy_file_range), all cached
 * beyond this prefix later is the reader's; and which pages, from its
 * position on, stay whatever it reads.  Taken at once, not once the
 * position has stood a while: by then the reader has added to it.  1 when
 * it was taken, with the bytes cached below the position in *@ret_below.
 */
static int first_sight(struct pco_stream *s, int pidfd, const struct pco_ctx *c,
		       uint64_t *ret_below)
{
	if (s->looks || s->state != PCO_CANDIDATE || (s->fi.flags & O_ACCMODE) != O_RDONLY ||
	    s->size < c->min_size)
		return 0;
	uint64_t first = pcl_align_down(s->first, pcl_page_size());

	s->own = open_own(s, pidfd);
	if (s->own < 0)
		return 0;
	first_keep(s, first);
	*ret_below = cached_in(s, s->own, 0, first);
	s->c0 = *ret_below + (s->keep ? pcl_extents_bytes(s->keep) : cached_from(s, s->own, first));
	s->c0_set = 1;
	return 1;
}

/*
 * The process read *@read_left bytes from storage that no stream accounts
 * for, readahead included: pages it brought into the cache.  A reader moves
 * through its file in order, so they lie in its readahead right from its
 * position (the extent cached from there: not kept, see below) and right
 * below its position (that much below
 * counts as its own, first come, first served: a process that read other
 * files before is counted as if it read this one, and so drops that much
 * more of this file's clean pages, never more than it read in all).  Pages
 * cached before the program came keep their place below what it read: a
 * file whose first part was cached keeps that part.  Called at the first
 * sight, once first_sight() recorded what was cached.
 */
static void claim(struct pco_stream *s, uint64_t *read_left, const struct pco_ctx *c)
{
	uint64_t first = pcl_align_down(s->first, pcl_page_size()), ahead, front, own;

	if (s->state != PCO_CANDIDATE || (s->fi.flags & O_ACCMODE) != O_RDONLY ||
	    s->size < c->min_size || !*read_left || s->own < 0)
		return;
	/*
	 * Its readahead is in the count, in flight too: what is cached ahead,
	 * as far as it read in all, is taken off.
	 */
	ahead = cached_in(s, s->own, first, first < s->size && s->size - first < *read_left ?
					 s->size - first : *read_left);
	/*
	 * The extent cached from its position is its readahead if the process
	 * read that much from storage and no longer than readahead reaches: a
	 * longer one runs into pages cached before it (a warm window right
	 * ahead), which the readahead cannot be told from: all of it is kept.
	 */
	if (s->keep) {
		front = pcl_extents_front(s->keep, first);
		if (front <= PCO_READAHEAD && front <= *read_left)
			pcl_extents_cut(s->keep, first, front);
	}
	own = *read_left > ahead ? *read_left - ahead : 0;
	s->own_below = pcl_align_down(own < first ? own : first, pcl_page_size());
	*read_left -= *read_left < ahead + s->own_below ? *read_left : ahead + s->own_below;
}

/* A stream that acts on its file at every look. */
static int active(const struct pco_stream *s)
{
	return (pco_state_reader(s->state) && s->have_drop) || pco_state_writer(s->state);
}

void pco_stream_look(struct pco_stream *s, int pidfd, const struct pco_fdinfo *fi, double now,
		     uint64_t *read_left, const struct pco_ctx *c)
{
	uint64_t pos, below;

	if (active(s) && own_get(s, pidfd) < 0) {
		s->own = -1;
		return;		/* closed or replaced since the listing */
	}
	if (first_sight(s, pidfd, c, &below)) {
		if (read_left)
			claim(s, read_left, c);
		below_kept(s, below);
	}
	pos = cursor(s, pidfd, fi, now, c);

	s->fi.flags = fi->flags;
	if (pos > s->last) {
		double dt = now - s->t_last;
		/* A cursor guessed from the size: what was there at the first look is not its. */
		uint64_t from = s->sized && s->size > s->last ? s->size : s->last;

		s->bytes += pos > from ? pos - from : 0;
		if (s->t_last > 0 && dt > 0)
			s->rate = s->rate ? 0.5 * s->rate + 0.5 * (pos - s->last) / dt :
				  (pos - s->last) / dt;
	} else if (pos < s->last) {
		s->run_start = pos;
	}
	if (pco_state_candidate(s->state) && pos > s->last && skipped_cold(s, s->last, pos))
		s->run_start = pos;	/* jumped forward: a new run begins there */
	s->t_last = now;
	s->looks++;
	if (pco_state_candidate(s->state) && pos > s->last)
		hold_writer(s, pidfd, pos);
	switch (s->state) {
	case PCO_CANDIDATE:
	case PCO_APPENDING:
		if (policy_run_reached(c->min_size, s->run_start, pos))
			activate(s, pidfd, pos, c);
		break;
	case PCO_READER:
	case PCO_RESIDENT:
		look_reader(s, pos);
		break;
	case PCO_WRITER:
	case PCO_APPENDER:
		look_writer(s, pos, c);
		break;
	default:
		break;
	}
	if (pco_state_acting(s->state) && s->clean.lo < s->clean.hi &&
	    s->own >= 0)
		clean_look(s);
	s->last = pos;
	own_done(s);
}

/*
 * Past the last look a reader read on: up to the end of the file on a cold
 * file (all cached past the cursor is its readahead), as far as the
 * snapshots taken ahead of it reach on a warm one (what they saw cached
 * stays).
 */
static uint64_t reader_end(const struct pco_stream *s, uint64_t size)
{
	uint64_t snapped = s->drop.snapped_to * s->drop.batch;

	if (s->drop.warm && snapped < size)
		size = snapped;
	return size > s->last ? size : s->last;
}

/* Work left once the program's descriptor is gone. */
static int end_work(const struct pco_stream *s)
{
	return active(s) || s->state == PCO_APPENDING;
}

int pco_stream_end(struct pco_stream *s, const struct pco_ctx *c)
{
	struct stat st;
	uint64_t size;
	int more;

	if (!end_work(s)) {
		own_put(s);
		return 0;
	}
	/* the description kept since the last look, or the file again */
	if (s->own < 0 && (s->own = open_closed(s)) < 0) {
		s->own = -1;
		return 0;
	}
	/* deleted: its pages go with our close, the last one: nothing to write back */
	if (!fstat(s->own, &st) && !st.st_nlink) {
		own_put(s);
		return 0;
	}
	if (s->have_fl)
		pcl_flusher_rebind(&s->fl, s->own);
	size = fstat(s->own, &st) ? s->last : (uint64_t)st.st_size;
	if (s->state == PCO_APPENDING && size >= c->min_size) {
		/* Closed between two looks: it appended all of it. */
		pco_state_step(&s->state, PCO_EV_CLOSED);
		s->runs = 1;
		s->bytes = size;
		s->clean = (struct pco_cleaner){ .lo = own_from(s), .wb = 1 };
	}
	if (pco_state_reader(s->state) && s->have_drop) {
		pcl_dropper_advance(&s->drop, s->own, s->cut ? s->last : reader_end(s, size), 1);
	} else if (s->state == PCO_APPENDER) {
		/*
		 * Once more over all it appended: a drop while pages were still
		 * being added (or held in a CPU's LRU batch) left some behind.
		 */
		s->clean.lo = own_from(s);
		s->clean.started = 0;
		if (pcl_align_up(size, pcl_page_size()) > s->clean.hi)
			s->clean.hi = pcl_align_up(size, pcl_page_size());
		s->clean.looks = PCO_DRAIN_LOOKS;
	} else if (s->state == PCO_WRITER && s->have_fl) {
		if (size > s->fl.cursor && s->fl.cursor >= s->last)
			pcl_flusher_wrote(&s->fl, s->fl.cursor, size - s->fl.cursor);
		pcl_flusher_finish(&s->fl);
	}
	more = s->clean.lo < s->clean.hi ? clean_look(s) : 0;
	own_put(s);
	return more;
}

int pco_stream_drain(struct pco_stream *s)
{
	int more;

	if (s->clean.lo >= s->clean.hi || (s->own = open_closed(s)) < 0) {
		s->own = -1;
		return 0;
	}
	more = clean_look(s);
	own_put(s);
	return more;
}

/*
 * A writer's dropped bytes, or that they cannot be told: where the kernel
 * hides residency nothing tells the writer's pages from others', and what
 * left the cache is not counted.
 */
static const char *writer_dropped(const struct pco_stream *s, char *buf, size_t size)
{
	if (s->unknown || (s->have_fl && (s->fl.res.how == PCL_RES_UNKNOWN || s->fl.bytes_unknown)))
		return "(residency unknown)";
	snprintf(buf, size, "%" PRIu64, s->fl.bytes_dropped + s->dropped);
	return buf;
}

static size_t reader_line(const struct pco_stream *s, char *line, size_t size)
{
	char mode[64], dropped[48];

	snprintf(mode, sizeof(mode), "dropbehind (outside, pid %d)", (int)s->pid);
	snprintf(dropped, sizeof(dropped), "%" PRIu64 "%s", s->drop.bytes_evicted + s->dropped,
		 s->drop.bytes_unknown ? " (residency unknown)" : "");
	return policy_read_line(line, size, &(struct policy_read_stats){
		.path = s->path, .bytes = s->bytes, .runs = s->runs, .seeks = s->seeks,
		.mode = mode, .uncached = 0, .dropped = dropped,
		.kept = s->drop.bytes_kept + s->kept, .syscalls = s->drop.syscalls + s->syscalls });
}

static size_t writer_line(const struct pco_stream *s, char *line, size_t size)
{
	char mode[64], early[48], num[32];

	snprintf(mode, sizeof(mode), "writebehind (outside, pid %d)", (int)s->pid);
	snprintf(early, sizeof(early), "%" PRIu64 " bytes written back early",
		 s->fl.bytes_flushed + s->flushed);
	return policy_write_line(line, size, &(struct policy_write_stats){
		.path = s->path, .bytes = s->bytes, .runs = s->runs, .mode = mode,
		.early = early, .dropped = writer_dropped(s, num, sizeof(num)),
		.kept = s->fl.bytes_kept + s->kept, .errors = 0,
		.syscalls = s->fl.syscalls + s->syscalls });
}

static void stats_line(const struct pco_stream *s, const struct pco_ctx *c)
{
	char line[600];
	size_t n = 0;

	if (pco_state_reader(s->state) && s->have_drop)
		n = reader_line(s, line, sizeof(line));
	else if (pco_state_writer(s->state))
		n = writer_line(s, line, sizeof(line));
	if (n && write(c->stats_fd, line, n) < 0)
		return;
}

void pco_stream_yield(struct pco_stream *s, const struct pco_ctx *c)
{
	if (!pco_state_acting(s->state))
		return;
	pco_stream_release(s, c);	/* its line: what it did until now */
	pco_state_step(&s->state, PCO_EV_HANDOFF);
}

void pco_stream_release(struct pco_stream *s, const struct pco_ctx *c)
{
	if (c->stats_fd >= 0)
		stats_line(s, c);
	if (s->have_drop)
		pcl_dropper_release(&s->drop);
	if (s->have_fl)
		pcl_flusher_release(&s->fl);
	s->have_drop = s->have_fl = 0;
	own_put(s);
	if (s->info >= 0)
		close(s->info);
	s->info = -1;
	if (s->anchor >= 0)
		close(s->anchor);
	s->anchor = -1;
	if (s->keep)
		pcl_extents_release(s->keep);
	free(s->keep);
	s->keep = NULL;
}

double pco_stream_interval(const struct pco_stream *s, const struct pco_ctx *c)
{
	uint64_t hold, room;

	if (pco_state_candidate(s->state) && s->looks < 2)
		return 0.002;	/* seen once: its rate from a look soon */
	if (s->state == PCO_SKIP || s->rate <= 0)
		return 1e9;
	hold = pco_state_writer(s->state) ? (PCL_FLUSHER_INFLIGHT + 2) * (uint64_t)PCL_DROP_BATCH :
	       2 * (uint64_t)PCL_DROP_BATCH;
	room = c->budget > hold + PCL_DROP_BATCH ? c->budget - hold : PCL_DROP_BATCH;
	if (pco_state_candidate(s->state))
		room = c->min_size > s->last - s->run_start ?
		       c->min_size - (s->last - s->run_start) + room : room;
	return room / s->rate;
}
