// SPDX-License-Identifier: MIT
/*
 * A stream's cleaner, which cleans ranges without the engines (what a stream
 * passed before the watcher saw it, an appender's pages, a writer's tail),
 * and the counts of what is cached that the stream's decisions rest on.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"
#include "stream-parts.h"

/*
 * A cleaner starts writeback this far past what it has dropped, no further
 * in one look: catching up with what an appender wrote before attach (half a
 * GiB) is one short system call a look, not one that queues it all at once.
 */
#define PCO_CLEAN_AHEAD (PCL_FLUSHER_POLL_LAG * (uint64_t)PCL_DROP_BATCH)

/*
 * cachestat(2) of [@off, @off + @len) of @fd (@len 0: to the end); on
 * overlayfs the overlay's own mapping is empty, and the count is taken
 * through a mapping, which reaches the real file (lib/residency.c).
 */
int pco_stream_count(const struct pco_stream *s, int fd, uint64_t off, uint64_t len,
		 struct pcl_cachestat *ret)
{
	struct pcl_residency r = { .how = PCL_RES_MINCORE, .overlay = 1,
				   .page = pcl_page_size() };

	if (!s->overlay)
		return pcl_cachestat(fd, off, len, ret);
	return pcl_residency_count(&r, fd, off, len, ret);
}

/*
 * How far an appender's cleaner stays behind it.  A deleted file (a scratch
 * file: restic's temporary packs, an O_TMPFILE not linked yet) loses its
 * pages at its last close, dirty or not, and is often read back before: its
 * last budget's worth is left alone, and only a file that grows past that
 * is written back behind.  A file linked again is cleaned as any other.
 */
uint64_t pco_clean_to(const struct pco_stream *s, uint64_t pos, const struct pco_ctx *c)
{
	struct stat st;

	if (s->own >= 0 && !fstat(s->own, &st) && !st.st_nlink)
		pos = pos > c->budget ? pos - c->budget : 0;
	return pcl_align_down(pos, PCL_DROP_BATCH);
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
	if (pco_stream_count(s, s->own, off, len, &before) || !before.nr_cache ||
	    posix_fadvise(s->own, off, len, POSIX_FADV_DONTNEED) ||
	    pco_stream_count(s, s->own, off, len, &after) || after.nr_cache >= before.nr_cache)
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
int pco_clean_look(struct pco_stream *s)
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
		/*
		 * Batches end on multiples of the batch: a large folio (up to
		 * 2 MiB) across the end of one batch and the start of the next
		 * would be in neither, as fadvise drops whole folios only (an
		 * unaligned start left 2 MiB of every 8).
		 */
		uint64_t end = pcl_align_down(c->lo + batch, batch);
		uint64_t len = (c->hi < end ? c->hi : end) - c->lo;

		s->syscalls++;
		if (pco_stream_count(s, s->own, c->lo, len, &cs)) {
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

/* Bytes of [@off, end of file) cached, or 0 when it cannot be told. */
uint64_t pco_cached_from(const struct pco_stream *s, int fd, uint64_t off)
{
	struct pcl_cachestat cs;

	return pco_stream_count(s, fd, off, 0, &cs) ? 0 : cs.nr_cache * pcl_page_size();
}

/*
 * Bytes cached in [@off, @off + @len), 0 when it cannot be told.  A count
 * walks every page cached in its range: never the whole of a large warm
 * file where a part will do.
 */
uint64_t pco_cached_in(const struct pco_stream *s, int fd, uint64_t off, uint64_t len)
{
	struct pcl_cachestat cs;

	if (!len)
		return 0;
	return pco_stream_count(s, fd, off, len, &cs) ? 0 : cs.nr_cache * pcl_page_size();
}
