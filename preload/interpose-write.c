// SPDX-License-Identifier: MIT
/*
 * The write family: write, pwrite, writev, pwritev, pwritev2 and their 64-bit
 * names.  Each write is told to write.c before and after, which starts the
 * writeback of a file written sequentially and drops it once it is on disk.
 * ftruncate, truncate and fallocate change a file without a write: they are
 * told to direct.c, whose readers forget what they read ahead of it.
 */
#include "interpose.h"

#include <fcntl.h>
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

/*
 * Calls that change a file's bytes without writing them: what a direct
 * reader of the file read ahead goes (direct.c).
 */
static int changed(int ret, int fd)
{
	if (!ret && watching())
		pl_note_changed(fd);
	return ret;
}

#define HOOK_FTRUNCATE(name, off_type)					\
	PL_EXPORT int name(int fd, off_type len)			\
	{								\
		return changed(CALL(int, name, fd, len), fd);		\
	}

#define HOOK_TRUNCATE(name, off_type)					\
	PL_EXPORT int name(const char *path, off_type len)		\
	{								\
		int ret = CALL(int, name, path, len);			\
									\
		if (!ret && watching())					\
			pl_note_changed_path(path);			\
		return ret;						\
	}

#define HOOK_FALLOCATE(name, off_type)					\
	PL_EXPORT int name(int fd, int mode, off_type off, off_type len) \
	{								\
		return changed(CALL(int, name, fd, mode, off, len), fd); \
	}

HOOK_FTRUNCATE(ftruncate, off_t)
HOOK_FTRUNCATE(ftruncate64, off64_t)
HOOK_TRUNCATE(truncate, off_t)
HOOK_TRUNCATE(truncate64, off64_t)
HOOK_FALLOCATE(fallocate, off_t)
HOOK_FALLOCATE(fallocate64, off64_t)
