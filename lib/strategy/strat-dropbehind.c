// SPDX-License-Identifier: MIT
/*
 * dropbehind: buffered reads, POSIX_FADV_DONTNEED over what has been read, in
 * batches behind the cursor, and POSIX_FADV_WILLNEED one batch ahead.  Works
 * on every kernel and file system.
 *
 * The batching and the rules of what may be dropped (pages cached before the
 * stream read them stay, dirty pages are never touched) are the dropper's
 * (dropper.c), shared with the preload shim; this file drives it for a
 * stream and adds the read-ahead hints.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

#include "dropper.h"
#include "internal.h"

struct dropbehind {
	struct pcl_dropper dropper;
	uint64_t hinted_to;		/* batches below this index were hinted */
};

/* Mirror the dropper's counts in the stream's statistics. */
static void sync_stats(struct pc_stream *s, struct dropbehind *db,
		       uint64_t syscalls_before)
{
	s->stats.bytes_dropped = db->dropper.bytes_dropped;
	s->stats.bytes_kept = db->dropper.bytes_kept;
	s->stats.syscalls += db->dropper.syscalls - syscalls_before;
}

/* Hint the batch after the one holding @off, once, after its snapshot. */
static void hint_ahead(struct pc_stream *s, struct dropbehind *db, uint64_t off)
{
	uint64_t batch = db->dropper.batch, next = off / batch + 1;

	if (next < db->hinted_to)
		return;
	db->hinted_to = next + 1;
	s->stats.syscalls++;
	posix_fadvise(s->fd, next * batch, batch, POSIX_FADV_WILLNEED);
}

/* Read one piece of at most a batch, so that snapshots stay ahead of it. */
static ssize_t read_piece(struct pc_stream *s, struct dropbehind *db,
			  char *buf, size_t len, uint64_t off)
{
	uint64_t lag = s->opts.drop_lag;
	ssize_t n;

	pcl_dropper_before(&db->dropper, s->fd, off, len);
	hint_ahead(s, db, off);
	n = pcl_full_pread(s->fd, buf, len, off, 0, &s->stats.syscalls);
	if (n > 0 && off + n > lag)
		pcl_dropper_advance(&db->dropper, s->fd, off + n - lag, 0);
	return n;
}

static ssize_t dropbehind_read(struct pc_stream *s, void *buf, size_t len)
{
	struct dropbehind *db = s->priv;
	uint64_t calls = db->dropper.syscalls;
	size_t done = 0;

	while (done < len) {
		size_t piece = len - done < db->dropper.batch ? len - done :
								db->dropper.batch;
		ssize_t n = read_piece(s, db, (char *)buf + done, piece,
				       s->pos + done);

		if (n < 0) {
			sync_stats(s, db, calls);
			return done ? (ssize_t)done : n;
		}
		done += n;
		if ((size_t)n < piece)
			break;
	}
	sync_stats(s, db, calls);
	return done;
}

/* At end of file everything read goes, the partial last page too. */
static void dropbehind_eof(struct pc_stream *s)
{
	struct dropbehind *db = s->priv;
	uint64_t calls = db->dropper.syscalls;

	pcl_dropper_advance(&db->dropper, s->fd, s->pos, 1);
	sync_stats(s, db, calls);
}

/*
 * A read off the cursor: read, and drop the range unless some of it was
 * cached before (then all of it stays: no snapshot for a one-off read).
 */
static ssize_t dropbehind_pread(struct pc_stream *s, void *buf, size_t len,
				uint64_t off)
{
	struct dropbehind *db = s->priv;
	uint64_t start = pcl_align_down(off, db->dropper.page);
	struct pcl_cachestat cs = { .nr_cache = 0 };
	ssize_t n;

	/* Residency unknown: it cannot be kept, so it goes. */
	if (s->opts.keep_cached) {
		s->stats.syscalls++;
		pcl_residency_count(&db->dropper.res, s->fd, start,
				   off + len - start, &cs);
	}
	n = pcl_full_pread(s->fd, buf, len, off, 0, &s->stats.syscalls);
	if (n > 0 && !cs.nr_cache) {
		s->stats.syscalls++;
		if (!posix_fadvise(s->fd, start, pcl_align_up(off + n, db->dropper.page) - start,
				   POSIX_FADV_DONTNEED))
			db->dropper.bytes_dropped += n;
	} else if (n > 0) {
		db->dropper.bytes_kept += n;
	}
	sync_stats(s, db, db->dropper.syscalls);
	return n;
}

static void dropbehind_release(struct pc_stream *s)
{
	struct dropbehind *db = s->priv;

	if (!db)
		return;
	pcl_dropper_seek(&db->dropper, s->fd, s->pos, s->pos);
	pcl_dropper_release(&db->dropper);
	free(db);
	s->priv = NULL;
}

static int dropbehind_init(struct pc_stream *s)
{
	struct dropbehind *db;
	int ret;

	db = calloc(1, sizeof(*db));
	if (!db)
		return -ENOMEM;
	ret = pcl_dropper_init(&db->dropper, s->fd, s->opts.drop_batch, s->pos);
	if (ret) {
		free(db);
		return ret;
	}
	if (!s->opts.keep_cached)
		db->dropper.warm = 0;	/* nothing to keep: no snapshots */
	else if (db->dropper.res.how == PCL_RES_UNKNOWN)
		pcl_add_reason(s, "residency unknown (%s): pages cached before are dropped too",
			      strerror(-db->dropper.res.err));
	if (db->dropper.res.overlay)
		pcl_add_reason(s, "overlayfs: counted and dropped in the real file");
	s->stats.syscalls += db->dropper.syscalls;
	db->hinted_to = s->pos / db->dropper.batch + 1;
	s->priv = db;
	return 0;
}

const struct pcl_strategy_ops pcl_strat_dropbehind = {
	.init = dropbehind_init,
	.read = dropbehind_read,
	.pread = dropbehind_pread,
	.eof = dropbehind_eof,
	.release = dropbehind_release,
};
