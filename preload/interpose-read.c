// SPDX-License-Identifier: MIT
/*
 * The read family: read, pread, readv, preadv, preadv2 with their 64-bit and
 * fortified names, and lseek, which moves the offset those read at.  Each
 * read is told to track.c before and after; once a file is read
 * sequentially, read(), pread() and readv() may become preadv2(...,
 * RWF_DONTCACHE), which returns the same bytes; a read() or readv() at the
 * offset of a file direct.c reads ahead is served from its buffers.
 */
#include "interpose.h"

#include <sys/uio.h>
#include <unistd.h>

static off_t seeked(int fd, off_t pos)
{
	int saved = errno;

	if (pos >= 0 && watching()) {
		pl_note_seek(fd, pos);
		errno = saved;
	}
	return pos;
}

/* A name and its 64-bit twin share one body, each calling its own libc name. */
#define HOOK_LSEEK(name, off_type)					\
	PL_EXPORT off_type name(int fd, off_type off, int whence)	\
	{								\
		return seeked(fd, CALL(off_type, name, fd, off, whence)); \
	}

HOOK_LSEEK(lseek, off_t)
HOOK_LSEEK(lseek64, off64_t)

/*
 * Try the read with RWF_DONTCACHE.  Returns 1 with *ret set when the kernel
 * took it, 0 when the caller must do the plain read (DONTCACHE refused; errno
 * is then as it was before).
 */
static int try_dontcache(struct pl_read *r, const struct iovec *iov, int cnt,
			 off_t off, int flags, ssize_t *ret)
{
	int saved = errno;
	ssize_t n;

	if (!r->use_dontcache)
		return 0;
	n = CALL(ssize_t, preadv2, r->fd, iov, cnt, off, flags | RWF_DONTCACHE);
	if (n < 0 && r->file->dontcache < 0 &&
	    (errno == EOPNOTSUPP || errno == EINVAL || errno == ENOSYS)) {
		pl_read_no_dontcache(r);
		errno = saved;
		return 0;
	}
	*ret = n;
	return 1;
}

/* A read at the fd's offset that direct.c served: 1 with *@ret set. */
static inline int try_direct(struct pl_read *r, const struct iovec *iov, int cnt,
			     ssize_t *ret)
{
	return r->direct && r->len && pl_direct_read(r, iov, cnt, r->len, ret);
}

PL_EXPORT ssize_t read(int fd, void *buf, size_t len)
{
	struct iovec iov = { buf, len };
	struct pl_read r;
	ssize_t n;

	if (!watching())
		return CALL(ssize_t, read, fd, buf, len);
	pl_read_begin_direct(&r, fd, len);
	if (!try_direct(&r, &iov, 1, &n) && !try_dontcache(&r, &iov, 1, -1, 0, &n))
		n = CALL(ssize_t, read, fd, buf, len);
	pl_read_end(&r, n);
	return n;
}

static ssize_t pread_common(ssize_t (*fn)(int, void *, size_t, off_t), int fd,
			    void *buf, size_t len, off_t off)
{
	struct iovec iov = { buf, len };
	struct pl_read r;
	ssize_t n;

	if (!fn) {
		errno = ENOSYS;
		return -1;
	}
	if (!watching() || off < 0)
		return fn(fd, buf, len, off);
	pl_read_begin(&r, fd, off, len);
	if (!try_dontcache(&r, &iov, 1, off, 0, &n))
		n = fn(fd, buf, len, off);
	pl_read_end(&r, n);
	return n;
}

#define HOOK_PREAD(name, off_type)					\
	PL_EXPORT ssize_t name(int fd, void *buf, size_t len, off_type off) \
	{								\
		return pread_common(REAL(name), fd, buf, len, off);	\
	}

HOOK_PREAD(pread, off_t)
HOOK_PREAD(pread64, off64_t)

/*
 * readv, preadv and preadv2 through @fn, a plain_* of PL_VECTOR_HOOKS (never
 * NULL): @off -1 reads at the fd's offset.
 */
static ssize_t preadv_common(ssize_t (*fn)(int, const struct iovec *, int, off_t, int),
			     int fd, const struct iovec *iov, int cnt, off_t off,
			     int flags)
{
	struct pl_read r;
	ssize_t n;

	if (!watching_vector(cnt, off))
		return fn(fd, iov, cnt, off, flags);
	if (off == -1 && !flags)
		pl_read_begin_direct(&r, fd, iov_len(iov, cnt));
	else
		pl_read_begin(&r, fd, off, iov_len(iov, cnt));
	if (!try_direct(&r, iov, cnt, &n) && !try_dontcache(&r, iov, cnt, off, flags, &n))
		n = fn(fd, iov, cnt, off, flags);
	pl_read_end(&r, n);
	return n;
}

/* readv, preadv, preadv64, preadv2, preadv64v2 */
PL_VECTOR_HOOKS(read, preadv_common)

/* Fortified read entry points: the check first, then the wrapper above. */
ssize_t __read_chk(int fd, void *buf, size_t len, size_t buflen);
ssize_t __pread_chk(int fd, void *buf, size_t len, off_t off, size_t buflen);
ssize_t __pread64_chk(int fd, void *buf, size_t len, off64_t off, size_t buflen);

PL_EXPORT ssize_t __read_chk(int fd, void *buf, size_t len, size_t buflen)
{
	if (len > buflen)
		return CALL(ssize_t, __read_chk, fd, buf, len, buflen);
	return read(fd, buf, len);
}

PL_EXPORT ssize_t __pread_chk(int fd, void *buf, size_t len, off_t off, size_t buflen)
{
	if (len > buflen)
		return CALL(ssize_t, __pread_chk, fd, buf, len, off, buflen);
	return pread(fd, buf, len, off);
}

PL_EXPORT ssize_t __pread64_chk(int fd, void *buf, size_t len, off64_t off, size_t buflen)
{
	if (len > buflen)
		return CALL(ssize_t, __pread64_chk, fd, buf, len, off, buflen);
	return pread(fd, buf, len, off);
}
