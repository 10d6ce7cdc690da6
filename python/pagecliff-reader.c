/* SPDX-License-Identifier: MIT */
/*
 * The reads of the reader open() returns for "rb" (its type and methods:
 * pagecliff-reader-type.c): a library stream behind a buffered binary
 * file.  Reads at the stream's cursor go through the
 * stream (its strategy, read-ahead and drop-behind); after a seek, reads go
 * to pc_stream_pread() at the position until it meets the cursor again.
 * Large reads land straight in the caller's buffer; small ones and lines are
 * served from a window: the chunk the stream lent last, or after a seek a
 * buffer of the reader's own.
 */
#include "pagecliff-py.h"
#include "pagecliff-reader.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>

/* From this size on a read goes straight into the caller's buffer. */
#define LARGE_READ (64u * 1024)
/* The window's own buffer, for reads away from the cursor. */
#define PBUF_SIZE (256u * 1024)

/* Take the reader's lock; -1 with an exception when it is closed. */
int pyc_reader_enter(struct pyc_reader *r)
{
	if (pyc_lock_enter(&r->lock))
		return -1;
	if (r->closed) {
		pyc_lock_leave(&r->lock);
		pyc_err_closed();
		return -1;
	}
	return 0;
}

/*
 * End the step of the chunk chunks() lent: its memoryview is released and
 * its exporter lends no more.  -1 with BufferError when something still
 * holds a buffer of it: the stream must not reuse the memory under it.
 */
int pyc_reader_retire(struct pyc_reader *r)
{
	PyObject *ret;

	if (r->lent_view) {
		ret = PyObject_CallMethod(r->lent_view, "release", NULL);
		if (!ret)
			return -1;
		Py_DECREF(ret);
		Py_CLEAR(r->lent_view);
	}
	if (!r->lent)
		return 0;
	r->lent->valid = 0;
	if (r->lent->exports) {
		PyErr_SetString(PyExc_BufferError,
				"a buffer of the last chunk is still held: release it before the next step");
		return -1;
	}
	Py_CLEAR(r->lent);
	return 0;
}

/*
 * Let go of the stream at close or in the destructor: a chunk something
 * still holds a buffer of takes the stream over and frees it with its last
 * buffer; otherwise the stream goes now.  Never raises.
 */
void pyc_reader_drop(struct pyc_reader *r)
{
	PyObject *type, *value, *tb, *ret;

	PyErr_Fetch(&type, &value, &tb);
	if (r->lent_view) {
		ret = PyObject_CallMethod(r->lent_view, "release", NULL);
		Py_XDECREF(ret);
		PyErr_Clear();
		Py_CLEAR(r->lent_view);
	}
	if (r->lent) {
		r->lent->valid = 0;
		if (r->lent->exports) {
			r->lent->orphan = r->res;
			r->res = (struct pyc_res){ .fd = -1 };
		}
		Py_CLEAR(r->lent);
	}
	pyc_res_close(&r->res);
	PyErr_Restore(type, value, tb);
}

static size_t win_avail(const struct pyc_reader *r)
{
	if (!r->win_len || r->pos < r->win_start || r->pos >= r->win_start + r->win_len)
		return 0;
	return r->win_start + r->win_len - r->pos;
}

static const char *win_at(const struct pyc_reader *r)
{
	return r->win + (r->pos - r->win_start);
}

/* The position's window buffer, allocated on first use; -errno. */
static int pbuf_get(struct pyc_reader *r)
{
	if (r->res.pbuf)
		return 0;
	r->res.pbuf = pc_buf_alloc(PBUF_SIZE);
	if (!r->res.pbuf)
		return -ENOMEM;
	r->res.pbuf_size = PBUF_SIZE;
	return 0;
}

/*
 * Fill the window at the position: the stream's next lent chunk when the
 * position is its cursor, else a pread into the reader's own buffer.
 * Returns the window's length, 0 at end of file, or -errno.
 */
static ssize_t win_fill(struct pyc_reader *r)
{
	struct pc_stream *s = r->res.stream;
	uint64_t pos = r->pos;
	const void *p = NULL;
	ssize_t n;

	r->win_len = 0;
	if (pos == r->cur) {
		Py_BEGIN_ALLOW_THREADS
		n = pc_stream_next(s, &p);
		Py_END_ALLOW_THREADS
		if (n > 0)
			r->cur += n;
	} else {
		n = pbuf_get(r);
		if (n)
			return n;
		p = r->res.pbuf;
		Py_BEGIN_ALLOW_THREADS
		n = pc_stream_pread(s, r->res.pbuf, PBUF_SIZE, pos);
		Py_END_ALLOW_THREADS
	}
	if (n > 0) {
		r->win = p;
		r->win_start = pos;
		r->win_len = n;
	}
	return n;
}

/* Read straight into @buf: at the cursor through the stream, else pread. */
static ssize_t read_straight(struct pyc_reader *r, char *buf, size_t len)
{
	struct pc_stream *s = r->res.stream;
	uint64_t pos = r->pos;
	int at_cursor = pos == r->cur;
	ssize_t n;

	r->win_len = 0;		/* any call on the stream ends what it lent */
	Py_BEGIN_ALLOW_THREADS
	if (at_cursor)
		n = pc_stream_read(s, buf, len);
	else
		n = pc_stream_pread(s, buf, len, pos);
	Py_END_ALLOW_THREADS
	if (n > 0) {
		r->pos += n;
		if (at_cursor)
			r->cur += n;
	}
	return n;
}

/* Copy what the window holds at the position into @buf: bytes copied. */
static size_t win_take(struct pyc_reader *r, char *buf, size_t len)
{
	size_t k = win_avail(r);

	if (k > len)
		k = len;
	if (k) {
		memcpy(buf, win_at(r), k);
		r->pos += k;
	}
	return k;
}

/*
 * Read up to @len bytes into @buf at the position (with @once, at most one
 * call on the stream, as read1()).  Returns the bytes read, 0 at end of
 * file, or -1 with OSError set; an error after some bytes returns them and
 * comes again at the next call.
 */
Py_ssize_t pyc_reader_into(struct pyc_reader *r, char *buf, size_t len, int once)
{
	size_t done = 0, want;
	ssize_t n = 0;

	while (done < len) {
		done += win_take(r, buf + done, len - done);
		want = len - done;
		if (!want || (once && done))
			break;
		if (want >= LARGE_READ) {
			n = read_straight(r, buf + done, want);
			if (n > 0)
				done += n;
			/* a short read is the end of a file, not of a pipe */
			if (n <= 0 || once || (r->regular && (size_t)n < want))
				break;
			continue;
		}
		n = win_fill(r);
		if (n <= 0)
			break;
		if (once) {
			done += win_take(r, buf + done, want);
			break;
		}
	}
	if (!done && n < 0) {
		pyc_err(n, r->name);
		return -1;
	}
	return done;
}

PyObject *pyc_reader_next_chunk(struct pyc_reader *r)
{
	PyObject *view = NULL;
	struct pyc_chunk *c;
	size_t k;
	ssize_t n;

	if (pyc_reader_enter(r))
		return NULL;
	if (pyc_reader_retire(r))
		goto out;
	k = win_avail(r);
	if (!k) {
		n = win_fill(r);
		if (n < 0)
			pyc_err(n, r->name);
		if (n <= 0)
			goto out;
		k = n;
	}
	c = pyc_chunk_new(win_at(r), k);
	if (!c)
		goto out;
	view = PyMemoryView_FromObject((PyObject *)c);
	if (!view) {
		Py_DECREF(c);
		goto out;
	}
	r->pos += k;
	r->lent = c;
	Py_INCREF(view);
	r->lent_view = view;
out:
	pyc_lock_leave(&r->lock);
	return view;
}

/* The file's size (fstat), for read() to the end and seek from the end. */
static int reader_size(struct pyc_reader *r, uint64_t *ret_size)
{
	struct stat st;
	int ret;

	Py_BEGIN_ALLOW_THREADS
	ret = fstat(r->res.fd, &st) ? -errno : 0;
	Py_END_ALLOW_THREADS
	if (ret) {
		pyc_err(ret, r->name);
		return -1;
	}
	*ret_size = S_ISREG(st.st_mode) ? (uint64_t)st.st_size : 0;
	return 0;
}

/* read() to the end: sized from fstat, grown when the file grows. */
static PyObject *reader_readall(struct pyc_reader *r)
{
	PyObject *bytes;
	uint64_t size;
	size_t cap, done = 0;
	Py_ssize_t n;

	if (reader_size(r, &size))
		return NULL;
	cap = size > r->pos ? size - r->pos + 1 : 64 * 1024;
	bytes = PyBytes_FromStringAndSize(NULL, cap);
	if (!bytes)
		return NULL;
	for (;;) {
		n = pyc_reader_into(r, PyBytes_AS_STRING(bytes) + done, cap - done, 0);
		if (n < 0)
			goto out_free;
		done += n;
		if (done < cap)
			break;
		cap += cap;
		if (_PyBytes_Resize(&bytes, cap))
			return NULL;
	}
	if (_PyBytes_Resize(&bytes, done))
		return NULL;
	return bytes;
out_free:
	Py_DECREF(bytes);
	return NULL;
}

PyObject *pyc_reader_read_n(struct pyc_reader *r, Py_ssize_t size, int once)
{
	PyObject *bytes;
	Py_ssize_t n;

	if (size < 0)
		return reader_readall(r);
	bytes = PyBytes_FromStringAndSize(NULL, size);
	if (!bytes)
		return NULL;
	n = pyc_reader_into(r, PyBytes_AS_STRING(bytes), size, once);
	if (n < 0) {
		Py_DECREF(bytes);
		return NULL;
	}
	if (n != size && _PyBytes_Resize(&bytes, n))
		return NULL;
	return bytes;
}

/* Append @len bytes to the line being built in *@line (PyMem). */
static int line_add(char **line, size_t *line_len, const char *p, size_t len)
{
	char *l = PyMem_Realloc(*line, *line_len + len + 1);

	if (!l) {
		PyErr_NoMemory();
		return -1;
	}
	memcpy(l + *line_len, p, len);
	*line = l;
	*line_len += len;
	return 0;
}

/*
 * One line (through b"\n", at most @limit bytes when @limit >= 0) from the
 * window, refilled as needed; b"" at end of file.  Called with the lock.
 */
PyObject *pyc_reader_line(struct pyc_reader *r, Py_ssize_t limit)
{
	PyObject *ret = NULL;
	char *line = NULL;
	size_t line_len = 0, k;
	const char *p, *nl;
	ssize_t n;

	while (limit < 0 || line_len < (size_t)limit) {
		k = win_avail(r);
		if (!k) {
			n = win_fill(r);
			if (n < 0 && !line_len) {
				pyc_err(n, r->name);
				goto out;
			}
			if (n <= 0)
				break;
			k = n;
		}
		if (limit >= 0 && k > (size_t)limit - line_len)
			k = limit - line_len;
		p = win_at(r);
		nl = memchr(p, '\n', k);
		if (nl)
			k = nl - p + 1;
		if (!line_len && nl) {		/* the whole line in the window */
			r->pos += k;
			return PyBytes_FromStringAndSize(p, k);
		}
		if (line_add(&line, &line_len, p, k))
			goto out;
		r->pos += k;
		if (nl)
			break;
	}
	ret = PyBytes_FromStringAndSize(line, line_len);
out:
	PyMem_Free(line);
	return ret;
}

/* peek()'s bytes: the window's at the position, filled when empty. */
PyObject *pyc_reader_window(struct pyc_reader *r)
{
	ssize_t n = 0;

	if (!win_avail(r))
		n = win_fill(r);
	if (n < 0)
		return pyc_err(n, r->name);
	return PyBytes_FromStringAndSize(win_avail(r) ? win_at(r) : "", win_avail(r));
}

/* The new position for seek(@off, @whence), or -1 with an exception. */
int pyc_reader_seek_target(struct pyc_reader *r, int64_t off, int whence, uint64_t *ret)
{
	uint64_t base = 0;

	if (whence == SEEK_CUR) {
		base = r->pos;
	} else if (whence == SEEK_END) {
		if (reader_size(r, &base))
			return -1;
	} else if (whence != SEEK_SET) {
		PyErr_Format(PyExc_ValueError, "invalid whence (%d, should be 0, 1 or 2)", whence);
		return -1;
	}
	if ((off < 0 && (uint64_t)-off > base) || (off > 0 && base + off > INT64_MAX)) {
		PyErr_Format(PyExc_ValueError, "negative seek position %lld",
			     (long long)((int64_t)base + off));
		return -1;
	}
	*ret = base + off;
	return 0;
}
