// SPDX-License-Identifier: MIT
/*
 * Writes through the flusher (flusher.c) for a write stream, shared by the
 * dropbehind strategy (plain buffered writes) and the dontcache strategy
 * (RWF_DONTCACHE writes, where the flusher evicts what the kernel keeps:
 * pages that two unaligned writes shared).  Pieces of at most a batch, so
 * that the flusher remembers every batch it is told about.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "flusher.h"
#include "internal.h"
#include "wstrategy.h"

/*
 * Mirror the flusher's counts in the stream's statistics: bytes_dropped is
 * what left the cache (counted before and after each drop), and where that
 * could not be counted the reason says so, once.
 */
static void sync_stats(struct pc_wstream *s, struct pcl_flusher *f, uint64_t calls)
{
	static const char unknown[] = "residency unknown: what its drops evicted is not counted";

	if (f->bytes_unknown && !strstr(s->stats.reason, unknown))
		pcl_wadd_reason(s, "%s", unknown);
	s->stats.bytes_dropped = f->bytes_dropped;
	s->stats.bytes_kept = f->bytes_kept;
	s->stats.syscalls += f->syscalls - calls;
}

int pcl_wflush_init(struct pc_wstream *s, struct pcl_flusher *f, int wait_fd)
{
	int ret = pcl_flusher_init(f, s->fd, wait_fd, s->opts.flush_batch, s->pos);

	if (ret)
		return ret;
	if (f->wait_fd < 0)
		pcl_wadd_reason(s, "no description of its own to wait through (%s): evicts only what finished writeback",
			       strerror(-f->wait_err));
	if (f->memory_fs)
		pcl_wadd_reason(s, "tmpfs: no writeback to start");
	s->stats.syscalls += f->syscalls;
	return 0;
}

/* Where an O_APPEND write will land: the end of the file now. */
static uint64_t append_at(struct pc_wstream *s, uint64_t off)
{
	struct stat st;

	if (!s->append)
		return off;
	s->stats.syscalls++;
	return fstat(s->fd, &st) ? off : (uint64_t)st.st_size;
}

static ssize_t write_piece(struct pc_wstream *s, struct pcl_flusher *f,
			   const char *buf, size_t len, uint64_t off, int rwf)
{
	uint64_t at = append_at(s, off), calls = f->syscalls;
	ssize_t n;

	pcl_flusher_before(f, at, len);
	n = pcl_wfull_pwrite(s, buf, len, off, rwf, &at);
	if (n > 0)
		pcl_wnote_err(s, pcl_flusher_wrote(f, at, n));
	sync_stats(s, f, calls);
	return n;
}

ssize_t pcl_wflush_pwrite(struct pc_wstream *s, struct pcl_flusher *f,
			 const void *buf, size_t len, uint64_t off, int rwf)
{
	size_t done = 0;

	while (done < len) {
		size_t piece = len - done < f->batch ? len - done : f->batch;
		ssize_t n = write_piece(s, f, (const char *)buf + done, piece,
					off + done, rwf);

		if (n < 0)
			return done ? (ssize_t)done : n;
		done += n;
		if ((size_t)n < piece)
			break;
	}
	return done;
}

int pcl_wflush_finish(struct pc_wstream *s, struct pcl_flusher *f)
{
	uint64_t calls = f->syscalls;
	int ret = pcl_flusher_finish(f);

	sync_stats(s, f, calls);
	return ret;
}
