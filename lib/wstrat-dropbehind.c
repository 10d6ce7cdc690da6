// SPDX-License-Identifier: MIT
/*
 * dropbehind writes: buffered pwrite(2) driven through the flusher
 * (flusher.c, shared with the preload shim), which starts writeback of whole
 * batches behind the cursor and evicts them a few batches later.  Works on
 * every kernel; a writeback error the flusher sees is returned by the next
 * call or by close.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "flusher.h"
#include "internal.h"
#include "wstrategy.h"

/* Mirror the flusher's counts in the stream's statistics. */
static void sync_stats(struct pc_wstream *s, struct pc_flusher *f, uint64_t calls)
{
	s->stats.bytes_dropped = f->bytes_dropped;
	s->stats.bytes_kept = f->bytes_kept;
	s->stats.syscalls += f->syscalls - calls;
}

static int wdropbehind_init(struct pc_wstream *s)
{
	struct pc_flusher *f = calloc(1, sizeof(*f));
	int ret;

	if (!f)
		return -ENOMEM;
	ret = pc_flusher_init(f, s->fd, -1, s->opts.flush_batch, s->pos);
	if (ret) {
		free(f);
		return ret;
	}
	if (f->wait_fd < 0)
		pc_wadd_reason(s, "no description of its own to wait through (%s): evicts only what finished writeback",
			       strerror(-f->wait_err));
	s->stats.syscalls += f->syscalls;
	s->priv = f;
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

/* One piece of at most a batch, so that the flusher remembers its batches. */
static ssize_t write_piece(struct pc_wstream *s, struct pc_flusher *f,
			   const char *buf, size_t len, uint64_t off)
{
	uint64_t at = append_at(s, off), calls = f->syscalls;
	ssize_t n;

	pc_flusher_before(f, at, len);
	n = pc_wfull_pwrite(s, buf, len, off, 0, &at);
	if (n > 0)
		pc_wnote_err(s, pc_flusher_wrote(f, at, n));
	sync_stats(s, f, calls);
	return n;
}

static ssize_t wdropbehind_pwrite(struct pc_wstream *s, const void *buf, size_t len,
				  uint64_t off)
{
	struct pc_flusher *f = s->priv;
	size_t done = 0;

	while (done < len) {
		size_t piece = len - done < f->batch ? len - done : f->batch;
		ssize_t n = write_piece(s, f, (const char *)buf + done, piece, off + done);

		if (n < 0)
			return done ? (ssize_t)done : n;
		done += n;
		if ((size_t)n < piece)
			break;
	}
	return done;
}

static int wdropbehind_finish(struct pc_wstream *s)
{
	struct pc_flusher *f = s->priv;
	uint64_t calls = f->syscalls;
	int ret = pc_flusher_finish(f);

	sync_stats(s, f, calls);
	return ret;
}

static void wdropbehind_release(struct pc_wstream *s)
{
	pc_flusher_release(s->priv);
	free(s->priv);
	s->priv = NULL;
}

const struct pc_wstrategy_ops pc_wstrat_dropbehind = {
	.id = PC_DROPBEHIND,
	.name = "dropbehind",
	.flags = PC_WS_APPEND,
	.fallback = PC_BUFFERED,
	.init = wdropbehind_init,
	.pwrite = wdropbehind_pwrite,
	.finish = wdropbehind_finish,
	.release = wdropbehind_release,
};
