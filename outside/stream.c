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
 * (PCL_FLUSHER_POLL).  Every change of its state is an event of state.c's;
 * our description, the cleaner and the --stats line are stream-own.c's,
 * stream-clean.c's and stream-stats.c's.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"
#include "policy.h"
#include "stream-parts.h"

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
	n = strlen(m->point);
	if ((size_t)n < sizeof(s->mnt_point) && !strncmp(s->path, m->point, n) &&
	    (n == 1 || s->path[n] == '/'))
		memcpy(s->mnt_point, m->point, n + 1);
}

/* Pages cached where the reader has not been: the file was cached before it. */
static int warm_ahead(const struct pco_stream *s, int fd, uint64_t pos, uint64_t size)
{
	uint64_t from = pcl_align_up(pos + PCO_READAHEAD, pcl_page_size());
	struct pcl_cachestat cs;

	if (from >= size)
		return 0;
	return pco_stream_count(s, fd, from, 0, &cs) || cs.nr_cache;
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

static void start_writer(struct pco_stream *s, uint64_t pos, uint64_t size,
			 const struct pco_ctx *c)
{
	s->runs = 1;
	if (pos >= size) {
		pco_state_step(&s->state, PCO_EV_APPEND_RUN);
		s->clean = (struct pco_cleaner){ .lo = own_from(s), .hi = pco_clean_to(s, pos, c),
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
		s->own = pco_own_open(s, pidfd);
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
		uint64_t to = pos < s->last ? 0 : pco_clean_to(s, pos, c);

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
		s->own = pco_own_open(s, pidfd);
	if (s->own >= 0 && !fstat(s->own, &st) && pos + PCO_WRITE_SLACK >= (uint64_t)st.st_size)
		pco_state_step(&s->state, PCO_EV_AT_END);
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
		s->own = pco_own_open(s, pidfd);
		if (s->own < 0) {
			pco_state_step(&s->state, PCO_EV_REFUSED);
			return s->last;
		}
		s->c0 = pco_cached_from(s, s->own, 0);
		s->c0_set = 1;
		return s->last;
	}
	if (s->own < 0 && (s->own = pco_own_open(s, pidfd)) < 0)
		return s->last;
	if (pco_state_candidate(s->state)) {
		cached = pco_cached_from(s, s->own, 0);
		if (cached < s->c0 + c->min_size)
			return s->last;
		if (pco_cached_from(s, s->own, pcl_align_up(cached + PCO_READAHEAD, pcl_page_size()))) {
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
	frontier = s->drop.dropped_to + pco_cached_from(s, s->own, s->drop.dropped_to);
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
		if (fd < 0 || (fd = pco_own_reopen(s, fd)) < 0)
			return 0;
	}
	ret = !pco_stream_count(s, fd, lo, len, &cs) && 2 * cs.nr_cache * pcl_page_size() < len;
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

	s->own = pco_own_open(s, pidfd);
	if (s->own < 0)
		return 0;
	first_keep(s, first);
	*ret_below = pco_cached_in(s, s->own, 0, first);
	s->c0 = *ret_below + (s->keep ? pcl_extents_bytes(s->keep) : pco_cached_from(s, s->own, first));
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
	ahead = pco_cached_in(s, s->own, first, first < s->size && s->size - first < *read_left ?
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

void pco_stream_look(struct pco_stream *s, int pidfd, const struct pco_fdinfo *fi, double now,
		     uint64_t *read_left, const struct pco_ctx *c)
{
	uint64_t pos, below;

	if (pco_stream_active(s) && pco_own_get(s, pidfd) < 0) {
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
		pco_clean_look(s);
	s->last = pos;
	pco_own_done(s);
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

int pco_stream_end(struct pco_stream *s, const struct pco_ctx *c)
{
	struct stat st;
	uint64_t size;
	int more;

	if (!pco_stream_end_work(s)) {
		pco_own_put(s);
		return 0;
	}
	/* the description kept since the last look, or the file again */
	if (s->own < 0 && (s->own = pco_own_closed(s)) < 0) {
		s->own = -1;
		return 0;
	}
	/* deleted: its pages go with our close, the last one: nothing to write back */
	if (!fstat(s->own, &st) && !st.st_nlink) {
		pco_own_put(s);
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
	more = s->clean.lo < s->clean.hi ? pco_clean_look(s) : 0;
	pco_own_put(s);
	return more;
}

int pco_stream_drain(struct pco_stream *s)
{
	int more;

	if (s->clean.lo >= s->clean.hi || (s->own = pco_own_closed(s)) < 0) {
		s->own = -1;
		return 0;
	}
	more = pco_clean_look(s);
	pco_own_put(s);
	return more;
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
		pco_stream_stats(s, c);
	if (s->have_drop)
		pcl_dropper_release(&s->drop);
	if (s->have_fl)
		pcl_flusher_release(&s->fl);
	s->have_drop = s->have_fl = 0;
	pco_own_put(s);
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
