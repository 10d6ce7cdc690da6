/* SPDX-License-Identifier: MIT */
/*
 * What the interpose-*.c files share: how a hook finds the libc function it
 * replaces, how it fails when libc lacks it, whether it looks at a call at
 * all, and the one macro that writes a whole family of vector calls.  Each
 * hook calls the real function with the program's own arguments, and around
 * it tells track.c (reads) or write.c (writes) what happened; the data,
 * return value and errno the program sees are the real function's.
 *
 * Include it first: it sets the feature macros the libc headers read.  The
 * *64 names are the same functions on 64-bit Linux (off_t is 64 bits), and
 * the shim is built for 64-bit only.
 *
 * To hook a new libc function:
 *  1. Define it, PL_EXPORT, in the interpose-*.c of its family (a new family
 *     is a new file, listed in meson.build and in preload.h's map); declare
 *     it first where libc's headers do not.
 *  2. Call the real one through CALL() (or REAL() where ENOSYS and -1 do not
 *     fit) with the program's own arguments; return its result, keep errno.
 *  3. Look at the call only when watching() says so, and tell the rest of
 *     the shim through preload.h (pl_note_*, pl_read_*, pl_write_*).
 *  4. A name with twins (64-bit, _unlocked, fortified) gets one HOOK_*()
 *     macro in its file, one line a name, each calling its own libc name.
 *  5. Add the name to libpagecliff-preload.map: nothing else is exported.
 *  6. Test it in tests/shim: the program's bytes and errno, the stats line.
 * A helper a hook runs on every call is static inline, so that a hook costs
 * no more than its own body: tests/field bounds that cost.
 */
#ifndef PL_INTERPOSE_H
#define PL_INTERPOSE_H

#undef _FILE_OFFSET_BITS	/* define open and open64 as themselves */
#undef _FORTIFY_SOURCE

#include <dlfcn.h>
#include <errno.h>
#include <sys/types.h>
#include <sys/uio.h>

#include "internal.h"
#include "preload.h"

_Static_assert(sizeof(off_t) == 8, "the shim assumes a 64-bit off_t");

/* A libc name the shim defines: the version script exports it. */
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

/*
 * Should a hook look at this call at all?  Not from the shim's own libc calls,
 * not when off, and not in a vfork() child, which shares the parent's memory
 * until it execs: Python's subprocess calls close_range() there.
 */
static inline int watching(void)
{
	return !pl_busy && pl_cfg.mode != PL_MODE_OFF && !pl_foreign();
}

/* watching() without its system call, for stdio calls made per character:
 * they check pl_foreign() only when the buffer was refilled or flushed. */
static inline int maybe_watching(void)
{
	return !pl_busy && pl_cfg.mode != PL_MODE_OFF;
}

/*
 * Whether a vector call of @cnt buffers at @off (-1: the fd's offset) is one
 * to look at; one that libc will refuse goes straight to it.
 */
static inline int watching_vector(int cnt, off_t off)
{
	return watching() && off >= -1 && cnt >= 0;
}

static inline size_t iov_len(const struct iovec *iov, int cnt)
{
	size_t len = 0;

	for (int i = 0; i < cnt; i++)
		len += iov[i].iov_len;
	return len;
}

/*
 * The vector calls of @op (read or write), each calling its own libc name:
 * @op##v, p@op##v, p@op##v64, p@op##v2 and p@op##v64v2 (readv, preadv,
 * preadv64, preadv2, preadv64v2).  All go through @common(real, fd, iov,
 * cnt, off, flags), where off -1 is the fd's offset; a negative offset
 * other than that goes straight to libc, which refuses it.
 */
#define PL_VECTOR_HOOKS(op, common)					\
	static ssize_t plain_##op##v(int fd, const struct iovec *iov, int cnt, \
				     off_t off, int flags)		\
	{								\
		return CALL(ssize_t, op##v, fd, iov, cnt);		\
	}								\
									\
	static ssize_t plain_p##op##v(int fd, const struct iovec *iov, int cnt, \
				      off_t off, int flags)		\
	{								\
		return CALL(ssize_t, p##op##v, fd, iov, cnt, off);	\
	}								\
									\
	static ssize_t plain_p##op##v2(int fd, const struct iovec *iov, int cnt, \
				       off_t off, int flags)		\
	{								\
		return CALL(ssize_t, p##op##v2, fd, iov, cnt, off, flags); \
	}								\
									\
	PL_EXPORT ssize_t op##v(int fd, const struct iovec *iov, int cnt) \
	{								\
		return common(plain_##op##v, fd, iov, cnt, -1, 0);	\
	}								\
									\
	PL_EXPORT ssize_t p##op##v(int fd, const struct iovec *iov, int cnt, off_t off) \
	{								\
		if (off < 0)						\
			return CALL(ssize_t, p##op##v, fd, iov, cnt, off); \
		return common(plain_p##op##v, fd, iov, cnt, off, 0);	\
	}								\
									\
	PL_EXPORT ssize_t p##op##v64(int fd, const struct iovec *iov, int cnt, \
				     off64_t off)			\
	{								\
		return p##op##v(fd, iov, cnt, off);			\
	}								\
									\
	PL_EXPORT ssize_t p##op##v2(int fd, const struct iovec *iov, int cnt, \
				    off_t off, int flags)		\
	{								\
		return common(plain_p##op##v2, fd, iov, cnt, off, flags); \
	}								\
									\
	PL_EXPORT ssize_t p##op##v64v2(int fd, const struct iovec *iov, int cnt, \
				       off64_t off, int flags)		\
	{								\
		return p##op##v2(fd, iov, cnt, off, flags);		\
	}

#endif
