// SPDX-License-Identifier: MIT
/*
 * The write family: write, pwrite, writev, pwritev, pwritev2 and their 64-bit
 * names.  Each write is told to write.c before and after, which starts the
 * writeback of a file written sequentially and drops it once it is on disk.
 */
#include "interpose.h"

#include <sys/uio.h>
#include <unistd.h>

/*
 * write, pwrite, writev, pwritev, pwritev2 through @fn, a plain_* here or of
 * PL_VECTOR_HOOKS (never NULL): @off -1 writes at the fd's offset.
 */
static inline ssize_t pwritev_common(ssize_t (*fn)(int, const struct iovec *, int, off_t, int),
				     int fd, const struct iovec *iov, int cnt, off_t off, int flags)
{
	struct pl_write w;
	ssize_t n;

	if (!watching_vector(cnt, off))
		return fn(fd, iov, cnt, off, flags);
	pl_write_begin(&w, fd, off, iov_len(iov, cnt));
	n = fn(fd, iov, cnt, off, flags);
	pl_write_end(&w, n);
	return n;
}

static ssize_t plain_write(int fd, const struct iovec *iov, int cnt, off_t off, int flags)
{
	return CALL(ssize_t, write, fd, iov->iov_base, iov->iov_len);
}

static ssize_t plain_pwrite(int fd, const struct iovec *iov, int cnt, off_t off, int flags)
{
	return CALL(ssize_t, pwrite, fd, iov->iov_base, iov->iov_len, off);
}

PL_EXPORT ssize_t write(int fd, const void *buf, size_t len)
{
	struct iovec iov = { (void *)buf, len };

	return pwritev_common(plain_write, fd, &iov, 1, -1, 0);
}

PL_EXPORT ssize_t pwrite(int fd, const void *buf, size_t len, off_t off)
{
	struct iovec iov = { (void *)buf, len };

	if (off < 0)
		return CALL(ssize_t, pwrite, fd, buf, len, off);
	return pwritev_common(plain_pwrite, fd, &iov, 1, off, 0);
}

PL_EXPORT ssize_t pwrite64(int fd, const void *buf, size_t len, off64_t off)
{
	return pwrite(fd, buf, len, off);
}

/* writev, pwritev, pwritev64, pwritev2, pwritev64v2 */
PL_VECTOR_HOOKS(write, pwritev_common)
