// SPDX-License-Identifier: MIT
/*
 * The stdio family: fread, getc, getline, fgets and their kin on the reading
 * side; fwrite, fputs, putc, printf, fflush and fclose on the writing side.
 * stdio reads and writes through libc's internal read() and write(), which no
 * preload sees, so these hooks watch the stream's own buffer pointers and
 * tell track.c and write.c what went to or came from the file.
 */
#include "interpose.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#undef fread_unlocked	/* an inline macro in <bits/stdio.h> */

/* glibc's flags of a stream (libio.h) that keep fread() on its own path. */
#define PL_IO_NO_READS 0x0004	/* glibc's _IO_NO_READS: a stream that only writes */
#define PL_IO_EOF_SEEN 0x0010
#define PL_IO_ERR_SEEN 0x0020
#define PL_IO_IN_BACKUP 0x0100	/* ungetc() past the buffer */
#define PL_IO_CURRENTLY_PUTTING 0x0800
/* The buffer glibc gives a stream at its first read: st_blksize, mostly a page. */
#define PL_IO_FIRST_BUF 4096
#define PL_IO_NOT_PLAIN (PL_IO_NO_READS | PL_IO_EOF_SEEN | PL_IO_ERR_SEEN | \
			 PL_IO_IN_BACKUP | PL_IO_CURRENTLY_PUTTING)

/*
 * Bytes an fread() of @want on @fp would read straight into the caller's
 * buffer, past what the stream's buffer holds: glibc does that from a
 * buffer's worth on (_IO_file_xsgetn), and a direct reader (direct.c) can
 * serve those instead.  0 when the stream is not a plain byte stream that
 * only reads, or the read is smaller.
 */
static size_t bulk_of(const FILE *fp, size_t want)
{
	size_t avail, bufsize;

	if ((fp->_flags & PL_IO_NOT_PLAIN) || fp->_mode > 0 ||
	    fp->_IO_write_ptr != fp->_IO_write_base)
		return 0;
	avail = fp->_IO_read_end - fp->_IO_read_ptr;
	bufsize = fp->_IO_buf_base ? (size_t)(fp->_IO_buf_end - fp->_IO_buf_base) : PL_IO_FIRST_BUF;
	return want > avail && want - avail >= bufsize ? want - avail : 0;
}

/*
 * fread()'s bulk through the direct reader, with the stream locked (@locked):
 * what the stream's buffer holds first, then the rest served at the fd's
 * offset, the stream left as glibc leaves it after reading straight into
 * the caller's buffer (buffer empty, its offset advanced, end of file or
 * error noted).  Returns the bytes read, and in *@ret_direct what the reader
 * returned, or (size_t)-1 when it did not serve them (nothing consumed): the
 * caller reads through libc.
 */
static size_t fread_direct(struct pl_read *r, char *buf, size_t want, FILE *fp, int locked,
			   ssize_t *ret_direct)
{
	size_t have = (size_t)-1, avail;
	struct iovec iov;
	ssize_t k;

	if (locked)
		flockfile(fp);
	if (!bulk_of(fp, want))
		goto out;
	avail = fp->_IO_read_end - fp->_IO_read_ptr;
	iov = (struct iovec){ buf + avail, want - avail };
	if (!pl_direct_read(r, &iov, 1, iov.iov_len, &k))
		goto out;
	if (avail)
		memcpy(buf, fp->_IO_read_ptr, avail);
	if (fp->_IO_buf_base) {
		fp->_IO_read_base = fp->_IO_read_ptr = fp->_IO_read_end = fp->_IO_buf_base;
		fp->_IO_write_base = fp->_IO_write_ptr = fp->_IO_write_end = fp->_IO_buf_base;
	}
	if (k > 0 && fp->_offset != -1)
		fp->_offset += k;
	if (k < 0)
		fp->_flags |= PL_IO_ERR_SEEN;
	else if ((size_t)k < iov.iov_len)
		fp->_flags |= PL_IO_EOF_SEEN;
	have = avail + (k > 0 ? (size_t)k : 0);
	*ret_direct = k;
out:
	if (locked)
		funlockfile(fp);
	return have;
}

/* fread: the bytes handed out advance the file as a read at its offset. */
static size_t fread_common(size_t (*fn)(void *, size_t, size_t, FILE *), int fd,
			   void *buf, size_t size, size_t n, FILE *fp, int locked)
{
	struct pl_read r;
	size_t got, want = size * n;
	ssize_t k = 0;

	if (!fn)
		return 0;
	if (!watching() || fd < 0)
		return fn(buf, size, n, fp);
	if (size && n <= SIZE_MAX / size && bulk_of(fp, want)) {
		pl_read_begin_direct(&r, fd, want);
		if (r.direct && (got = fread_direct(&r, buf, want, fp, locked, &k)) != (size_t)-1) {
			pl_read_end(&r, k);
			return got == want ? n : got / size;
		}
		r.direct = NULL;
	} else {
		pl_read_begin(&r, fd, -1, want);
	}
	r.use_dontcache = 0;
	r.stdio = 1;
	got = fn(buf, size, n, fp);
	pl_read_end(&r, (int64_t)(got * size));
	return got;
}

PL_EXPORT size_t fread(void *buf, size_t size, size_t n, FILE *fp)
{
	return fread_common(REAL(fread), fileno(fp), buf, size, n, fp, 1);
}

PL_EXPORT size_t fread_unlocked(void *buf, size_t size, size_t n, FILE *fp)
{
	return fread_common(REAL(fread_unlocked), fileno_unlocked(fp), buf, size, n, fp, 0);
}

/* Fortified fread entry points: the check first, then the hook above. */
size_t __fread_chk(void *buf, size_t buflen, size_t size, size_t n, FILE *fp);
size_t __fread_unlocked_chk(void *buf, size_t buflen, size_t size, size_t n, FILE *fp);

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

/*
 * stdio writers flush their buffer through libc's internal write(): when a
 * call's write pointer did not move by what it took, the buffer went out.
 * How much went out is counted from the stream's own pointers, with no
 * system call: what was pending before, plus what the call took, less what
 * is pending after.  That is exact for a byte stream that only writes and
 * met no error; for the rest (a stream that also reads, a wide stream, an
 * error) the shim asks the kernel where the offset is.
 */

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
	return (fp->_flags & PL_IO_NO_READS) && fp->_mode <= 0 && !(fp->_flags & PL_IO_ERR_SEEN);
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

int __vfprintf_chk(FILE *fp, int flag, const char *fmt, va_list ap);
int __fprintf_chk(FILE *fp, int flag, const char *fmt, ...);
int __printf_chk(int flag, const char *fmt, ...);
STDIO_W(int, __vfprintf_chk, fp, r > 0 ? (size_t)r : 0,
	(FILE *fp, int flag, const char *fmt, va_list ap), fp, flag, fmt, ap)

/*
 * The variadic printers hand their arguments to the hook of their v-form
 * (the call after @last: vfprintf or __vfprintf_chk above), which counts
 * what was written.
 */
#define HOOK_PRINTF(name, params, last, ...)				\
	PL_EXPORT int name params					\
	{								\
		va_list ap;						\
		int r;							\
									\
		va_start(ap, last);					\
		r = __VA_ARGS__;					\
		va_end(ap);						\
		return r;						\
	}

HOOK_PRINTF(fprintf, (FILE *fp, const char *fmt, ...), fmt, vfprintf(fp, fmt, ap))
HOOK_PRINTF(printf, (const char *fmt, ...), fmt, vfprintf(stdout, fmt, ap))
HOOK_PRINTF(__fprintf_chk, (FILE *fp, int flag, const char *fmt, ...), fmt,
	    __vfprintf_chk(fp, flag, fmt, ap))
HOOK_PRINTF(__printf_chk, (int flag, const char *fmt, ...), fmt,
	    __vfprintf_chk(stdout, flag, fmt, ap))

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
