/* SPDX-License-Identifier: MIT */
/*
 * The reader open() returns for "rb": a library stream behind the methods
 * of a buffered binary file.  Reads at the stream's cursor go through the
 * stream (its strategy, read-ahead and drop-behind); after a seek, reads go
 * to pc_stream_pread() at the position until it meets the cursor again.
 * Large reads land straight in the caller's buffer; small ones and lines are
 * served from a window: the chunk the stream lent last, or after a seek a
 * buffer of the reader's own.
 */
#include "pagecliff-py.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>

/* From this size on a read goes straight into the caller's buffer. */
#define LARGE_READ (64u * 1024)
/* The window's own buffer, for reads away from the cursor. */
#define PBUF_SIZE (256u * 1024)

/* Take the reader's lock; -1 with an exception when it is closed. */
static int reader_enter(struct pyc_reader *r)
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
static int reader_retire(struct pyc_reader *r)
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
static void reader_drop(struct pyc_reader *r)
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
static Py_ssize_t reader_into(struct pyc_reader *r, char *buf, size_t len, int once)
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

	if (reader_enter(r))
		return NULL;
	if (reader_retire(r))
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
		n = reader_into(r, PyBytes_AS_STRING(bytes) + done, cap - done, 0);
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

static PyObject *reader_read_n(struct pyc_reader *r, Py_ssize_t size, int once)
{
	PyObject *bytes;
	Py_ssize_t n;

	if (size < 0)
		return reader_readall(r);
	bytes = PyBytes_FromStringAndSize(NULL, size);
	if (!bytes)
		return NULL;
	n = reader_into(r, PyBytes_AS_STRING(bytes), size, once);
	if (n < 0) {
		Py_DECREF(bytes);
		return NULL;
	}
	if (n != size && _PyBytes_Resize(&bytes, n))
		return NULL;
	return bytes;
}

/* The size argument of read(), read1(), readline(): an int or None (-1). */
static int size_arg(PyObject *const *args, Py_ssize_t nargs, Py_ssize_t *ret)
{
	*ret = -1;
	if (nargs > 1) {
		PyErr_SetString(PyExc_TypeError, "expected at most one argument");
		return -1;
	}
	if (nargs == 0 || args[0] == Py_None)
		return 0;
	*ret = PyNumber_AsSsize_t(args[0], PyExc_OverflowError);
	if (*ret == -1 && PyErr_Occurred())
		return -1;
	if (*ret < 0)
		*ret = -1;
	return 0;
}

static PyObject *reader_read_common(struct pyc_reader *r, PyObject *const *args,
				    Py_ssize_t nargs, int once)
{
	PyObject *ret = NULL;
	Py_ssize_t size;

	if (size_arg(args, nargs, &size) || reader_enter(r))
		return NULL;
	if (!reader_retire(r))
		ret = reader_read_n(r, size, once);
	pyc_lock_leave(&r->lock);
	return ret;
}

static PyObject *reader_read(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
	return reader_read_common((struct pyc_reader *)self, args, nargs, 0);
}

static PyObject *reader_read1(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
	return reader_read_common((struct pyc_reader *)self, args, nargs, 1);
}

static PyObject *reader_readinto_common(struct pyc_reader *r, PyObject *arg, int once)
{
	PyObject *ret = NULL;
	Py_buffer b;
	Py_ssize_t n;

	if (!PyArg_Parse(arg, "w*:readinto", &b))
		return NULL;
	if (reader_enter(r))
		goto out_buf;
	if (!reader_retire(r)) {
		n = reader_into(r, b.buf, b.len, once);
		if (n >= 0)
			ret = PyLong_FromSsize_t(n);
	}
	pyc_lock_leave(&r->lock);
out_buf:
	PyBuffer_Release(&b);
	return ret;
}

static PyObject *reader_readinto(PyObject *self, PyObject *arg)
{
	return reader_readinto_common((struct pyc_reader *)self, arg, 0);
}

static PyObject *reader_readinto1(PyObject *self, PyObject *arg)
{
	return reader_readinto_common((struct pyc_reader *)self, arg, 1);
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
static PyObject *reader_line(struct pyc_reader *r, Py_ssize_t limit)
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

static PyObject *reader_readline(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
	struct pyc_reader *r = (struct pyc_reader *)self;
	PyObject *ret = NULL;
	Py_ssize_t limit;

	if (size_arg(args, nargs, &limit) || reader_enter(r))
		return NULL;
	if (!reader_retire(r))
		ret = reader_line(r, limit);
	pyc_lock_leave(&r->lock);
	return ret;
}

static PyObject *reader_iternext(PyObject *self)
{
	PyObject *line = reader_readline(self, NULL, 0);

	if (line && PyBytes_GET_SIZE(line) == 0) {
		Py_DECREF(line);
		return NULL;
	}
	return line;
}

static PyObject *reader_readlines(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
	PyObject *list, *line;
	Py_ssize_t hint, total = 0;

	if (size_arg(args, nargs, &hint))
		return NULL;
	list = PyList_New(0);
	while (list && (line = reader_iternext(self))) {
		total += PyBytes_GET_SIZE(line);
		if (PyList_Append(list, line))
			Py_CLEAR(list);
		Py_DECREF(line);
		if (hint > 0 && total >= hint)
			break;
	}
	if (PyErr_Occurred())
		Py_CLEAR(list);
	return list;
}

/* peek(): the window's bytes at the position, filled when empty. */
static PyObject *reader_peek(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
	struct pyc_reader *r = (struct pyc_reader *)self;
	PyObject *ret = NULL;
	Py_ssize_t unused;
	ssize_t n = 0;

	if (size_arg(args, nargs, &unused) || reader_enter(r))
		return NULL;
	if (reader_retire(r))
		goto out;
	if (!win_avail(r))
		n = win_fill(r);
	if (n < 0)
		pyc_err(n, r->name);
	else
		ret = PyBytes_FromStringAndSize(win_avail(r) ? win_at(r) : "", win_avail(r));
out:
	pyc_lock_leave(&r->lock);
	return ret;
}

/* The new position for seek(@off, @whence), or -1 with an exception. */
static int seek_target(struct pyc_reader *r, int64_t off, int whence, uint64_t *ret)
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

static PyObject *reader_seek(PyObject *self, PyObject *args)
{
	struct pyc_reader *r = (struct pyc_reader *)self;
	PyObject *ret = NULL;
	long long off;
	int whence = SEEK_SET;
	uint64_t to;

	if (!PyArg_ParseTuple(args, "L|i:seek", &off, &whence) || reader_enter(r))
		return NULL;
	if (!r->regular)
		PyErr_SetString(pyc_unsupported, "seek: the file is not seekable");
	else if (!seek_target(r, off, whence, &to)) {
		r->pos = to;
		ret = PyLong_FromUnsignedLongLong(to);
	}
	pyc_lock_leave(&r->lock);
	return ret;
}

static PyObject *reader_tell(PyObject *self, PyObject *unused)
{
	struct pyc_reader *r = (struct pyc_reader *)self;
	PyObject *ret = NULL;

	if (reader_enter(r))
		return NULL;
	if (!r->regular)
		PyErr_SetString(pyc_unsupported, "tell: the file is not seekable");
	else
		ret = PyLong_FromUnsignedLongLong(r->pos);
	pyc_lock_leave(&r->lock);
	return ret;
}

static PyObject *reader_close(PyObject *self, PyObject *unused)
{
	struct pyc_reader *r = (struct pyc_reader *)self;

	if (pyc_lock_enter(&r->lock))
		return NULL;
	if (!r->closed) {
		pc_stream_stats(r->res.stream, &r->stats);
		r->closed = 1;
		reader_drop(r);
	}
	pyc_lock_leave(&r->lock);
	Py_RETURN_NONE;
}

/* A method that only needs the file open: answers @answer. */
static PyObject *reader_check(struct pyc_reader *r, PyObject *answer)
{
	if (reader_enter(r))
		return NULL;
	pyc_lock_leave(&r->lock);
	return Py_NewRef(answer);
}

static PyObject *reader_readable(PyObject *self, PyObject *unused)
{
	return reader_check((struct pyc_reader *)self, Py_True);
}

static PyObject *reader_writable(PyObject *self, PyObject *unused)
{
	return reader_check((struct pyc_reader *)self, Py_False);
}

static PyObject *reader_seekable(PyObject *self, PyObject *unused)
{
	struct pyc_reader *r = (struct pyc_reader *)self;

	return reader_check(r, r->regular ? Py_True : Py_False);
}

static PyObject *reader_flush(PyObject *self, PyObject *unused)
{
	return reader_check((struct pyc_reader *)self, Py_None);
}

static PyObject *reader_isatty(PyObject *self, PyObject *unused)
{
	return reader_check((struct pyc_reader *)self, Py_False);
}

static PyObject *reader_fileno(PyObject *self, PyObject *unused)
{
	struct pyc_reader *r = (struct pyc_reader *)self;
	PyObject *ret;

	if (reader_enter(r))
		return NULL;
	ret = PyLong_FromLong(r->res.fd);
	pyc_lock_leave(&r->lock);
	return ret;
}

static PyObject *reader_unsupported(PyObject *self, PyObject *args)
{
	PyErr_SetString(pyc_unsupported, "not writable");
	return NULL;
}

static PyObject *reader_detach(PyObject *self, PyObject *unused)
{
	PyErr_SetString(pyc_unsupported, "detach: the stream is the library's, not a raw file");
	return NULL;
}

static PyObject *reader_chunks(PyObject *self, PyObject *unused)
{
	struct pyc_reader *r = (struct pyc_reader *)self;

	if (reader_enter(r))
		return NULL;
	pyc_lock_leave(&r->lock);
	return pyc_chunks_new(r);
}

static PyObject *reader_enter_ctx(PyObject *self, PyObject *unused)
{
	return reader_check((struct pyc_reader *)self, self);
}

static PyObject *reader_exit_ctx(PyObject *self, PyObject *args)
{
	return reader_close(self, NULL);
}

static PyObject *reader_get_closed(PyObject *self, void *unused)
{
	return PyBool_FromLong(((struct pyc_reader *)self)->closed);
}

static PyObject *reader_get_name(PyObject *self, void *unused)
{
	return Py_NewRef(((struct pyc_reader *)self)->name);
}

static PyObject *reader_get_mode(PyObject *self, void *unused)
{
	return PyUnicode_FromString("rb");
}

static PyObject *reader_get_stats(PyObject *self, void *unused)
{
	struct pyc_reader *r = (struct pyc_reader *)self;
	struct pc_stats st;

	if (pyc_lock_enter(&r->lock))
		return NULL;
	if (r->closed)
		st = r->stats;
	else
		pc_stream_stats(r->res.stream, &st);
	pyc_lock_leave(&r->lock);
	return pyc_stats_read(&st);
}

static void reader_dealloc(PyObject *self)
{
	struct pyc_reader *r = (struct pyc_reader *)self;

	if (r->weakreflist)
		PyObject_ClearWeakRefs(self);
	reader_drop(r);
	Py_CLEAR(r->name);
	pyc_lock_free(&r->lock);
	Py_TYPE(self)->tp_free(self);
}

static PyObject *reader_repr(PyObject *self)
{
	struct pyc_reader *r = (struct pyc_reader *)self;

	return PyUnicode_FromFormat("<pagecliff.Reader name=%R%s>", r->name,
				    r->closed ? " closed" : "");
}

static PyMethodDef reader_methods[] = {
	{ "read", (PyCFunction)(void (*)(void))reader_read, METH_FASTCALL,
	  PyDoc_STR("read(size=-1, /) -> bytes\n\nUp to size bytes; all to the end with -1 or None; "
		    "b'' at end of file.") },
	{ "read1", (PyCFunction)(void (*)(void))reader_read1, METH_FASTCALL,
	  PyDoc_STR("read1(size=-1, /) -> bytes\n\nUp to size bytes with at most one read from "
		    "the stream.") },
	{ "readinto", reader_readinto, METH_O,
	  PyDoc_STR("readinto(buffer, /) -> int\n\nFill a writable buffer; reads of 64 KiB and more "
		    "go straight into it (page-aligned, direct reads land in it).") },
	{ "readinto1", reader_readinto1, METH_O,
	  PyDoc_STR("readinto1(buffer, /) -> int\n\nAs readinto(), with at most one read.") },
	{ "readline", (PyCFunction)(void (*)(void))reader_readline, METH_FASTCALL,
	  PyDoc_STR("readline(size=-1, /) -> bytes\n\nOne line, through b'\\n'.") },
	{ "readlines", (PyCFunction)(void (*)(void))reader_readlines, METH_FASTCALL,
	  PyDoc_STR("readlines(hint=-1, /) -> list[bytes]") },
	{ "peek", (PyCFunction)(void (*)(void))reader_peek, METH_FASTCALL,
	  PyDoc_STR("peek(size=0, /) -> bytes\n\nBytes at the position, without moving it.") },
	{ "chunks", reader_chunks, METH_NOARGS,
	  PyDoc_STR("chunks() -> iterator of memoryview\n\nThe stream's own buffers, lent without a "
		    "copy, each a read-only memoryview valid until the next step or call on the file "
		    "(then released: using it raises ValueError).") },
	{ "seek", reader_seek, METH_VARARGS,
	  PyDoc_STR("seek(offset, whence=os.SEEK_SET, /) -> int\n\nMove the position; reads away "
		    "from the stream's cursor use pread until they meet it again.") },
	{ "tell", reader_tell, METH_NOARGS, PyDoc_STR("tell() -> int") },
	{ "close", reader_close, METH_NOARGS,
	  PyDoc_STR("close()\n\nClose the stream; the figures stay in stats.") },
	{ "readable", reader_readable, METH_NOARGS, PyDoc_STR("readable() -> True") },
	{ "writable", reader_writable, METH_NOARGS, PyDoc_STR("writable() -> False") },
	{ "seekable", reader_seekable, METH_NOARGS,
	  PyDoc_STR("seekable() -> bool\n\nTrue for a regular file.") },
	{ "flush", reader_flush, METH_NOARGS, PyDoc_STR("flush()\n\nNothing to write.") },
	{ "isatty", reader_isatty, METH_NOARGS, PyDoc_STR("isatty() -> False") },
	{ "fileno", reader_fileno, METH_NOARGS,
	  PyDoc_STR("fileno() -> int\n\nThe descriptor the stream reads (its offset is never moved).") },
	{ "write", reader_unsupported, METH_O, PyDoc_STR("Not writable: io.UnsupportedOperation.") },
	{ "truncate", reader_unsupported, METH_VARARGS,
	  PyDoc_STR("Not writable: io.UnsupportedOperation.") },
	{ "detach", reader_detach, METH_NOARGS, PyDoc_STR("Not supported: io.UnsupportedOperation.") },
	{ "__enter__", reader_enter_ctx, METH_NOARGS, NULL },
	{ "__exit__", reader_exit_ctx, METH_VARARGS, NULL },
	{ NULL },
};

static PyGetSetDef reader_getset[] = {
	{ "closed", reader_get_closed, NULL, PyDoc_STR("True once closed."), NULL },
	{ "name", reader_get_name, NULL, PyDoc_STR("The path given to open()."), NULL },
	{ "mode", reader_get_mode, NULL, PyDoc_STR("'rb'"), NULL },
	{ "stats", reader_get_stats, NULL,
	  PyDoc_STR("pagecliff.Stats: the stream's figures so far (final once closed)."), NULL },
	{ NULL },
};

PyTypeObject pyc_reader_type = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "pagecliff.Reader",
	.tp_doc = PyDoc_STR("A file open for reading through a pagecliff stream (io.BufferedIOBase).\n\n"
			    "Made by pagecliff.open(path, 'rb'); one lock serializes threads."),
	.tp_basicsize = sizeof(struct pyc_reader),
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_dealloc = reader_dealloc,
	.tp_repr = reader_repr,
	.tp_iter = PyObject_SelfIter,
	.tp_iternext = reader_iternext,
	.tp_methods = reader_methods,
	.tp_getset = reader_getset,
	.tp_weaklistoffset = offsetof(struct pyc_reader, weakreflist),
};

/* The strategy a file of @size bytes gets: buffered under min_size. */
static int min_size_strategy(PyObject *min_size, uint64_t size, enum pc_strategy *strategy)
{
	unsigned long long min;

	if (min_size == Py_None)
		return 0;
	min = PyLong_AsUnsignedLongLong(min_size);
	if (min == (unsigned long long)-1 && PyErr_Occurred())
		return -1;
	if (size < min)
		*strategy = PC_BUFFERED;
	return 0;
}

/* Open the file, refuse a directory, start the stream: 0, or -errno. */
static int reader_start(struct pyc_reader *r, const char *path, enum pc_strategy strategy,
			PyObject *min_size)
{
	struct pc_opts o;
	struct stat st;
	int fd, ret;

	fd = pyc_open_fd(path, O_RDONLY, 0);
	if (fd < 0)
		return fd;
	r->res.fd = fd;
	Py_BEGIN_ALLOW_THREADS
	ret = fstat(fd, &st) ? -errno : 0;
	Py_END_ALLOW_THREADS
	if (!ret && S_ISDIR(st.st_mode))
		ret = -EISDIR;
	if (ret)
		return ret;
	r->regular = S_ISREG(st.st_mode);
	if (min_size_strategy(min_size, st.st_size, &strategy))
		return 1;
	pc_opts_init(&o);
	o.strategy = strategy;
	Py_BEGIN_ALLOW_THREADS
	ret = pc_stream_fdopen(&r->res.stream, fd, &o);
	Py_END_ALLOW_THREADS
	return ret;
}

PyObject *pyc_reader_open(PyObject *name, PyObject *path, enum pc_strategy strategy,
			  PyObject *min_size)
{
	struct pyc_reader *r;
	int ret;

	r = PyObject_New(struct pyc_reader, &pyc_reader_type);
	if (!r)
		return NULL;
	memset((char *)r + sizeof(PyObject), 0, sizeof(*r) - sizeof(PyObject));
	r->res.fd = -1;
	r->name = Py_NewRef(name);
	if (pyc_lock_init(&r->lock))
		goto out_free;
	ret = reader_start(r, PyBytes_AS_STRING(path), strategy, min_size);
	if (ret < 0)
		pyc_err(ret, name);
	if (ret)
		goto out_free;
	return (PyObject *)r;
out_free:
	r->closed = 1;
	Py_DECREF(r);
	return NULL;
}
