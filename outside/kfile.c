// SPDX-License-Identifier: MIT
/*
 * One process's file as the kernel's view sees it: the pages it added, and
 * the dropping behind them.  A way to the file is found once its runs pass
 * the minimum: a descriptor of the process's on the same inode, else a
 * mapping of it; either is reopened read-only through an O_PATH checked
 * first (the inode, a regular file), and only on a local file system, whose
 * mount is told from /proc before anything of the file is touched (nothing
 * of a FUSE or network file).  Pages are dropped oldest first, as ranges
 * merged from the pieces: counted with cachestat(2) before and after, dirty
 * ones written back (SYNC_FILE_RANGE_WRITE only: nothing waits, no error of
 * the program's is consumed) and dropped at a later tick, mapped ones paged
 * out of the process's own mappings with process_madvise(2).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/uio.h>
#include <unistd.h>

#include "internal.h"
#include "kfile.h"

#ifndef SYS_process_madvise
#define SYS_process_madvise 440
#endif
#ifndef MADV_PAGEOUT
#define MADV_PAGEOUT 21
#endif

/* Runs at least this long (pages) are a stream's, not scattered reads. */
#define PCO_KF_SEQ_RUN 32
/* Pieces looked at in one tick, and the most a file keeps. */
#define PCO_KF_BATCH 512
#define PCO_KF_MAX_PIECES 65536
/*
 * Ticks the oldest pages may stay dirty or under writeback before giving up;
 * once its process is gone, fewer: our description keeps the file system
 * busy meanwhile.
 */
#define PCO_KF_TRIES 200
#define PCO_KF_TRIES_ENDED 30
/* Pages it adds again in what was dropped: a working set, left alone. */
#define PCO_KF_REFAULTS 256
#define PCO_KF_DROPS 16
/* Idle this long (s): all of it is dropped, our description closed. */
#define PCO_KF_IDLE 1.0
/* A way to a file not found is sought again this often (s). */
#define PCO_KF_SEEK 0.5
/* An idle file with nothing held is forgotten after this long (s). */
#define PCO_KF_FORGET 10.0
#define PCO_KF_MAX_FDS 65536

static struct pco_kpiece *piece(struct pco_kfile *kf, unsigned int i)
{
	return &kf->pieces[(kf->head + i) % kf->cap];
}

static int grow(struct pco_kfile *kf)
{
	unsigned int cap = kf->cap ? 2 * kf->cap : 16;
	struct pco_kpiece *p;

	if (kf->cap >= PCO_KF_MAX_PIECES || !(p = malloc(cap * sizeof(*p))))
		return -ENOMEM;
	for (unsigned int i = 0; i < kf->n; i++)
		p[i] = *piece(kf, i);
	free(kf->pieces);
	kf->pieces = p;
	kf->cap = cap;
	kf->head = 0;
	return 0;
}

static void pop(struct pco_kfile *kf)
{
	struct pco_kpiece *p = piece(kf, 0);

	kf->held -= p->hi - p->lo;
	kf->head = (kf->head + 1) % kf->cap;
	kf->n--;
}

/* Whether someone else cares for its pages, or no one may. */
static int hands_off(const struct pco_kfile *kf)
{
	return kf->state == PCO_KF_ALONE || kf->self || kf->working ||
	       (kf->deferred && !kf->nmaps);
}

/* Note that [@lo, @hi) was dropped, for refaults(). */
static void note_dropped(struct pco_kfile *kf, uint64_t lo, uint64_t hi)
{
	struct pco_kpiece *last = kf->ndrops ? &kf->drops[(kf->ndrops - 1) % PCO_KF_DROPS] : NULL;

	if (last && last->hi == lo) {
		last->hi = hi;
		return;
	}
	kf->drops[kf->ndrops++ % PCO_KF_DROPS] = (struct pco_kpiece){ lo, hi };
}

/*
 * Pages it adds again where we dropped: it reads them again (random access
 * through a mapping whose read-around looked like a run, a working set).
 * Past PCO_KF_REFAULTS and an eighth of what was dropped, hands off.
 */
static void refaults(struct pco_kfile *kf, uint64_t lo, uint64_t hi)
{
	unsigned int n = kf->ndrops < PCO_KF_DROPS ? kf->ndrops : PCO_KF_DROPS;

	for (unsigned int i = 0; i < n; i++) {
		uint64_t a = lo > kf->drops[i].lo ? lo : kf->drops[i].lo;
		uint64_t b = hi < kf->drops[i].hi ? hi : kf->drops[i].hi;

		if (a < b)
			kf->refaulted += b - a;
	}
	if (kf->refaulted >= PCO_KF_REFAULTS && 8 * kf->refaulted >= kf->dropped)
		kf->working = 1;
}

void pco_kfile_add(struct pco_kfile *kf, uint64_t lo, uint64_t hi, uint64_t run, double now)
{
	struct pco_kpiece *tail = kf->n ? piece(kf, kf->n - 1) : NULL;

	if (!kf->added || lo < kf->lo_min)
		kf->lo_min = lo;
	if (hi > kf->hi_max)
		kf->hi_max = hi;
	kf->added += hi - lo;
	kf->fresh += hi - lo;
	/*
	 * A stream's run goes on from record to record; one fault's read-around
	 * (32 pages, or the whole read-ahead window) is a record of its own.
	 */
	if (run > hi - lo && run >= PCO_KF_SEQ_RUN)
		kf->seq += hi - lo;
	refaults(kf, lo, hi);
	if (!kf->rate_at)
		kf->rate_at = now;
	kf->last_add = now;
	if (hands_off(kf))
		return;		/* counted, not kept: never acted on */
	kf->held += hi - lo;
	if (tail && tail->hi == lo) {
		tail->hi = hi;
		return;
	}
	if (kf->n == kf->cap && grow(kf))
		pop(kf);	/* the oldest is forgotten: never dropped by us */
	*piece(kf, kf->n++) = (struct pco_kpiece){ lo, hi };
}

static int64_t count(struct pco_kfile *kf, uint64_t lo, uint64_t hi, uint64_t *ret_busy);

/* A CLAIM_STEP-page step is claimed only when all of it is cached. */
#define PCO_KF_CLAIM_STEP 256

void pco_kfile_claim(struct pco_kfile *kf, uint64_t pages)
{
	uint64_t lo = kf->lo_min, busy;

	if (kf->fd < 0 || kf->claimed)
		return;
	while (pages >= PCO_KF_CLAIM_STEP && lo >= PCO_KF_CLAIM_STEP) {
		if (count(kf, lo - PCO_KF_CLAIM_STEP, lo, &busy) != PCO_KF_CLAIM_STEP)
			break;
		lo -= PCO_KF_CLAIM_STEP;
		pages -= PCO_KF_CLAIM_STEP;
	}
	if (lo == kf->lo_min || (kf->n == kf->cap && grow(kf)))
		return;
	kf->head = (kf->head + kf->cap - 1) % kf->cap;	/* the oldest of all */
	kf->n++;
	*piece(kf, 0) = (struct pco_kpiece){ lo, kf->lo_min };
	kf->claimed = kf->lo_min - lo;
	kf->held += kf->claimed;
	kf->added += kf->claimed;
	kf->lo_min = lo;
}

/* Whether mount @m may be touched; says once why not. */
static int local(const struct pco_kfile *kf, const struct pco_kview_env *env,
		 const struct pco_mount *m)
{
	if (!m || m->class == PCO_FS_UNLISTED)
		return 0;
	if (m->class == PCO_FS_LOCAL)
		return 1;
	env->served(env->arg, m);
	return 0;
}

/*
 * The O_PATH @at (closed here) reopened read-only if it is @kf's file, or
 * -errno.  Which mount it lies on is read from its fdinfo before anything
 * asks the file system: the descriptor or mapping may have been replaced
 * since it was looked at, by a file a user's server answers for.  *@ret_dev:
 * its st_dev (a btrfs subvolume's own).
 */
static int reopen(struct pco_kfile *kf, const struct pco_kview_env *env, int at, double now,
		  dev_t *ret_dev)
{
	const struct pco_mount *m;
	struct pco_fdinfo fi;
	char path[64];
	struct stat st;
	int fd = -ESTALE;

	if (pco_fdinfo_read(getpid(), at, &fi) || fi.ino != kf->ino)
		goto out;
	m = pco_mount_by_id(env->mounts, kf->pid, fi.mnt_id, now);
	if (!local(kf, env, m)) {
		fd = -EPERM;
		goto out;
	}
	if (fstat(at, &st) || !S_ISREG(st.st_mode) || st.st_ino != kf->ino ||
	    (st.st_dev != kf->dev && strcmp(m->fstype, "btrfs")))
		goto out;
	*ret_dev = st.st_dev;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", at);
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		fd = -errno;
out:
	close(at);
	return fd;
}

/*
 * A descriptor of @kf's process on its file, reopened; -errno when none.
 * On btrfs one superblock holds every subvolume and snapshot, each with
 * inode numbers of its own: two of the process's files can have the
 * kernel's (device, inode) of one, and then neither is touched.
 */
static int by_descriptor(struct pco_kfile *kf, const struct pco_kview_env *env, double now)
{
	static int fds[PCO_KF_MAX_FDS];
	int n, at, fd = -ENOENT, other;
	struct pco_fdinfo fi;
	dev_t dev = 0, d;
	char path[64];

	n = pco_fds(kf->pid, fds, PCO_KF_MAX_FDS);
	for (int i = 0; i < n; i++) {
		const struct pco_mount *m;

		if (pco_fdinfo_read(kf->pid, fds[i], &fi) || fi.ino != kf->ino)
			continue;
		m = pco_mount_by_id(env->mounts, kf->pid, fi.mnt_id, now);
		if (!m || (m->dev != kf->dev && strcmp(m->fstype, "btrfs")))
			continue;
		if (!local(kf, env, m)) {
			if (fd >= 0)
				close(fd);
			return -EPERM;
		}
		snprintf(path, sizeof(path), "/proc/%d/fd/%d", (int)kf->pid, fds[i]);
		at = open(path, O_PATH | O_CLOEXEC);
		other = at < 0 ? -errno : reopen(kf, env, at, now, &d);
		if (other < 0)
			continue;
		if (fd < 0) {
			fd = other;
			dev = d;
			kf->fdnum = fds[i];
			if (strcmp(m->fstype, "btrfs"))
				return fd;
			continue;
		}
		close(other);
		if (d != dev) {
			close(fd);
			return -EPERM;	/* two files, one key: neither */
		}
	}
	return fd;
}

/* A mapping of @kf's file by its process, reopened; -errno when none. */
static int by_mapping(struct pco_kfile *kf, const struct pco_kview_env *env, double now)
{
	char path[96];
	dev_t dev;
	int at;

	kf->nmaps = pco_maps_of(kf->pid, kf->dev, kf->ino, kf->maps, PCO_KF_MAPS);
	if (kf->nmaps <= 0) {
		kf->nmaps = 0;
		return -ENOENT;
	}
	snprintf(path, sizeof(path), "/proc/%d/map_files/%" PRIx64 "-%" PRIx64, (int)kf->pid,
		 kf->maps[0].start, kf->maps[0].end);
	at = open(path, O_PATH | O_CLOEXEC);
	return at < 0 ? -errno : reopen(kf, env, at, now, &dev);
}

static void name_it(struct pco_kfile *kf)
{
	char link[64];
	ssize_t n;

	if (kf->path[0])
		return;
	snprintf(link, sizeof(link), "/proc/self/fd/%d", kf->fd);
	n = readlink(link, kf->path, sizeof(kf->path) - 1);
	if (n < 0)
		snprintf(kf->path, sizeof(kf->path), "inode %" PRIu64, kf->ino);
	else
		kf->path[n] = 0;
}

/* Whether its newest pieces hold dirty pages: it writes the file. */
static void note_writer(struct pco_kfile *kf)
{
	struct pcl_cachestat cs;
	struct pco_kpiece *p;
	uint64_t pg = pcl_page_size();

	if (kf->writer || !kf->n)
		return;
	p = piece(kf, kf->n - 1);
	kf->syscalls++;
	kf->writer = !pcl_cachestat(kf->fd, p->lo * pg, (p->hi - p->lo) * pg, &cs) &&
		     cs.nr_dirty + cs.nr_writeback > 0;
}

static void forget_pieces(struct pco_kfile *kf);

/* Find a way to the file: ACTING, NOFD (again later) or ALONE. */
static void resolve(struct pco_kfile *kf, const struct pco_kview_env *env, double now)
{
	int pidfd = env->pidfd(env->arg, kf->pid, kf->seen), fd;

	kf->looked = now;
	if (pidfd < 0) {
		kf->state = PCO_KF_ALONE;
		return;
	}
	fd = by_descriptor(kf, env, now);
	if (fd == -ENOENT)
		fd = by_mapping(kf, env, now);
	else if (fd >= 0)
		kf->nmaps = pco_maps_of(kf->pid, kf->dev, kf->ino, kf->maps, PCO_KF_MAPS);
	if (kf->nmaps < 0)
		kf->nmaps = 0;
	if (fd >= 0 && pco_pidfd_alive(pidfd)) {
		close(fd);	/* exited: the pid may name another process now */
		fd = -ESRCH;
	}
	if (fd >= 0) {
		kf->fd = fd;
		kf->seek = 0;
		kf->state = PCO_KF_ACTING;
		name_it(kf);
		note_writer(kf);
		return;
	}
	kf->state = fd == -ENOENT ? PCO_KF_NOFD : PCO_KF_ALONE;
	/* not found: looked for less and less often (0.5 s, 1 s... 8 s) */
	kf->seek = kf->seek < PCO_KF_SEEK ? PCO_KF_SEEK : kf->seek < 8 ? 2 * kf->seek : 8;
	if (kf->state == PCO_KF_ALONE)
		forget_pieces(kf);
}

/* What it holds is no one's to drop now (left alone). */
static void forget_pieces(struct pco_kfile *kf)
{
	while (kf->n)
		pop(kf);
}

/* Page out [@lo, @hi) of the process's own mappings of the file. */
static void page_out(struct pco_kfile *kf, const struct pco_kview_env *env, uint64_t lo,
		     uint64_t hi)
{
	uint64_t pg = pcl_page_size(), off = lo * pg, end = hi * pg;
	struct iovec iov[PCO_KF_MAPS];
	int n = 0, pidfd;

	for (int i = 0; i < kf->nmaps; i++) {
		const struct pco_map *m = &kf->maps[i];
		uint64_t a = off > m->off ? off : m->off;
		uint64_t b = end < m->off + (m->end - m->start) ? end : m->off + (m->end - m->start);

		if (a < b)
			iov[n++] = (struct iovec){ (void *)(uintptr_t)(m->start + (a - m->off)),
						   b - a };
	}
	pidfd = n ? env->pidfd(env->arg, kf->pid, kf->seen) : -1;
	if (pidfd < 0)
		return;
	syscall(SYS_process_madvise, pidfd, iov, (size_t)n, MADV_PAGEOUT, 0u);
	kf->syscalls++;
}

/* Pages of [@lo, @hi) cached (dirty or under writeback in *@ret_busy); -1 unknown. */
static int64_t count(struct pco_kfile *kf, uint64_t lo, uint64_t hi, uint64_t *ret_busy)
{
	struct pcl_cachestat cs;
	uint64_t pg = pcl_page_size();

	kf->syscalls++;
	if (pcl_cachestat(kf->fd, lo * pg, (hi - lo) * pg, &cs)) {
		kf->unknown = 1;
		*ret_busy = 0;
		return -1;
	}
	*ret_busy = cs.nr_dirty + cs.nr_writeback;
	return (int64_t)cs.nr_cache;
}

enum { RANGE_DONE, RANGE_BUSY };

/* A scratch file no name links any more (restic's packs, an O_TMPFILE). */
static int deleted(struct pco_kfile *kf)
{
	struct stat st;

	kf->syscalls++;
	return !fstat(kf->fd, &st) && !st.st_nlink;
}

/*
 * Drop [@lo, @hi), pages this process added: write back what is dirty, drop
 * what is clean, page out what its mappings hold.  RANGE_BUSY while dirty
 * or writeback pages are left (dropped at a later tick); when done,
 * *@ret_left: its pages still cached.
 */
static int drop_range(struct pco_kfile *kf, const struct pco_kview_env *env, uint64_t lo,
		      uint64_t hi, uint64_t *ret_left)
{
	uint64_t pg = pcl_page_size(), busy;
	int64_t before = count(kf, lo, hi, &busy), after;

	*ret_left = 0;
	if (before == 0)
		return RANGE_DONE;	/* gone already (the shim, the kernel) */
	if (busy) {
		sync_file_range(kf->fd, lo * pg, (hi - lo) * pg, SYNC_FILE_RANGE_WRITE);
		kf->syscalls++;
	}
	posix_fadvise(kf->fd, lo * pg, (hi - lo) * pg, POSIX_FADV_DONTNEED);
	kf->syscalls++;
	after = count(kf, lo, hi, &busy);
	if (after > 0 && !busy && kf->nmaps && !kf->ended) {
		page_out(kf, env, lo, hi);
		posix_fadvise(kf->fd, lo * pg, (hi - lo) * pg, POSIX_FADV_DONTNEED);
		kf->syscalls++;
		after = count(kf, lo, hi, &busy);
	}
	if (before < 0 || after < 0)
		return RANGE_DONE;	/* unknown: dropped once, not counted */
	if (before > after)
		kf->dropped += (uint64_t)(before - after);
	note_dropped(kf, lo, hi);
	if (busy && kf->tries < (kf->ended ? PCO_KF_TRIES_ENDED : PCO_KF_TRIES))
		return RANGE_BUSY;
	*ret_left = (uint64_t)after;
	return RANGE_DONE;
}

static int cmp_piece(const void *a, const void *b)
{
	const struct pco_kpiece *x = a, *y = b;

	return (x->lo > y->lo) - (x->lo < y->lo);
}

/*
 * The oldest @old pages' pieces into @out (up to PCO_KF_BATCH), sorted and
 * merged where they touch: a pool of threads' chunks are one range.  How
 * many ranges; *@ret_pieces: the whole pieces they took, *@ret_part: pages
 * of the next one.
 */
static int oldest(struct pco_kfile *kf, uint64_t old, uint64_t limit, struct pco_kpiece *out,
		  unsigned int *ret_pieces, uint64_t *ret_part)
{
	unsigned int i, n = 0, m = 0;

	*ret_part = 0;
	for (i = 0; i < kf->n && n < PCO_KF_BATCH && old; i++, n++) {
		struct pco_kpiece p = *piece(kf, i);
		uint64_t take = p.hi - p.lo;

		if (p.lo >= limit)
			break;		/* ahead of the reader's cursor: its read-ahead */
		if (p.hi > limit)
			take = limit - p.lo;
		if (take > old)
			take = old;
		if (take < p.hi - p.lo) {
			/*
			 * A piece cut in two is cut where no large folio
			 * (2 MiB at most) straddles: fadvise drops whole
			 * folios only, and the rest would start inside one.
			 */
			uint64_t folio = (2u << 20) / pcl_page_size();
			uint64_t end = pcl_align_down(p.lo + take, folio);

			if (end <= p.lo)
				break;	/* at a later look, with more */
			p.hi = end;
			*ret_part = end - p.lo;
			out[n++] = p;
			break;
		}
		old -= take;
		out[n] = p;
	}
	*ret_pieces = *ret_part ? n - 1 : n;
	qsort(out, n, sizeof(*out), cmp_piece);
	for (i = 0; i < n; i++) {
		if (m && out[m - 1].hi >= out[i].lo) {
			if (out[i].hi > out[m - 1].hi)
				out[m - 1].hi = out[i].hi;
			continue;
		}
		out[m++] = out[i];
	}
	return m;
}

/* Drop the oldest @old pages it added below @limit; pieces done are taken off. */
static void drop_oldest(struct pco_kfile *kf, const struct pco_kview_env *env, uint64_t old,
			uint64_t limit)
{
	static struct pco_kpiece ranges[PCO_KF_BATCH];
	unsigned int whole;
	uint64_t part;
	int n = oldest(kf, old, limit, ranges, &whole, &part), busy = 0;
	uint64_t left = 0, l;

	for (int i = 0; i < n; i++) {
		busy |= drop_range(kf, env, ranges[i].lo, ranges[i].hi, &l) == RANGE_BUSY;
		left += l;
	}
	if (busy) {
		kf->tries++;
		return;		/* all of them again at the next tick */
	}
	kf->tries = 0;
	kf->left += left;
	while (whole--)
		pop(kf);
	if (part) {
		piece(kf, 0)->lo += part;
		kf->held -= part;
	}
}

/* Whether its process maps the file (looked at every 0.5 s at most). */
static int mapped(struct pco_kfile *kf, double now)
{
	if (now - kf->maps_at >= PCO_KF_SEEK) {
		kf->maps_at = now;
		kf->nmaps = pco_maps_of(kf->pid, kf->dev, kf->ino, kf->maps, PCO_KF_MAPS);
		if (kf->nmaps < 0)
			kf->nmaps = 0;
	}
	return kf->nmaps > 0;
}

static int idle(const struct pco_kfile *kf, double now)
{
	return kf->ended || now - kf->last_add >= PCO_KF_IDLE;
}

/* Its rate (pages per second) from what came since the last tick. */
static void measure(struct pco_kfile *kf, double now)
{
	double dt = now - kf->rate_at;

	if (dt < 0.001 || (!kf->fresh && dt < 0.5))
		return;
	kf->rate = kf->rate ? 0.5 * kf->rate + 0.5 * kf->fresh / dt : kf->fresh / dt;
	kf->fresh = 0;
	kf->rate_at = now;
}

/*
 * Pages below the cursor of the process's descriptor of the file when that
 * cursor moves (a reader by read(2): what lies ahead is its read-ahead,
 * maybe hundreds of MiB on a large read_ahead_kb); else no limit (pread, a
 * whole-file copy in one call, a mapping: no cursor says where it is).
 */
static uint64_t cursor_limit(struct pco_kfile *kf)
{
	struct pco_fdinfo fi;
	uint64_t pos;

	if (kf->fdnum < 0 || pco_fdinfo_read(kf->pid, kf->fdnum, &fi) || fi.ino != kf->ino)
		return UINT64_MAX;
	pos = fi.pos;
	/* at the first look a cursor off 0 is taken for one that moves */
	kf->moving = kf->last_pos == UINT64_MAX ? pos > 0 : pos != kf->last_pos;
	kf->last_pos = pos;
	return kf->moving ? pos / pcl_page_size() : UINT64_MAX;
}

void pco_kfile_act(struct pco_kfile *kf, const struct pco_kview_env *env, double now,
		   uint64_t keep, uint64_t min)
{
	uint64_t old, limit;

	measure(kf, now);
	if (kf->state == PCO_KF_ALONE)
		return;
	if (kf->state == PCO_KF_CANDIDATE &&
	    (kf->seq < min || 4 * kf->seq < 3 * kf->added))
		return;
	/* one owner per stream: the process itself (the shim), or a position reader */
	if (kf->self || kf->working)
		return;
	kf->owned = kf->ended ? PCO_KV_FREE : env->owned(env->arg, kf->pid, kf->dev, kf->ino);
	if (kf->owned == PCO_KV_OWNED && mapped(kf, now))
		kf->owned = PCO_KV_FREE;	/* mapped pages are out of its reach */
	kf->deferred |= kf->owned == PCO_KV_OWNED;
	if (kf->owned == PCO_KV_OWNED || (kf->deferred && !kf->nmaps))
		return;
	if (kf->state != PCO_KF_ACTING) {
		if (kf->ended || !kf->n || now - kf->looked < kf->seek)
			return;
		resolve(kf, env, now);
		if (kf->state != PCO_KF_ACTING)
			return;
	}
	if (kf->writer && deleted(kf)) {
		/*
		 * A scratch file (restic's packs, an O_TMPFILE): its pages die
		 * with its last close and it is often read back; its newest
		 * budget's worth stays, even at its end, and only a file that
		 * grows past that is written back behind.
		 */
		keep *= 2;
		old = kf->held > keep ? kf->held - keep : 0;
	} else {
		old = idle(kf, now) && !kf->owned ? kf->held : kf->held > keep ? kf->held - keep : 0;
	}
	limit = idle(kf, now) ? UINT64_MAX : cursor_limit(kf);
	for (int round = 0; old && round < 64 && kf->n; round++) {
		uint64_t before = kf->held;

		drop_oldest(kf, env, old, limit);
		if (kf->held == before)
			break;		/* busy: again at the next tick */
		old -= before - kf->held < old ? before - kf->held : old;
	}
	if (idle(kf, now) && !kf->n && kf->fd >= 0 && !kf->ended) {
		/* the file system is not held busy by us: found again if it grows */
		close(kf->fd);
		kf->fd = -1;
		kf->state = PCO_KF_NOFD;
	}
}

int pco_kfile_done(const struct pco_kfile *kf, double now)
{
	/* a small file read once (a build reads thousands) is soon forgotten */
	if (kf->state == PCO_KF_CANDIDATE)
		return kf->ended || now - kf->last_add >= PCO_KF_IDLE;
	if (hands_off(kf))
		return kf->ended || now - kf->last_add >= PCO_KF_FORGET;
	if (kf->ended)
		return !kf->n || kf->state != PCO_KF_ACTING;
	return !kf->n && now - kf->last_add >= PCO_KF_FORGET;
}

static void stats_line(const struct pco_kfile *kf, int stats_fd)
{
	uint64_t pg = pcl_page_size(), ours = kf->dropped + kf->left + kf->held;
	char line[700];

	char before[80] = "", kept[80] = "(unknown)";
	int n;

	if (kf->took || kf->deferred)
		snprintf(kept, sizeof(kept), "0");	/* the position stream's line counts them */
	else if (kf->fd >= 0 && !kf->unknown)
		snprintf(kept, sizeof(kept), "%" PRIu64, kf->kept * pg);
	if (kf->claimed)
		snprintf(before, sizeof(before), ", %" PRIu64 " of them before it was followed",
			 kf->claimed * pg);
	n = snprintf(line, sizeof(line),
		     "pagecliff: %s: %" PRIu64 " bytes added to the page cache (pid %d, kernel "
		     "view%s), %" PRIu64 "%s bytes dropped, %" PRIu64 " bytes already gone, %"
		     PRIu64 " bytes left cached, %s bytes kept cached (cached before), %" PRIu64
		     " syscalls\n",
		     kf->path, kf->added * pg, (int)kf->pid, before, kf->dropped * pg,
		     kf->unknown ? " (residency unknown)" : "",
		     (kf->added > ours ? kf->added - ours : 0) * pg,
		     (kf->left + kf->held) * pg, kept, kf->syscalls);
	if (n <= 0)
		return;
	if ((size_t)n >= sizeof(line)) {
		n = sizeof(line) - 1;
		line[n - 1] = '\n';
	}
	if (write(stats_fd, line, n) < 0)
		return;
}

/* What of the pieces not dropped is still cached: left, the rest gone. */
static void settle(struct pco_kfile *kf)
{
	static struct pco_kpiece ranges[PCO_KF_BATCH];
	unsigned int whole;
	uint64_t part, busy;

	while (kf->n && kf->fd >= 0) {
		int n = oldest(kf, kf->held, UINT64_MAX, ranges, &whole, &part);

		for (int i = 0; i < n; i++) {
			int64_t c = count(kf, ranges[i].lo, ranges[i].hi, &busy);

			kf->left += c > 0 ? (uint64_t)c : 0;
		}
		while (whole--)
			pop(kf);
		if (part) {
			piece(kf, 0)->lo += part;
			kf->held -= part;
		}
	}
}

/*
 * What was cached of the span it added in and not added by it: pages cached
 * before (or by others), kept.
 */
static void count_kept(struct pco_kfile *kf)
{
	uint64_t busy;
	int64_t c;

	if (kf->hi_max <= kf->lo_min)
		return;
	c = count(kf, kf->lo_min, kf->hi_max, &busy);
	kf->kept = c > 0 && (uint64_t)c > kf->left ? (uint64_t)c - kf->left : 0;
}

void pco_kfile_release(struct pco_kfile *kf, int stats_fd)
{
	if (kf->dropped && kf->fd >= 0) {
		settle(kf);
		count_kept(kf);
	}
	/*
	 * Where another way dropped it all (the shim, a position stream), that
	 * way's line says so: a line of ours only for what we dropped or left.
	 */
	if (stats_fd >= 0 && kf->path[0] && (kf->dropped || kf->left))
		stats_line(kf, stats_fd);
	if (kf->fd >= 0)
		close(kf->fd);
	kf->fd = -1;
	free(kf->pieces);
	kf->pieces = NULL;
}
