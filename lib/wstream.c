// SPDX-License-Identifier: MIT
/*
 * The write-stream core: opening, strategy selection with fallbacks, the
 * cursor, lending, errors kept for the next call, and the statistics.  The
 * strategies (wstrat-*.c) do the writing behind the ops table.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "internal.h"
#include "wstrategy.h"

/* At most this many bytes of direct writes in flight, whatever the options. */
#define WSTREAM_MAX_INFLIGHT_BYTES (16ull * PCL_MIB)

void pc_wopts_init(struct pc_wopts *opts)
{
	memset(opts, 0, sizeof(*opts));
	opts->strategy = PC_AUTO;
	opts->chunk_size = PCL_CHUNK_DEFAULT;
	opts->inflight = PCL_INFLIGHT_DEFAULT;
	opts->flush_batch = 8 * PCL_MIB;
}

static int take_err(struct pc_wstream *s)
{
	int err = s->err;

	s->err = 0;
	return err;
}

static int wopts_check(struct pc_wstream *s)
{
	struct pc_wopts *o = &s->opts;
	int ret = pcl_opts_check(o->strategy, &o->chunk_size, &o->inflight, o->resv,
				 sizeof(o->resv) / sizeof(o->resv[0]), 64u * PCL_MIB);

	if (ret)
		return ret;
	if (!o->flush_batch)
		o->flush_batch = 8 * PCL_MIB;
	s->chunk = o->chunk_size;
	if ((uint64_t)o->inflight * s->chunk > WSTREAM_MAX_INFLIGHT_BYTES)
		o->inflight = WSTREAM_MAX_INFLIGHT_BYTES / s->chunk ? : 1;
	return 0;
}

/* Take strategy @id's write side (the registry's walk calls this). */
static int wstrategy_init(void *stream, enum pc_strategy id)
{
	struct pc_wstream *s = stream;

	s->ops = pcl_strategies[id].write;
	s->caps = pcl_strategies[id].caps;
	if (s->append && !(s->caps & PCL_WCAP_APPEND)) {
		pcl_wset_reason(s, "O_APPEND writes must go through the page cache");
		return -EINVAL;
	}
	return s->ops->init(s);
}

/*
 * auto's choice from what is cached of the file (pcl_probe_cache), counted
 * through a description that may read (on overlayfs only a mapping reaches
 * the real file's pages, and mapping needs read access): the stream's own,
 * or one of its own when the caller opened the file write-only; the
 * stream's own when that cannot be had.
 */
static enum pc_strategy wstrategy_auto(void *stream, char *reason, size_t size)
{
	struct pc_wstream *s = stream;
	struct pc_probe p;
	int fd, ret;

	if (s->append)
		return pcl_auto_write(NULL, 1, pcl_kernel_version(), reason, size);
	fd = s->readable ? s->fd : pcl_wreopen(s, O_RDONLY);
	ret = pcl_probe_cache(fd >= 0 ? fd : s->fd, &p, &s->stats.syscalls);
	if (fd >= 0 && fd != s->fd) {
		s->stats.syscalls++;
		close(fd);
	}
	return pcl_auto_write(ret ? NULL : &p, 0, pcl_kernel_version(), reason, size);
}

/* The write side of pcl_stream_new(). */
static int wstream_take(void *stream, const struct pcl_fd *f, const void *opts,
			struct pcl_choice *ret)
{
	struct pc_wstream *s = stream;

	*s = (struct pc_wstream){ .fd = f->fd, .own_fd = f->own_fd, .regular = f->regular,
				  .append = f->append, .readable = f->readable, .pos = f->pos };
	if (opts)
		s->opts = *(const struct pc_wopts *)opts;
	else
		pc_wopts_init(&s->opts);
	s->stats.requested = s->opts.strategy;
	*ret = (struct pcl_choice){ .requested = s->opts.strategy, .ret_id = &s->stats.strategy,
				    .reason = s->stats.reason, .size = sizeof(s->stats.reason) };
	return wopts_check(s);
}

static const struct pcl_setup write_setup = {
	.dir = PCL_CAP_WRITE,
	.plain = "not a regular file: plain write(2)",
	.size = sizeof(struct pc_wstream),
	.take = wstream_take,
	.choose = wstrategy_auto,
	.init = wstrategy_init,
};

static int wstream_new(struct pc_wstream **ret_stream, int fd, int own_fd,
		       const struct pc_wopts *opts)
{
	void *s;
	int ret = pcl_stream_new(&write_setup, fd, own_fd, opts, &s);

	if (!ret)
		*ret_stream = s;
	return ret;
}

int pc_wstream_fdopen(struct pc_wstream **ret_stream, int fd,
		      const struct pc_wopts *opts)
{
	if (fd < 0 || !ret_stream)
		return -EBADF;
	return wstream_new(ret_stream, fd, 0, opts);
}

int pc_wstream_open(struct pc_wstream **ret_stream, const char *path, int flags,
		    mode_t mode, const struct pc_wopts *opts)
{
	int fd;

	if (!path || !ret_stream)
		return -EINVAL;
	if ((flags & O_ACCMODE) == O_RDONLY || (flags & O_DIRECT))
		return -EINVAL;
	fd = open(path, flags | O_CLOEXEC | O_NOCTTY, mode);
	if (fd < 0)
		return -errno;
	return wstream_new(ret_stream, fd, 1, opts);	/* it closes fd on failure */
}

/* write(2) for pipes and sockets: all of it, or what went before an error. */
static ssize_t write_plain(struct pc_wstream *s, const void *buf, size_t len)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n;

		s->stats.syscalls++;
		n = write(s->fd, (const char *)buf + done, len - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return pcl_wshort_write(s, done, n);
		done += n;
	}
	return done;
}

/* Count what a write did and, sequential, move the cursor. */
static ssize_t account(struct pc_wstream *s, ssize_t n, int seq)
{
	if (n > 0) {
		s->stats.bytes_written += n;
		if (seq && s->append)
			s->pos = (uint64_t)lseek(s->fd, 0, SEEK_CUR);
		else if (seq)
			s->pos += n;
	}
	return n;
}

/* An earlier error first; the call does not run then. */
static int pending(struct pc_wstream *s)
{
	s->lent = 0;
	return take_err(s);
}

ssize_t pc_wstream_write(struct pc_wstream *s, const void *buf, size_t len)
{
	int err = pending(s);

	if (err)
		return err;
	if (!len)
		return 0;
	if (!s->regular)
		return account(s, write_plain(s, buf, len), 0);
	return account(s, s->ops->pwrite(s, buf, len, s->pos), 1);
}

ssize_t pc_wstream_pwrite(struct pc_wstream *s, const void *buf, size_t len,
			  uint64_t offset)
{
	int err = pending(s);

	if (err)
		return err;
	if (!s->regular)
		return -ESPIPE;
	if (offset > INT64_MAX || len > INT64_MAX - offset)
		return -EINVAL;
	if (!len)
		return 0;
	return account(s, s->ops->pwrite(s, buf, len, offset), 0);
}

ssize_t pc_wstream_lend(struct pc_wstream *s, void **ret_buf)
{
	void *buf;
	int err = pending(s);

	if (err)
		return err;
	if (s->regular && (s->caps & PCL_WCAP_ZEROCOPY)) {
		buf = s->ops->lend(s, &err);
		if (!buf)
			return err;
	} else {
		if (!s->lend_buf)
			s->lend_buf = pcl_buf_map(s->chunk, 0);
		if (!s->lend_buf)
			return -ENOMEM;
		buf = s->lend_buf;
	}
	s->lent = 1;
	*ret_buf = buf;
	return s->chunk;
}

ssize_t pc_wstream_commit(struct pc_wstream *s, size_t len)
{
	int lent = s->lent, err = pending(s);

	if (err)
		return err;
	if (!lent || len > s->chunk)
		return -EINVAL;
	if (!len)
		return 0;
	if (!s->regular)
		return account(s, write_plain(s, s->lend_buf, len), 0);
	if (s->caps & PCL_WCAP_ZEROCOPY)
		return account(s, s->ops->commit(s, len, s->pos), 1);
	return account(s, s->ops->pwrite(s, s->lend_buf, len, s->pos), 1);
}

int pc_wstream_sync(struct pc_wstream *s)
{
	int err = pending(s);

	if (!err && s->regular && s->ops->drain) {
		err = s->ops->drain(s);
		if (!err)
			err = take_err(s);
	}
	if (!err) {
		s->stats.syscalls++;
		/* A pipe or socket cannot be synced; a regular file always is. */
		if (fdatasync(s->fd) < 0 &&
		    (s->regular || (errno != EINVAL && errno != EROFS)))
			err = -errno;
	}
	return err;
}

void pc_wstream_stats(const struct pc_wstream *s, struct pc_wstats *ret_stats)
{
	*ret_stats = s->stats;
}

int pc_wstream_close_stats(struct pc_wstream *s, struct pc_wstats *ret_stats)
{
	int err;

	if (!s)
		return 0;
	if (s->regular && s->ops->finish)
		pcl_wnote_err(s, s->ops->finish(s));
	if (ret_stats)
		*ret_stats = s->stats;
	if (s->regular && s->ops->release)
		s->ops->release(s);
	err = take_err(s);
	pcl_buf_unmap(s->lend_buf, s->chunk, 0);
	if (s->own_fd && close(s->fd) < 0 && !err && errno != EINTR)
		err = -errno;
	free(s);
	return err;
}

int pc_wstream_close(struct pc_wstream *s)
{
	return pc_wstream_close_stats(s, NULL);
}
