// SPDX-License-Identifier: MIT
/*
 * dontcache writes: pwritev2(2) with RWF_DONTCACHE (Linux >= 6.14, XFS, ext4,
 * NFS).  The kernel starts writeback as each write returns and drops the
 * pages it instantiated once that completes; pages cached before stay.
 *
 * The kernel checks the flag the same way for reads and writes, so a one-byte
 * preadv2(2) through a read-only description of our own probes it without
 * writing anything.  At close the stream waits, through that description,
 * for the writeback the kernel started on the range it wrote, so that an
 * error is returned instead of lost with the stream's fd (the caller's own
 * fsync still sees it).
 *
 * The kernel keeps a page that an earlier write instantiated when a later
 * one writes into it (two unaligned writes sharing a page), so the writes go
 * through the flusher too, which evicts such pages behind the cursor.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "flusher.h"
#include "internal.h"
#include "wstrategy.h"

struct wdontcache {
	int wait_fd;			/* read-only description of our own */
	uint64_t lo, hi;		/* the range written */
	struct pcl_flusher flusher;	/* waits through wait_fd */
};

static int probe(struct pc_wstream *s, int fd)
{
	char byte;
	struct iovec iov = { &byte, 1 };
	ssize_t n;

	do {
		s->stats.syscalls++;
		n = preadv2(fd, &iov, 1, 0, RWF_DONTCACHE);
	} while (n < 0 && errno == EINTR);
	if (n >= 0)
		return 0;
	if (errno == EOPNOTSUPP || errno == EINVAL) {
		pcl_wset_reason(s, "RWF_DONTCACHE refused (%s)", strerror(errno));
		return -EOPNOTSUPP;
	}
	return -errno;
}

static int wdontcache_init(struct pc_wstream *s)
{
	struct wdontcache *d;
	int fd, ret;

	fd = pcl_wreopen(s, O_RDONLY);
	if (fd < 0) {
		pcl_wset_reason(s, "cannot open the file to probe RWF_DONTCACHE (%s)",
			       strerror(-fd));
		return -EOPNOTSUPP;
	}
	ret = probe(s, fd);
	if (ret)
		goto out_close;
	d = calloc(1, sizeof(*d));
	ret = -ENOMEM;
	if (!d)
		goto out_close;
	*d = (struct wdontcache){ .wait_fd = fd, .lo = UINT64_MAX };
	ret = pcl_wflush_init(s, &d->flusher, fd);
	if (ret) {
		free(d);
		goto out_close;
	}
	s->priv = d;
	return 0;
out_close:
	close(fd);
	return ret;
}

static ssize_t wdontcache_pwrite(struct pc_wstream *s, const void *buf, size_t len,
				 uint64_t off)
{
	struct wdontcache *d = s->priv;
	uint64_t at = off;
	ssize_t n;

	if (s->append)
		at = UINT64_MAX;	/* not known before: see below */
	n = pcl_wflush_pwrite(s, &d->flusher, buf, len, off, RWF_DONTCACHE);
	if (n > 0 && s->append) {
		s->stats.syscalls++;
		at = (uint64_t)lseek(s->fd, 0, SEEK_CUR) - n;
	}
	if (n > 0) {
		d->lo = at < d->lo ? at : d->lo;
		d->hi = at + n > d->hi ? at + n : d->hi;
	}
	return n;
}

/* Wait for the writeback the kernel started and take its error. */
static int wdontcache_finish(struct pc_wstream *s)
{
	struct wdontcache *d = s->priv;
	int ret = pcl_wflush_finish(s, &d->flusher);

	if (ret || d->hi <= d->lo)
		return ret;
	s->stats.syscalls++;
	if (sync_file_range(d->wait_fd, d->lo, d->hi - d->lo,
			    SYNC_FILE_RANGE_WAIT_AFTER) < 0 && errno != EINTR)
		return -errno;
	return 0;
}

static void wdontcache_release(struct pc_wstream *s)
{
	struct wdontcache *d = s->priv;

	pcl_flusher_release(&d->flusher);
	close(d->wait_fd);
	free(d);
	s->priv = NULL;
}

const struct pcl_wstrategy_ops pcl_wstrat_dontcache = {
	.init = wdontcache_init,
	.pwrite = wdontcache_pwrite,
	.finish = wdontcache_finish,
	.release = wdontcache_release,
};
