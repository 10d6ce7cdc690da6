// SPDX-License-Identifier: MIT
/*
 * The stream core: opening, strategy selection with fallbacks, the cursor and
 * the statistics.  Strategies do the reading behind the ops table.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dropper.h"
#include "internal.h"

void pc_opts_init(struct pc_opts *opts)
{
	memset(opts, 0, sizeof(*opts));
	opts->strategy = PC_AUTO;
	opts->chunk_size = PCL_CHUNK_DEFAULT;
	opts->inflight = PCL_INFLIGHT_DEFAULT;
	opts->drop_lag = 0;
	opts->drop_batch = PCL_DROP_BATCH;
	opts->keep_cached = 1;
}

static int opts_check(struct pc_opts *o)
{
	int ret = pcl_opts_check(o->strategy, &o->chunk_size, &o->inflight, o->resv,
				 sizeof(o->resv) / sizeof(o->resv[0]), 1024u * PCL_MIB);

	if (ret)
		return ret;
	if (!o->drop_batch)
		o->drop_batch = PCL_DROP_BATCH;
	o->drop_batch = pcl_align_up(o->drop_batch, pcl_page_size());
	if (o->drop_lag > (uint64_t)PCL_DROPPER_MAX_LAG * o->drop_batch)
		return -EINVAL;	/* past the snapshots kept behind the reader */
	return 0;
}

/* Take strategy @id's read side (the registry's walk calls this). */
static int strategy_init(void *stream, enum pc_strategy id)
{
	struct pc_stream *s = stream;

	s->ops = pcl_strategies[id].read;
	s->caps = pcl_strategies[id].caps;
	return s->ops->init(s);
}

/* auto's choice from one probe of the file: 16 calls on XFS or ext4, counted. */
static enum pc_strategy strategy_auto(void *stream, char *reason, size_t size)
{
	struct pc_stream *s = stream;
	struct pc_probe p;
	int ret = pcl_probe_fd(s->fd, &p, &s->stats.syscalls);

	return pcl_auto_read(ret ? NULL : &p, s->opts.inflight, reason, size);
}

/* The read side of pcl_stream_new(). */
static int stream_take(void *stream, const struct pcl_fd *f, const void *opts,
		       struct pcl_choice *ret)
{
	struct pc_stream *s = stream;

	*s = (struct pc_stream){ .fd = f->fd, .own_fd = f->own_fd, .regular = f->regular,
				 .pos = f->pos };
	if (opts)
		s->opts = *(const struct pc_opts *)opts;
	else
		pc_opts_init(&s->opts);
	s->stats.requested = s->opts.strategy;
	*ret = (struct pcl_choice){ .requested = s->opts.strategy, .ret_id = &s->stats.strategy,
				    .reason = s->stats.reason, .size = sizeof(s->stats.reason) };
	return opts_check(&s->opts);
}

static const struct pcl_setup read_setup = {
	.dir = PCL_CAP_READ,
	.plain = "not a regular file: plain read(2)",
	.size = sizeof(struct pc_stream),
	.take = stream_take,
	.choose = strategy_auto,
	.init = strategy_init,
};

static int stream_new(struct pc_stream **ret_stream, int fd, int own_fd,
		      const struct pc_opts *opts)
{
	void *s;
	int ret = pcl_stream_new(&read_setup, fd, own_fd, opts, &s);

	if (!ret)
		*ret_stream = s;
	return ret;
}

int pc_stream_fdopen(struct pc_stream **ret_stream, int fd,
		     const struct pc_opts *opts)
{
	if (fd < 0 || !ret_stream)
		return -EBADF;
	return stream_new(ret_stream, fd, 0, opts);
}

int pc_stream_open(struct pc_stream **ret_stream, const char *path,
		   const struct pc_opts *opts)
{
	int fd;

	if (!path || !ret_stream)
		return -EINVAL;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return -errno;
	return stream_new(ret_stream, fd, 1, opts);	/* it closes fd on failure */
}

/* read(2) for pipes and terminals: there is no offset and no cache to spare. */
static ssize_t stream_read_plain(struct pc_stream *s, void *buf, size_t len)
{
	ssize_t n;

	do {
		s->stats.syscalls++;
		n = read(s->fd, buf, len);
	} while (n < 0 && errno == EINTR);
	return n < 0 ? -errno : n;
}

/*
 * Bytes at the cursor still held in the small-read buffer.  A file that
 * shrank under the buffer's end has the buffer dropped: the next read asks
 * the file, so a truncated file yields no stale bytes (nor, when new bytes
 * were written after the truncate, the old ones).
 */
static size_t rbuf_avail(struct pc_stream *s)
{
	uint64_t end = s->rbuf_off + s->rbuf_len, size;

	if (!s->rbuf_len || s->pos < s->rbuf_off || s->pos >= end)
		return 0;
	s->stats.syscalls++;
	if (!pcl_file_size(s->fd, &size) && size < end) {
		s->rbuf_len = 0;
		return 0;
	}
	return end - s->pos;
}

/* The small-read buffer holds a chunk, and never less than this. */
#define RBUF_MIN (64u * 1024)

/*
 * Reads of less than a page would cost a system call each, and with
 * RWF_DONTCACHE a device read each (the page is dropped after every copy):
 * read a chunk into a buffer of the stream's and hand it out from there.
 */
static ssize_t small_read_fill(struct pc_stream *s)
{
	ssize_t n;

	if (!s->rbuf) {
		s->rbuf_size = s->opts.chunk_size > RBUF_MIN ? s->opts.chunk_size : RBUF_MIN;
		s->rbuf = pcl_buf_map(s->rbuf_size, 0);
		if (!s->rbuf)
			return -ENOMEM;
	}
	s->rbuf_len = 0;
	n = s->ops->read(s, s->rbuf, s->rbuf_size);
	if (n > 0) {
		s->rbuf_off = s->pos;
		s->rbuf_len = n;
	}
	return n;
}

/* One step of a read: from the small-read buffer, or from the strategy. */
static ssize_t read_step(struct pc_stream *s, void *buf, size_t len)
{
	size_t avail = rbuf_avail(s);
	ssize_t n;

	if (!avail && len < pcl_page_size() && !(s->caps & PCL_CAP_SMALL_READS)) {
		n = small_read_fill(s);
		if (n <= 0)
			return n;
		avail = rbuf_avail(s);
	}
	if (!avail)
		return s->ops->read(s, buf, len);
	n = avail < len ? avail : len;
	memcpy(buf, s->rbuf + (s->pos - s->rbuf_off), n);
	return n;
}

ssize_t pc_stream_read(struct pc_stream *s, void *buf, size_t len)
{
	size_t done = 0;
	ssize_t n = 0;

	if (!s->regular) {
		n = len ? stream_read_plain(s, buf, len) : 0;
		if (n > 0)
			s->stats.bytes_read += n;
		return n;
	}
	while (done < len) {
		n = read_step(s, (char *)buf + done, len - done);
		if (n <= 0)
			break;
		s->pos += n;
		s->stats.bytes_read += n;
		done += n;
	}
	if (done)
		return done;
	if (n == 0 && len && s->ops->eof)
		s->ops->eof(s);
	return n;
}

ssize_t pc_stream_pread(struct pc_stream *s, void *buf, size_t len,
			uint64_t offset)
{
	ssize_t n;

	if (!s->regular)
		return -ESPIPE;
	if (!len)
		return 0;
	if (offset > INT64_MAX)
		return -EINVAL;
	n = s->ops->pread(s, buf, len, offset);
	if (n > 0)
		s->stats.bytes_read += n;
	return n;
}

ssize_t pc_stream_next(struct pc_stream *s, const void **ret_data)
{
	ssize_t n;

	if (s->regular && (s->caps & PCL_CAP_ZEROCOPY)) {
		n = s->ops->next(s, ret_data);
		if (n > 0) {
			s->pos += n;
			s->stats.bytes_read += n;
		} else if (n == 0 && s->ops->eof) {
			s->ops->eof(s);
		}
		return n;
	}
	if (!s->lend_buf) {
		s->lend_buf = pcl_buf_map(s->opts.chunk_size, 0);	/* a copy of cached bytes: small pages */
		if (!s->lend_buf)
			return -ENOMEM;
	}
	n = pc_stream_read(s, s->lend_buf, s->opts.chunk_size);
	if (n > 0)
		*ret_data = s->lend_buf;
	return n;
}

void pc_stream_stats(const struct pc_stream *s, struct pc_stats *ret_stats)
{
	*ret_stats = s->stats;
}

void pc_stream_close(struct pc_stream *s)
{
	if (!s)
		return;
	if (s->ops && s->ops->release && s->regular)
		s->ops->release(s);
	pcl_buf_unmap(s->lend_buf, s->opts.chunk_size, 0);
	pcl_buf_unmap(s->rbuf, s->rbuf_size, 0);
	if (s->own_fd)
		close(s->fd);
	free(s);
}
