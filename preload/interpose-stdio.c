// SPDX-License-Identifier: MIT
/*
 * The libc functions the shim replaces.  Each one calls the real function,
 * found with dlsym(RTLD_NEXT), with the program's own arguments, and around it
 * tells track.c what happened; the data, return value and errno the program
 * sees are the real function's.  The only change to a call is that, once a
 * file is being read sequentially, read(), pread() and readv() may become
 * preadv2(..., RWF_DONTCACHE), which returns the same bytes.
 *
 * The *64 names are the same functions on 64-bit Linux (off_t is 64 bits),
 * and the shim is built for 64-bit only.
 */
#undef _FILE_OFFSET_BITS	/* define open and open64 as themselves */
#undef _FORTIFY_SOURCE

#include <aio.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "internal.h"
#include "preload.h"

#undef fread_unlocked	/* an inline macro in <bits/stdio.h> */

_Static_assert(sizeof(off_t) == 8, "the shim assumes a 64-bit off_t");

#define PL_EXPORT __attribute__((visibility("default")))

/* The real @name, looked up once; NULL when libc lacks it. */
#define REAL(name)							\
	({								\
		static void *real_;					\
		void *p_ = __atomic_load_n(&real_, __ATOMIC_ACQUIRE);	\
		if (!p_) {						\
			p_ = dlsym(RTLD_NEXT, #name);			\
			__atomic_store_n(&real_, p_, __ATOMIC_RELEASE);	\
		}							\
		(__typeof__(&name))p_;					\
	})

/* Call the real @name, or fail with ENOSYS when libc does not have it. */
#define CALL(ret_type, name, ...)					\
	({								\
		__typeof__(&name) fn_ = REAL(name);			\
		fn_ ? fn_(__VA_ARGS__) : (errno = ENOSYS, (ret_type)-1); \
	})

__attribute__((constructor)) static void pl_init(void)
{
	int saved = errno;

	pl_config_load();
	errno = saved;
}

/*
 * Should a hook look at this call at all?  Not from the shim's own libc calls,
 * not when off, and not in a vfork() child, which shares the parent's memory
 * until it execs: Python's subprocess calls close_range() there.
 */
static int watching(void)
{
	return !pl_busy && pl_cfg.mode != PL_MODE_OFF && !pl_foreign();
}

/* watching() without its system call, for stdio calls made per character:
 * they check pl_foreign() only when the buffer was refilled or flushed. */
static int maybe_watching(void)
{
	return !pl_busy && pl_cfg.mode != PL_MODE_OFF;
}

static int needs_mode(int flags)
{
	return (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE;
}

/* After an open(): track a read-only open, forget a stale entry otherwise. */
static int opened(int fd, int flags, const char *path)
{
	int saved = errno;

	if (fd < 0 || !watching())
		return fd;
	pl_lock();
	if (!(flags & (O_PATH | O_DIRECTORY | O_DIRECT)))
		pl_track_fd(fd, path);	/* readers and writers of regular files */
	else
		pl_table_del(fd);
	pl_unlock();
	if ((flags & O_DIRECT) && (flags & O_ACCMODE) != O_WRONLY)
		pl_note_direct(fd, path);
	errno = saved;
	return fd;
}

/*
 * After an openat(): as opened(), with the path kept for stats only when it
 * names the file by itself.  @path is looked at only once the call has
 * succeeded: a bad pointer is the kernel's to refuse (EFAULT), not ours to
 * dereference.
 */
static int opened_at(int fd, int flags, int dirfd, const char *path)
{
	if (fd < 0)
		return fd;
	return opened(fd, flags, dirfd == AT_FDCWD || path[0] == '/' ? path : NULL);
}

#define MODE_ARG(flags)							\
	mode_t mode = 0;						\
	if (needs_mode(flags)) {					\
		va_list ap;						\
		va_start(ap, flags);					\
		mode = va_arg(ap, mode_t);				\
		va_end(ap);						\
	}

PL_EXPORT int open(const char *path, int flags, ...)
{
	MODE_ARG(flags);
	return opened(CALL(int, open, path, flags, mode), flags, path);
}

PL_EXPORT int open64(const char *path, int flags, ...)
{
	MODE_ARG(flags);
	return opened(CALL(int, open64, path, flags, mode), flags, path);
}

PL_EXPORT int openat(int dirfd, const char *path, int flags, ...)
{
	MODE_ARG(flags);
	return opened_at(CALL(int, openat, dirfd, path, flags, mode), flags, dirfd, path);
}

PL_EXPORT int openat64(int dirfd, const char *path, int flags, ...)
{
	MODE_ARG(flags);
	return opened_at(CALL(int, openat64, dirfd, path, flags, mode), flags, dirfd, path);
}

/* libc's creat() opens through its internal open, which the shim cannot see. */
PL_EXPORT int creat(const char *path, mode_t mode)
{
	return opened(CALL(int, creat, path, mode), O_WRONLY | O_CREAT | O_TRUNC, path);
}

PL_EXPORT int creat64(const char *path, mode_t mode)
{
	return opened(CALL(int, creat64, path, mode), O_WRONLY | O_CREAT | O_TRUNC, path);
}

/* The _FORTIFY_SOURCE entry points (no mode: O_CREAT is not allowed). */
int __open_2(const char *path, int flags);
int __open64_2(const char *path, int flags);
int __openat_2(int dirfd, const char *path, int flags);
int __openat64_2(int dirfd, const char *path, int flags);

PL_EXPORT int __open_2(const char *path, int flags)
{
	return opened(CALL(int, __open_2, path, flags), flags, path);
}

PL_EXPORT int __open64_2(const char *path, int flags)
{
	return opened(CALL(int, __open64_2, path, flags), flags, path);
}

PL_EXPORT int __openat_2(int dirfd, const char *path, int flags)
{
	return opened_at(CALL(int, __openat_2, dirfd, path, flags), flags, dirfd, path);
}

PL_EXPORT int __openat64_2(int dirfd, const char *path, int flags)
{
	return opened_at(CALL(int, __openat64_2, dirfd, path, flags), flags, dirfd, path);
}

/* stdio: "r" and "rb" read only; "r+", "w", "a" also write. */
static FILE *fopened(FILE *fp, const char *mode, const char *path)
{
	if (fp) {
		int rdonly = mode[0] == 'r' && !strchr(mode, '+');

		opened(fileno(fp), rdonly ? O_RDONLY : O_RDWR, path);	/* flags: the fd's own */
	}
	return fp;
}

PL_EXPORT FILE *fopen(const char *path, const char *mode)
{
	return fopened(CALL(FILE *, fopen, path, mode), mode, path);
}

PL_EXPORT FILE *fopen64(const char *path, const char *mode)
{
	return fopened(CALL(FILE *, fopen64, path, mode), mode, path);
}

static void closing(int fd)
{
	if (fd >= 0 && watching())
		pl_note_close(fd);
}

PL_EXPORT FILE *freopen(const char *path, const char *mode, FILE *fp)
{
	closing(fileno(fp));
	return fopened(CALL(FILE *, freopen, path, mode, fp), mode, path);
}

PL_EXPORT FILE *freopen64(const char *path, const char *mode, FILE *fp)
{
	closing(fileno(fp));
	return fopened(CALL(FILE *, freopen64, path, mode, fp), mode, path);
}

static size_t wpending(const FILE *fp);
static int countable(const FILE *fp);

/*
 * fclose() writes what the stream holds, then closes: a writer is held
 * open through a duplicate of its own (pl_writer_hold) until that last
 * flush is counted and dropped.
 */
PL_EXPORT int fclose(FILE *fp)
{
	int fd = fileno(fp), held = -1, r;
	int64_t n = -1;

	if (fd >= 0 && watching()) {
		if (wpending(fp))
			held = pl_writer_hold(fd);
		if (countable(fp))
			n = (int64_t)wpending(fp);
		pl_note_close(fd);
	}
	r = CALL(int, fclose, fp);
	if (held >= 0)
		pl_writer_unhold(held, r ? -1 : n);
	return r;
}

PL_EXPORT int close(int fd)
{
	closing(fd);
	return CALL(int, close, fd);
}

static void forget_range(unsigned int lo, unsigned int hi)
{
	int saved = errno;

	if (!watching())
		return;
	pl_lock();
	pl_table_each(lo, hi, pl_table_del);
	pl_unlock();
	errno = saved;
}

PL_EXPORT int close_range(unsigned int lo, unsigned int hi, int flags)
{
	if (!(flags & CLOSE_RANGE_CLOEXEC))
		forget_range(lo, hi);
	return CALL(int, close_range, lo, hi, flags);
}

PL_EXPORT void closefrom(int lo)
{
	void (*fn)(int) = REAL(closefrom);

	forget_range(lo < 0 ? 0 : lo, ~0u);
	if (fn)
		fn(lo);
}

static int duped(int oldfd, int newfd)
{
	if (newfd >= 0 && watching())
		pl_note_dup(oldfd, newfd);
	return newfd;
}

PL_EXPORT int dup(int fd)
{
	return duped(fd, CALL(int, dup, fd));
}

PL_EXPORT int dup2(int oldfd, int newfd)
{
	if (oldfd != newfd && watching() && fcntl(oldfd, F_GETFD) >= 0)
		closing(newfd);
	return duped(oldfd, CALL(int, dup2, oldfd, newfd));
}

PL_EXPORT int dup3(int oldfd, int newfd, int flags)
{
	if (oldfd != newfd && watching() && fcntl(oldfd, F_GETFD) >= 0)
		closing(newfd);
	return duped(oldfd, CALL(int, dup3, oldfd, newfd, flags));
}

static int fcntl_common(int (*fn)(int, int, ...), int fd, int cmd, void *arg)
{
	int ret;

	if (!fn) {
		errno = ENOSYS;
		return -1;
	}
	ret = fn(fd, cmd, arg);
	if (cmd == F_DUPFD || cmd == F_DUPFD_CLOEXEC)
		duped(fd, ret);
	return ret;
}

PL_EXPORT int fcntl(int fd, int cmd, ...)
{
	va_list ap;
	void *arg;

	va_start(ap, cmd);
	arg = va_arg(ap, void *);
	va_end(ap);
	return fcntl_common(REAL(fcntl), fd, cmd, arg);
}

int fcntl64(int fd, int cmd, ...);

PL_EXPORT int fcntl64(int fd, int cmd, ...)
{
	va_list ap;
	void *arg;

	va_start(ap, cmd);
	arg = va_arg(ap, void *);
	va_end(ap);
	return fcntl_common(REAL(fcntl64), fd, cmd, arg);
}

static off_t seeked(int fd, off_t pos)
{
	int saved = errno;

	if (pos >= 0 && watching()) {
		pl_note_seek(fd, pos);
		errno = saved;
	}
	return pos;
}

PL_EXPORT off_t lseek(int fd, off_t off, int whence)
{
	return seeked(fd, CALL(off_t, lseek, fd, off, whence));
}

PL_EXPORT off64_t lseek64(int fd, off64_t off, int whence)
{
	return seeked(fd, CALL(off64_t, lseek64, fd, off, whence));
}

static void *mapped(void *map, int flags, int fd)
{
	int saved = errno;

	if (map != MAP_FAILED && fd >= 0 && !(flags & MAP_ANONYMOUS) && watching()) {
		pl_note_mmap(fd);
		errno = saved;
	}
	return map;
}

PL_EXPORT void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	void *(*fn)(void *, size_t, int, int, int, off_t) = REAL(mmap);

	if (!fn) {
		errno = ENOSYS;
		return MAP_FAILED;
	}
	return mapped(fn(addr, len, prot, flags, fd, off), flags, fd);
}

PL_EXPORT void *mmap64(void *addr, size_t len, int prot, int flags, int fd, off64_t off)
{
	void *(*fn)(void *, size_t, int, int, int, off64_t) = REAL(mmap64);

	if (!fn) {
		errno = ENOSYS;
		return MAP_FAILED;
	}
	return mapped(fn(addr, len, prot, flags, fd, off), flags, fd);
}

static size_t iov_len(const struct iovec *iov, int cnt)
{
	size_t len = 0;

	for (int i = 0; i < cnt; i++)
		len += iov[i].iov_len;
	return len;
}

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

PL_EXPORT ssize_t read(int fd, void *buf, size_t len)
{
	struct iovec iov = { buf, len };
	struct pl_read r;
	ssize_t n;

	if (!watching())
		return CALL(ssize_t, read, fd, buf, len);
	pl_read_begin(&r, fd, -1, len);
	if (!try_dontcache(&r, &iov, 1, -1, 0, &n))
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

PL_EXPORT ssize_t pread(int fd, void *buf, size_t len, off_t off)
{
	return pread_common(REAL(pread), fd, buf, len, off);
}

PL_EXPORT ssize_t pread64(int fd, void *buf, size_t len, off64_t off)
{
	return pread_common(REAL(pread64), fd, buf, len, off);
}

/* readv, preadv and preadv2: @off -1 reads at the fd's offset. */
static ssize_t preadv_common(ssize_t (*fn)(int, const struct iovec *, int, off_t, int),
			     int fd, const struct iovec *iov, int cnt, off_t off,
			     int flags)
{
	struct pl_read r;
	ssize_t n;

	if (!fn) {
		errno = ENOSYS;
		return -1;
	}
	if (!watching() || off < -1 || cnt < 0)
		return fn(fd, iov, cnt, off, flags);
	pl_read_begin(&r, fd, off, iov_len(iov, cnt));
	if (!try_dontcache(&r, iov, cnt, off, flags, &n))
		n = fn(fd, iov, cnt, off, flags);
	pl_read_end(&r, n);
	return n;
}

static ssize_t plain_readv(int fd, const struct iovec *iov, int cnt, off_t off, int flags)
{
	return CALL(ssize_t, readv, fd, iov, cnt);
}

static ssize_t plain_preadv(int fd, const struct iovec *iov, int cnt, off_t off, int flags)
{
	return CALL(ssize_t, preadv, fd, iov, cnt, off);
}

static ssize_t plain_preadv2(int fd, const struct iovec *iov, int cnt, off_t off, int flags)
{
	return CALL(ssize_t, preadv2, fd, iov, cnt, off, flags);
}

PL_EXPORT ssize_t readv(int fd, const struct iovec *iov, int cnt)
{
	return preadv_common(plain_readv, fd, iov, cnt, -1, 0);
}

PL_EXPORT ssize_t preadv(int fd, const struct iovec *iov, int cnt, off_t off)
{
	if (off < 0)
		return CALL(ssize_t, preadv, fd, iov, cnt, off);
	return preadv_common(plain_preadv, fd, iov, cnt, off, 0);
}

PL_EXPORT ssize_t preadv64(int fd, const struct iovec *iov, int cnt, off64_t off)
{
	return preadv(fd, iov, cnt, off);
}

PL_EXPORT ssize_t preadv2(int fd, const struct iovec *iov, int cnt, off_t off, int flags)
{
	return preadv_common(plain_preadv2, fd, iov, cnt, off, flags);
}

PL_EXPORT ssize_t preadv64v2(int fd, const struct iovec *iov, int cnt, off64_t off, int flags)
{
	return preadv2(fd, iov, cnt, off, flags);
}

/* Fortified read entry points: the check first, then the wrapper above. */
ssize_t __read_chk(int fd, void *buf, size_t len, size_t buflen);
ssize_t __pread_chk(int fd, void *buf, size_t len, off_t off, size_t buflen);
ssize_t __pread64_chk(int fd, void *buf, size_t len, off64_t off, size_t buflen);
size_t __fread_chk(void *buf, size_t buflen, size_t size, size_t n, FILE *fp);
size_t __fread_unlocked_chk(void *buf, size_t buflen, size_t size, size_t n, FILE *fp);

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

/* fread: the bytes handed out advance the file as a read at its offset. */
static size_t fread_common(size_t (*fn)(void *, size_t, size_t, FILE *), int fd,
			   void *buf, size_t size, size_t n, FILE *fp)
{
	struct pl_read r;
	size_t got;

	if (!fn)
		return 0;
	if (!watching() || fd < 0)
		return fn(buf, size, n, fp);
	pl_read_begin(&r, fd, -1, size * n);
	r.use_dontcache = 0;
	r.stdio = 1;
	got = fn(buf, size, n, fp);
	pl_read_end(&r, (int64_t)(got * size));
	return got;
}

PL_EXPORT size_t fread(void *buf, size_t size, size_t n, FILE *fp)
{
	return fread_common(REAL(fread), fileno(fp), buf, size, n, fp);
}

PL_EXPORT size_t fread_unlocked(void *buf, size_t size, size_t n, FILE *fp)
{
	return fread_common(REAL(fread_unlocked), fileno_unlocked(fp), buf, size, n, fp);
}

PL_EXPORT size_t __fread_chk(void *buf, size_t buflen, size_t size, size_t n, FILE *fp)
{
	if (size && n > buflen / size)
		return CALL(size_t, __fread_chk, buf, buflen, size, n, fp);
	return fread(buf, size, n, fp);
}

PL_EXPORT size_t __fread_unlocked_chk(void *buf, size_t buflen, size_t size, size_t n,
				      FILE *fp)
{
	if (size && n > buflen / size)
		return CALL(size_t, __fread_unlocked_chk, buf, buflen, size, n, fp);
	return fread_unlocked(buf, size, n, fp);
}

/*
 * The rest of stdio's readers (getc, getline, fgets) refill their buffer
 * through libc's internal read(), which no preload sees.  Around each call the
 * shim notes where the buffer pointer was; when it did not move by what the
 * call consumed, the buffer was refilled, and one lseek() tells how far the
 * stream has read the file.  No system call otherwise.
 */
struct stdio_probe {
	FILE *fp;
	char *ptr;
};

static void stdio_before(struct stdio_probe *p, FILE *fp)
{
	p->fp = maybe_watching() && fp ? fp : NULL;
	if (p->fp)
		p->ptr = fp->_IO_read_ptr;
}

static void stdio_after(const struct stdio_probe *p, size_t consumed, int refilled)
{
	int fd;

	if (!p->fp || (!refilled && p->fp->_IO_read_ptr == p->ptr + consumed) || pl_foreign())
		return;
	fd = fileno_unlocked(p->fp);
	if (fd >= 0)
		pl_note_stdio(fd);
}

/*
 * A byte already in the buffer is handed out here, as libc's getc does
 * (glibc takes the stream's lock only once the process has a second thread,
 * _IO_FLAGS2_NEED_LOCK): a getc loop pays for the shim only per refill.
 */
#define PL_IO_FLAGS2_NEED_LOCK 128
enum { PL_UNLOCKED, PL_LOCKED, PL_REFILL };	/* which kind of getc */
#define BUFFERED(fp, kind)						\
	((kind) != PL_REFILL && (fp) &&					\
	 ((kind) == PL_UNLOCKED || !((fp)->_flags2 & PL_IO_FLAGS2_NEED_LOCK)) && \
	 (fp)->_IO_read_ptr < (fp)->_IO_read_end)

#define STDIO_CHAR(name, kind, ...)					\
	PL_EXPORT int name(FILE *fp)					\
	{								\
		struct stdio_probe p;					\
		int c;							\
									\
		if (BUFFERED(fp, kind))					\
			return *(unsigned char *)fp->_IO_read_ptr++;	\
		stdio_before(&p, fp);					\
		c = CALL(int, name, fp);				\
		stdio_after(&p, c != EOF, __VA_ARGS__);			\
		return c;						\
	}

#undef getc
#undef getc_unlocked
#undef fgetc_unlocked
int _IO_getc(FILE *fp);
int __uflow(FILE *fp);
int __underflow(FILE *fp);
STDIO_CHAR(getc, PL_LOCKED, 0)
STDIO_CHAR(fgetc, PL_LOCKED, 0)
STDIO_CHAR(_IO_getc, PL_LOCKED, 0)
STDIO_CHAR(getc_unlocked, PL_UNLOCKED, 0)
STDIO_CHAR(fgetc_unlocked, PL_UNLOCKED, 0)
/* What the getc_unlocked() macro calls when the buffer is empty. */
STDIO_CHAR(__uflow, PL_REFILL, 1)
STDIO_CHAR(__underflow, PL_REFILL, 1)

ssize_t __getdelim(char **line, size_t *n, int delim, FILE *fp);

#define STDIO_DELIM(name, ...)						\
	{								\
		struct stdio_probe p;					\
		ssize_t got;						\
									\
		stdio_before(&p, fp);					\
		got = CALL(ssize_t, name, __VA_ARGS__);			\
		stdio_after(&p, got > 0 ? (size_t)got : 0, 0);		\
		return got;						\
	}

PL_EXPORT ssize_t getdelim(char **line, size_t *n, int delim, FILE *fp)
STDIO_DELIM(getdelim, line, n, delim, fp)

PL_EXPORT ssize_t __getdelim(char **line, size_t *n, int delim, FILE *fp)
STDIO_DELIM(__getdelim, line, n, delim, fp)

PL_EXPORT ssize_t getline(char **line, size_t *n, FILE *fp)
STDIO_DELIM(getline, line, n, fp)

#define STDIO_GETS(name)						\
	PL_EXPORT char *name(char *s, int size, FILE *fp)		\
	{								\
		struct stdio_probe p;					\
		char *got;						\
									\
		stdio_before(&p, fp);					\
		got = CALL(char *, name, s, size, fp);			\
		stdio_after(&p, got ? strlen(got) : 0, 0);		\
		return got;						\
	}

char *fgets_unlocked(char *s, int size, FILE *fp);
STDIO_GETS(fgets)
STDIO_GETS(fgets_unlocked)

/* write, pwrite, writev, pwritev, pwritev2: @off -1 writes at the fd's offset. */
static ssize_t pwritev_common(ssize_t (*fn)(int, const struct iovec *, int, off_t, int),
			      int fd, const struct iovec *iov, int cnt, off_t off, int flags)
{
	struct pl_write w;
	ssize_t n;

	if (!fn) {
		errno = ENOSYS;
		return -1;
	}
	if (!watching() || off < -1 || cnt < 0)
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

static ssize_t plain_writev(int fd, const struct iovec *iov, int cnt, off_t off, int flags)
{
	return CALL(ssize_t, writev, fd, iov, cnt);
}

static ssize_t plain_pwritev(int fd, const struct iovec *iov, int cnt, off_t off, int flags)
{
	return CALL(ssize_t, pwritev, fd, iov, cnt, off);
}

static ssize_t plain_pwritev2(int fd, const struct iovec *iov, int cnt, off_t off, int flags)
{
	return CALL(ssize_t, pwritev2, fd, iov, cnt, off, flags);
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

PL_EXPORT ssize_t writev(int fd, const struct iovec *iov, int cnt)
{
	return pwritev_common(plain_writev, fd, iov, cnt, -1, 0);
}

PL_EXPORT ssize_t pwritev(int fd, const struct iovec *iov, int cnt, off_t off)
{
	if (off < 0)
		return CALL(ssize_t, pwritev, fd, iov, cnt, off);
	return pwritev_common(plain_pwritev, fd, iov, cnt, off, 0);
}

PL_EXPORT ssize_t pwritev64(int fd, const struct iovec *iov, int cnt, off64_t off)
{
	return pwritev(fd, iov, cnt, off);
}

PL_EXPORT ssize_t pwritev2(int fd, const struct iovec *iov, int cnt, off_t off, int flags)
{
	return pwritev_common(plain_pwritev2, fd, iov, cnt, off, flags);
}

PL_EXPORT ssize_t pwritev64v2(int fd, const struct iovec *iov, int cnt, off64_t off, int flags)
{
	return pwritev2(fd, iov, cnt, off, flags);
}

/*
 * stdio writers flush their buffer through libc's internal write(): when a
 * call's write pointer did not move by what it took, the buffer went out.
 * How much went out is counted from the stream's own pointers, with no
 * system call: what was pending before, plus what the call took, less what
 * is pending after.  That is exact for a byte stream that only writes and
 * met no error; for the rest (a stream that also reads, a wide stream, an
 * error) the shim asks the kernel where the offset is.
 */
#define PL_IO_NO_READS 0x0004	/* glibc's _IO_NO_READS: a stream that only writes */
#ifndef _IO_ERR_SEEN
#define _IO_ERR_SEEN 0x0020
#endif

struct stdio_wprobe {
	FILE *fp;
	char *ptr;
	size_t pending;
};

static size_t wpending(const FILE *fp)
{
	return fp->_IO_write_ptr > fp->_IO_write_base ?
	       (size_t)(fp->_IO_write_ptr - fp->_IO_write_base) : 0;
}

static void wprobe_before(struct stdio_wprobe *p, FILE *fp)
{
	p->fp = maybe_watching() && fp ? fp : NULL;
	if (p->fp) {
		p->ptr = fp->_IO_write_ptr;
		p->pending = wpending(fp);
	}
}

/*
 * Bytes a call wrote to the fd: @pending before, @consumed taken, @now
 * pending after; -1 when the pointers cannot tell.
 */
static int64_t stream_count(size_t pending, size_t consumed, size_t now)
{
	if (consumed == (size_t)-1 || pending + consumed < now)
		return -1;
	return (int64_t)(pending + consumed - now);
}

static int countable(const FILE *fp)
{
	return (fp->_flags & PL_IO_NO_READS) && fp->_mode <= 0 && !(fp->_flags & _IO_ERR_SEEN);
}

static int64_t wprobe_count(const struct stdio_wprobe *p, size_t consumed)
{
	if (!countable(p->fp))
		return -1;
	return stream_count(p->pending, consumed, wpending(p->fp));
}

static void wprobe_after(const struct stdio_wprobe *p, size_t consumed)
{
	int fd;

	if (!p->fp || p->fp->_IO_write_ptr == p->ptr + consumed || pl_foreign())
		return;
	fd = fileno_unlocked(p->fp);
	if (fd >= 0)
		pl_note_stdio_write(fd, wprobe_count(p, consumed));
}

void pl_flush_stdout(void)
{
	struct stdio_wprobe p;
	int fd;

	if (!stdout || !watching() || !wpending(stdout) || ftrylockfile(stdout))
		return;		/* another thread writes it: left to exit() */
	fd = fileno_unlocked(stdout);
	if (fd >= 0 && pl_is_writer(fd)) {
		wprobe_before(&p, stdout);
		CALL(int, fflush_unlocked, stdout);
		wprobe_after(&p, 0);
	}
	funlockfile(stdout);
}

#define STDIO_W(ret_type, name, fp_arg, consumed, params, ...)		\
	PL_EXPORT ret_type name params					\
	{								\
		struct stdio_wprobe p;					\
		ret_type r;						\
									\
		wprobe_before(&p, fp_arg);				\
		r = CALL(ret_type, name, __VA_ARGS__);			\
		wprobe_after(&p, consumed);				\
		return r;						\
	}

#undef fwrite_unlocked
#undef fputc_unlocked
#undef putc
#undef putc_unlocked
size_t fwrite_unlocked(const void *buf, size_t size, size_t n, FILE *fp);
int fputs_unlocked(const char *s, FILE *fp);
int _IO_putc(int c, FILE *fp);
int __overflow(FILE *fp, int c);

STDIO_W(size_t, fwrite, fp, r * size, (const void *buf, size_t size, size_t n, FILE *fp),
	buf, size, n, fp)
STDIO_W(size_t, fwrite_unlocked, fp, r * size,
	(const void *buf, size_t size, size_t n, FILE *fp), buf, size, n, fp)
STDIO_W(int, fputs, fp, r >= 0 ? strlen(s) : 0, (const char *s, FILE *fp), s, fp)
STDIO_W(int, fputs_unlocked, fp, r >= 0 ? strlen(s) : 0, (const char *s, FILE *fp), s, fp)
STDIO_W(int, fputc, fp, r != EOF, (int c, FILE *fp), c, fp)
STDIO_W(int, putc, fp, r != EOF, (int c, FILE *fp), c, fp)
STDIO_W(int, _IO_putc, fp, r != EOF, (int c, FILE *fp), c, fp)
STDIO_W(int, fputc_unlocked, fp, r != EOF, (int c, FILE *fp), c, fp)
STDIO_W(int, putc_unlocked, fp, r != EOF, (int c, FILE *fp), c, fp)
/* What the putc_unlocked() macro calls when the buffer is full (@c EOF:
 * only flush). */
STDIO_W(int, __overflow, fp, c != EOF && r != EOF ? 1 : 0, (FILE *fp, int c), fp, c)
STDIO_W(int, fflush, fp, 0, (FILE *fp), fp)
/* gnulib's unlocked-io.h makes coreutils call it for fflush() */
STDIO_W(int, fflush_unlocked, fp, 0, (FILE *fp), fp)
STDIO_W(int, puts, stdout, r >= 0 ? strlen(s) + 1 : 0, (const char *s), s)
STDIO_W(int, vfprintf, fp, r > 0 ? (size_t)r : 0, (FILE *fp, const char *fmt, va_list ap),
	fp, fmt, ap)
STDIO_W(int, vprintf, stdout, r > 0 ? (size_t)r : 0, (const char *fmt, va_list ap), fmt, ap)

PL_EXPORT int fprintf(FILE *fp, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = vfprintf(fp, fmt, ap);
	va_end(ap);
	return r;
}

PL_EXPORT int printf(const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = vfprintf(stdout, fmt, ap);
	va_end(ap);
	return r;
}

int __vfprintf_chk(FILE *fp, int flag, const char *fmt, va_list ap);
int __fprintf_chk(FILE *fp, int flag, const char *fmt, ...);
int __printf_chk(int flag, const char *fmt, ...);
STDIO_W(int, __vfprintf_chk, fp, r > 0 ? (size_t)r : 0,
	(FILE *fp, int flag, const char *fmt, va_list ap), fp, flag, fmt, ap)

PL_EXPORT int __fprintf_chk(FILE *fp, int flag, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = __vfprintf_chk(fp, flag, fmt, ap);
	va_end(ap);
	return r;
}

PL_EXPORT int __printf_chk(int flag, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = __vfprintf_chk(stdout, flag, fmt, ap);
	va_end(ap);
	return r;
}

/*
 * In-kernel copies read the source like read() does: at *@off when given
 * (the fd's offset does not move), else at the fd's offset.  To a file the
 * shim writes behind, they are made in pieces of PL_WRITE_PIECE, so that the
 * flusher can work between them; the pieces add up to what one call returns
 * (the kernel copies in such pieces too, and stops at the same places: end
 * of the source, an error after some bytes, which it reports as a short count).
 */
static ssize_t copy_piece(int kind, int out, int in, loff_t *off_in, loff_t *off_out,
			  size_t len, unsigned int flags)
{
	struct pl_write w;
	struct pl_read r;
	ssize_t n;

	pl_read_begin(&r, in, off_in ? *off_in : -1, len);
	r.use_dontcache = 0;
	pl_write_begin(&w, out, off_out ? *off_out : -1, len);
	if (kind == 0)
		n = CALL(ssize_t, sendfile, out, in, (off_t *)off_in, len);
	else if (kind == 1)
		n = CALL(ssize_t, splice, in, off_in, out, off_out, len, flags);
	else
		n = CALL(ssize_t, copy_file_range, in, off_in, out, off_out, len, flags);
	pl_write_end(&w, n);
	pl_read_end(&r, n);
	return n;
}

/*
 * Source and destination are one file: the kernel checks the whole call for
 * overlap (EINVAL), which pieces could each pass, so such a call is not split.
 */
static int same_file(int a, int b)
{
	struct stat sa, sb;
	int saved = errno, same;

	same = !fstat(a, &sa) && !fstat(b, &sb) && sa.st_dev == sb.st_dev &&
	       sa.st_ino == sb.st_ino;
	errno = saved;	/* the program sees only the copy's errno */
	return same;
}

static ssize_t copy_common(int kind, int out, int in, loff_t *off_in, loff_t *off_out,
			   size_t len, unsigned int flags)
{
	ssize_t total = 0, n;

	if (kind == 1 || len <= PL_WRITE_PIECE || !pl_is_writer(out) || same_file(in, out))
		return copy_piece(kind, out, in, off_in, off_out, len, flags);
	while ((size_t)total < len) {
		size_t piece = len - total < PL_WRITE_PIECE ? len - total : PL_WRITE_PIECE;
		int saved = errno;

		n = copy_piece(kind, out, in, off_in, off_out, piece, flags);
		if (n < 0 && total > 0) {
			errno = saved;	/* some bytes went: the call reports those */
			break;
		}
		if (n < 0)
			return n;
		total += n;
		if ((size_t)n < piece)
			break;
	}
	return total;
}

PL_EXPORT ssize_t sendfile(int out, int in, off_t *off, size_t count)
{
	if (!watching())
		return CALL(ssize_t, sendfile, out, in, off, count);
	return copy_common(0, out, in, (loff_t *)off, NULL, count, 0);
}

PL_EXPORT ssize_t sendfile64(int out, int in, off64_t *off, size_t count)
{
	return sendfile(out, in, off, count);
}

PL_EXPORT ssize_t splice(int in, loff_t *off_in, int out, loff_t *off_out,
			 size_t len, unsigned int flags)
{
	if (!watching())
		return CALL(ssize_t, splice, in, off_in, out, off_out, len, flags);
	return copy_common(1, out, in, off_in, off_out, len, flags);
}

PL_EXPORT ssize_t copy_file_range(int in, loff_t *off_in, int out, loff_t *off_out,
				  size_t len, unsigned int flags)
{
	if (!watching())
		return CALL(ssize_t, copy_file_range, in, off_in, out, off_out, len, flags);
	return copy_common(2, out, in, off_in, off_out, len, flags);
}

/*
 * _exit() skips destructors: a child that reads and leaves with _exit() still
 * gets its final drops and stats lines (exit() reaches the destructor).
 */
PL_EXPORT void _exit(int status)
{
	void (*fn)(int) = REAL(_exit);

	pl_track_exit();
	if (fn)
		fn(status);
	syscall(SYS_exit_group, status);
	__builtin_unreachable();
}

PL_EXPORT void _Exit(int status)
{
	void (*fn)(int) = REAL(_Exit);

	pl_track_exit();
	if (fn)
		fn(status);
	syscall(SYS_exit_group, status);
	__builtin_unreachable();
}

/*
 * Reads the shim cannot follow: it says so in the stats and keeps its hands
 * off.  POSIX AIO names the fd; libaio and io_uring (liburing) submit
 * through the kernel where no libc read is made.
 */
static void aio_reads(int fd)
{
	if (fd >= 0 && watching())
		pl_note_unseen(fd, "read with POSIX AIO (aio_read, lio_listio): "
			       "not tracked, the shim did not act");
}

/* glibc declares these nonnull; a program may still pass NULL to libc. */
#define UNCHECKED(p) ({ __typeof__(p) volatile p_ = (p); p_; })

PL_EXPORT int aio_read(struct aiocb *cb)
{
	if (UNCHECKED(cb))
		aio_reads(cb->aio_fildes);
	return CALL(int, aio_read, cb);
}

PL_EXPORT int aio_read64(struct aiocb64 *cb)
{
	if (UNCHECKED(cb))
		aio_reads(cb->aio_fildes);
	return CALL(int, aio_read64, cb);
}

PL_EXPORT int lio_listio(int mode, struct aiocb *const list[], int n, struct sigevent *sev)
{
	for (int i = 0; UNCHECKED(list) && i < n; i++)
		if (list[i] && list[i]->aio_lio_opcode == LIO_READ)
			aio_reads(list[i]->aio_fildes);
	return CALL(int, lio_listio, mode, list, n, sev);
}

PL_EXPORT int lio_listio64(int mode, struct aiocb64 *const list[], int n, struct sigevent *sev)
{
	for (int i = 0; UNCHECKED(list) && i < n; i++)
		if (list[i] && list[i]->aio_lio_opcode == LIO_READ)
			aio_reads(list[i]->aio_fildes);
	return CALL(int, lio_listio64, mode, list, n, sev);
}

static const char no_ring[] =
	"io_uring in use (liburing): its reads are not seen, the shim did not act on them";
static const char no_libaio[] =
	"libaio in use (io_setup): its reads are not seen, the shim did not act on them";

struct io_uring;
struct io_uring_params;
int io_uring_queue_init(unsigned entries, struct io_uring *ring, unsigned flags);
int io_uring_queue_init_params(unsigned entries, struct io_uring *ring,
			       struct io_uring_params *p);
int io_setup(unsigned nr, void **ctx);

PL_EXPORT int io_uring_queue_init(unsigned entries, struct io_uring *ring, unsigned flags)
{
	if (watching())
		pl_note_process(no_ring);
	return CALL(int, io_uring_queue_init, entries, ring, flags);
}

PL_EXPORT int io_uring_queue_init_params(unsigned entries, struct io_uring *ring,
					 struct io_uring_params *p)
{
	if (watching())
		pl_note_process(no_ring);
	return CALL(int, io_uring_queue_init_params, entries, ring, p);
}

PL_EXPORT int io_setup(unsigned nr, void **ctx)
{
	if (watching())
		pl_note_process(no_libaio);
	return CALL(int, io_setup, nr, ctx);
}
