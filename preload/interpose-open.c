// SPDX-License-Identifier: MIT
/*
 * The open, close and dup family: open and openat with their 64-bit and
 * fortified names, creat, fopen and freopen, close, close_range, closefrom,
 * dup, dup2, dup3 and fcntl's F_DUPFD.  They keep the shim's table of fds
 * (table.c) in step with the program's: a file opened is tracked, a closed
 * or reused fd forgotten, a duplicate shares its file.
 */
#include "interpose.h"

#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int needs_mode(int flags)
{
	return (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE;
}

/* After an open(): track a read-only open, forget a stale entry otherwise. */
static inline int opened(int fd, int flags, const char *path)
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

/*
 * A name and its 64-bit twin (open and open64, ...) share one body, each
 * name calling its own libc function.
 */
#define HOOK_OPEN(name)							\
	PL_EXPORT int name(const char *path, int flags, ...)		\
	{								\
		MODE_ARG(flags);					\
		return opened(CALL(int, name, path, flags, mode), flags, path); \
	}

#define HOOK_OPENAT(name)						\
	PL_EXPORT int name(int dirfd, const char *path, int flags, ...)	\
	{								\
		MODE_ARG(flags);					\
		return opened_at(CALL(int, name, dirfd, path, flags, mode), flags, \
				 dirfd, path);				\
	}

/* libc's creat() opens through its internal open, which the shim cannot see. */
#define HOOK_CREAT(name)						\
	PL_EXPORT int name(const char *path, mode_t mode)		\
	{								\
		return opened(CALL(int, name, path, mode),		\
			      O_WRONLY | O_CREAT | O_TRUNC, path);	\
	}

/* The _FORTIFY_SOURCE entry points (no mode: O_CREAT is not allowed). */
#define HOOK_OPEN_2(name)						\
	PL_EXPORT int name(const char *path, int flags)		\
	{								\
		return opened(CALL(int, name, path, flags), flags, path); \
	}

#define HOOK_OPENAT_2(name)						\
	PL_EXPORT int name(int dirfd, const char *path, int flags)	\
	{								\
		return opened_at(CALL(int, name, dirfd, path, flags), flags, dirfd, path); \
	}

int __open_2(const char *path, int flags);
int __open64_2(const char *path, int flags);
int __openat_2(int dirfd, const char *path, int flags);
int __openat64_2(int dirfd, const char *path, int flags);

HOOK_OPEN(open)
HOOK_OPEN(open64)
HOOK_OPENAT(openat)
HOOK_OPENAT(openat64)
HOOK_CREAT(creat)
HOOK_CREAT(creat64)
HOOK_OPEN_2(__open_2)
HOOK_OPEN_2(__open64_2)
HOOK_OPENAT_2(__openat_2)
HOOK_OPENAT_2(__openat64_2)

/* stdio: "r" and "rb" read only; "r+", "w", "a" also write. */
static FILE *fopened(FILE *fp, const char *mode, const char *path)
{
	if (fp) {
		int rdonly = mode[0] == 'r' && !strchr(mode, '+');

		opened(fileno(fp), rdonly ? O_RDONLY : O_RDWR, path);	/* flags: the fd's own */
	}
	return fp;
}

#define HOOK_FOPEN(name)						\
	PL_EXPORT FILE *name(const char *path, const char *mode)	\
	{								\
		return fopened(CALL(FILE *, name, path, mode), mode, path); \
	}

HOOK_FOPEN(fopen)
HOOK_FOPEN(fopen64)

static void closing(int fd)
{
	if (fd >= 0 && watching())
		pl_note_close(fd);
}

#define HOOK_FREOPEN(name)						\
	PL_EXPORT FILE *name(const char *path, const char *mode, FILE *fp) \
	{								\
		closing(fileno(fp));					\
		return fopened(CALL(FILE *, name, path, mode, fp), mode, path); \
	}

HOOK_FREOPEN(freopen)
HOOK_FREOPEN(freopen64)

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
	pl_direct_closing(lo, hi);
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

/* fcntl and fcntl64: the one argument after @cmd, whatever its type, as it came. */
#define HOOK_FCNTL(name)						\
	PL_EXPORT int name(int fd, int cmd, ...)			\
	{								\
		va_list ap;						\
		void *arg;						\
									\
		va_start(ap, cmd);					\
		arg = va_arg(ap, void *);				\
		va_end(ap);						\
		return fcntl_common(REAL(name), fd, cmd, arg);		\
	}

int fcntl64(int fd, int cmd, ...);
HOOK_FCNTL(fcntl)
HOOK_FCNTL(fcntl64)
