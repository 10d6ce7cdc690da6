// SPDX-License-Identifier: MIT
/*
 * Reads that are no read(): mmap, after which the shim keeps its hands off a
 * file, and the in-kernel copies sendfile, splice and copy_file_range, which
 * read their source and write their destination as read() and write() would.
 */
#include "interpose.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/stat.h>

static void *mapped(void *map, int flags, int fd)
{
	int saved = errno;

	if (map != MAP_FAILED && fd >= 0 && !(flags & MAP_ANONYMOUS) && watching()) {
		pl_note_mmap(fd);
		errno = saved;
	}
	return map;
}

/* mmap and mmap64: one body, each calling its own libc name. */
#define HOOK_MMAP(name, off_type)					\
	PL_EXPORT void *name(void *addr, size_t len, int prot, int flags, int fd, \
			     off_type off)				\
	{								\
		void *(*fn)(void *, size_t, int, int, int, off_type) = REAL(name); \
									\
		if (!fn) {						\
			errno = ENOSYS;					\
			return MAP_FAILED;				\
		}							\
		return mapped(fn(addr, len, prot, flags, fd, off), flags, fd); \
	}

HOOK_MMAP(mmap, off_t)
HOOK_MMAP(mmap64, off64_t)

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
