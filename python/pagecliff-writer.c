/* SPDX-License-Identifier: MIT */
/*
 * The writer open() returns for "wb" and "ab": a library write stream with
 * write-behind.  Small writes gather in the buffer the stream lends
 * (pc_wstream_lend), committed when full, at flush() and at close; large
 * ones go to the stream at once.  write() hands every byte to the kernel or
 * raises; flush() leaves nothing in the writer; fsync() puts it on disk.
 */
#include "pagecliff-py.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* From this size on a write goes to the stream as it is. */
#define LARGE_WRITE (64u * 1024)

struct pyc_writer {
	PyObject_HEAD
	struct pc_wstream *stream;
	int fd;
	struct pyc_lock lock;
	PyObject *name;
	int append;
	int closed;
	uint64_t pos;		/* tell(): the cursor, pending bytes included */
	char *lent;		/* the stream's lent buffer, or NULL */
	size_t lent_size;
	size_t fill;		/* bytes of it filled, not yet committed */
	struct pc_wstats stats;	/* the final figures once closed */
	PyObject *weakreflist;
};

static int writer_enter(struct pyc_writer *w)
{
	if (pyc_lock_enter(&w->lock))
		return -1;
	if (w->closed) {
		pyc_lock_leave(&w->lock);
		pyc_err_closed();
		return -1;
	}
	return 0;
}

/* Write all of @buf through the stream: 0, or -errno. */
static int write_all(struct pc_wstream *s, const char *buf, size_t len)
{
	ssize_t n;

	while (len) {
		n = pc_wstream_write(s, buf, len);
		if (n < 0)
			return n;
		if (n == 0)
			return -EIO;
		buf += n;
		len -= n;
	}
	return 0;
}

/*
 * Commit the lent buffer's filled bytes (GIL released by the caller).  A
 * short commit leaves the error for the next call: the rest is written
 * again from a copy, which returns it.
 */
static int commit_locked(struct pc_wstream *s, const char *lent, size_t fill)
{
	ssize_t n = pc_wstream_commit(s, fill);
	char *rest;
	int ret;

	if (n < 0 || (size_t)n == fill)
		return n < 0 ? n : 0;
	rest = malloc(fill - n);
	if (!rest)
		return -ENOMEM;
	memcpy(rest, lent + n, fill - n);
	ret = write_all(s, rest, fill - n);
	free(rest);
	return ret;
}

/* Commit what the writer gathered; 0, or -1 with OSError set. */
static int writer_commit(struct pyc_writer *w)
{
	size_t fill = w->fill;
	char *lent = w->lent;
	int ret;

	if (!lent)
		return 0;
	w->lent = NULL;
	w->fill = 0;
	Py_BEGIN_ALLOW_THREADS
	ret = commit_locked(w->stream, lent, fill);
	Py_END_ALLOW_THREADS
	if (ret) {
		pyc_err(ret, w->name);
		return -1;
	}
	return 0;
}

/* Borrow the stream's buffer when the writer holds none; -1 on error. */
static int writer_lend(struct pyc_writer *w)
{
	void *buf = NULL;
	ssize_t n;

	if (w->lent)
		return 0;
	n = pc_wstream_lend(w->stream, &buf);
	if (n <= 0) {
		pyc_err(n < 0 ? n : -EIO, w->name);
		return -1;
	}
	w->lent = buf;
	w->lent_size = n;
	w->fill = 0;
	return 0;
}

/* Gather or write @len bytes of @buf; 0, or -1 with OSError set. */
static int writer_put(struct pyc_writer *w, const char *buf, size_t len)
{
	int ret;

	/* what was gathered goes first, and no other call may come while it is lent */
	if (w->lent && (len >= LARGE_WRITE || w->fill + len > w->lent_size) && writer_commit(w))
		return -1;
	if (len >= LARGE_WRITE) {
		Py_BEGIN_ALLOW_THREADS
		ret = write_all(w->stream, buf, len);
		Py_END_ALLOW_THREADS
		if (ret) {
			pyc_err(ret, w->name);
			return -1;
		}
		return 0;
	}
	if (!len || writer_lend(w))
		return len ? -1 : 0;
	memcpy(w->lent + w->fill, buf, len);
	w->fill += len;
	if (w->fill == w->lent_size)
		return writer_commit(w);
	return 0;
}

static PyObject *writer_write(PyObject *self, PyObject *arg)
{
	struct pyc_writer *w = (struct pyc_writer *)self;
	PyObject *ret = NULL;
	Py_buffer b;

	if (PyObject_GetBuffer(arg, &b, PyBUF_C_CONTIGUOUS))
		return NULL;
	if (writer_enter(w))
		goto out_buf;
	if (!writer_put(w, b.buf, b.len)) {
		w->pos += b.len;
		ret = PyLong_FromSsize_t(b.len);
	}
	pyc_lock_leave(&w->lock);
out_buf:
	PyBuffer_Release(&b);
	return ret;
}

static PyObject *writer_writelines(PyObject *self, PyObject *lines)
{
	PyObject *it = PyObject_GetIter(lines), *line, *n;

	if (!it)
		return NULL;
	while ((line = PyIter_Next(it))) {
		n = writer_write(self, line);
		Py_DECREF(line);
		if (!n)
			break;
		Py_DECREF(n);
	}
	Py_DECREF(it);
	if (PyErr_Occurred())
		return NULL;
	Py_RETURN_NONE;
}

static PyObject *writer_flush(PyObject *self, PyObject *unused)
{
	struct pyc_writer *w = (struct pyc_writer *)self;
	int ret;

	if (writer_enter(w))
		return NULL;
	ret = writer_commit(w);
	pyc_lock_leave(&w->lock);
	if (ret)
		return NULL;
	Py_RETURN_NONE;
}

static PyObject *writer_fsync(PyObject *self, PyObject *unused)
{
	struct pyc_writer *w = (struct pyc_writer *)self;
	int ret;

	if (writer_enter(w))
		return NULL;
	ret = writer_commit(w);
	if (!ret) {
		Py_BEGIN_ALLOW_THREADS
		ret = pc_wstream_sync(w->stream);
		Py_END_ALLOW_THREADS
		if (ret)
			pyc_err(ret, w->name);
	}
	pyc_lock_leave(&w->lock);
	if (ret)
		return NULL;
	Py_RETURN_NONE;
}

/*
 * Commit, close the stream and the file; the first error is raised (and
 * the writer is closed either way).  Called with the lock, the GIL held.
 */
static int writer_finish(struct pyc_writer *w)
{
	struct pc_wstream *s = w->stream;
	int ret, err = writer_commit(w);

	w->closed = 1;
	w->stream = NULL;
	Py_BEGIN_ALLOW_THREADS
	ret = pc_wstream_close_stats(s, &w->stats);
	Py_END_ALLOW_THREADS
	pyc_close_fd(w->fd);
	w->fd = -1;
	if (ret && !err)
		pyc_err(ret, w->name);
	return ret || err ? -1 : 0;
}

static PyObject *writer_close(PyObject *self, PyObject *unused)
{
	struct pyc_writer *w = (struct pyc_writer *)self;
	int ret = 0;

	if (pyc_lock_enter(&w->lock))
		return NULL;
	if (!w->closed)
		ret = writer_finish(w);
	pyc_lock_leave(&w->lock);
	if (ret)
		return NULL;
	Py_RETURN_NONE;
}

static PyObject *writer_tell(PyObject *self, PyObject *unused)
{
	struct pyc_writer *w = (struct pyc_writer *)self;
	PyObject *ret;

	if (writer_enter(w))
		return NULL;
	ret = PyLong_FromUnsignedLongLong(w->pos);
	pyc_lock_leave(&w->lock);
	return ret;
}

static PyObject *writer_check(struct pyc_writer *w, PyObject *answer)
{
	if (writer_enter(w))
		return NULL;
	pyc_lock_leave(&w->lock);
	return Py_NewRef(answer);
}

static PyObject *writer_readable(PyObject *self, PyObject *unused)
{
	return writer_check((struct pyc_writer *)self, Py_False);
}

static PyObject *writer_writable(PyObject *self, PyObject *unused)
{
	return writer_check((struct pyc_writer *)self, Py_True);
}

static PyObject *writer_seekable(PyObject *self, PyObject *unused)
{
	return writer_check((struct pyc_writer *)self, Py_False);
}

static PyObject *writer_isatty(PyObject *self, PyObject *unused)
{
	return writer_check((struct pyc_writer *)self, Py_False);
}

static PyObject *writer_fileno(PyObject *self, PyObject *unused)
{
	struct pyc_writer *w = (struct pyc_writer *)self;
	PyObject *ret;

	if (writer_enter(w))
		return NULL;
	ret = PyLong_FromLong(w->fd);
	pyc_lock_leave(&w->lock);
	return ret;
}

static PyObject *writer_unsupported(PyObject *self, PyObject *args)
{
	PyErr_SetString(pyc_unsupported,
			"a pagecliff writer writes at its cursor only: no read, seek or truncate");
	return NULL;
}

static PyObject *writer_enter_ctx(PyObject *self, PyObject *unused)
{
	return writer_check((struct pyc_writer *)self, self);
}

static PyObject *writer_exit_ctx(PyObject *self, PyObject *args)
{
	return writer_close(self, NULL);
}

static PyObject *writer_get_closed(PyObject *self, void *unused)
{
	return PyBool_FromLong(((struct pyc_writer *)self)->closed);
}

static PyObject *writer_get_name(PyObject *self, void *unused)
{
	return Py_NewRef(((struct pyc_writer *)self)->name);
}

static PyObject *writer_get_mode(PyObject *self, void *unused)
{
	return PyUnicode_FromString(((struct pyc_writer *)self)->append ? "ab" : "wb");
}

static PyObject *writer_get_stats(PyObject *self, void *unused)
{
	struct pyc_writer *w = (struct pyc_writer *)self;
	struct pc_wstats st;

	if (pyc_lock_enter(&w->lock))
		return NULL;
	if (w->closed)
		st = w->stats;
	else
		pc_wstream_stats(w->stream, &st);
	pyc_lock_leave(&w->lock);
	return pyc_stats_write(&st);
}

static void writer_dealloc(PyObject *self)
{
	struct pyc_writer *w = (struct pyc_writer *)self;
	PyObject *type, *value, *tb;

	if (w->weakreflist)
		PyObject_ClearWeakRefs(self);
	if (!w->closed && w->stream) {
		PyErr_Fetch(&type, &value, &tb);
		if (writer_finish(w))
			PyErr_WriteUnraisable(self);
		PyErr_Restore(type, value, tb);
	}
	pyc_close_fd(w->fd);
	Py_CLEAR(w->name);
	pyc_lock_free(&w->lock);
	Py_TYPE(self)->tp_free(self);
}

static PyObject *writer_repr(PyObject *self)
{
	struct pyc_writer *w = (struct pyc_writer *)self;

	return PyUnicode_FromFormat("<pagecliff.Writer name=%R mode='%s'%s>", w->name,
				    w->append ? "ab" : "wb", w->closed ? " closed" : "");
}

static PyMethodDef writer_methods[] = {
	{ "write", writer_write, METH_O,
	  PyDoc_STR("write(data, /) -> int\n\nHand all of data to the kernel (small writes gather "
		    "in the stream's lent buffer until flush()); raises on error.") },
	{ "writelines", writer_writelines, METH_O, PyDoc_STR("writelines(lines, /)") },
	{ "flush", writer_flush, METH_NOARGS,
	  PyDoc_STR("flush()\n\nHand what the writer gathered to the kernel.") },
	{ "fsync", writer_fsync, METH_NOARGS,
	  PyDoc_STR("fsync()\n\nflush(), then put every byte written on stable storage "
		    "(fdatasync(2) semantics, after writes in flight).") },
	{ "close", writer_close, METH_NOARGS,
	  PyDoc_STR("close()\n\nflush(), evict what write-behind left, close; raises an I/O error "
		    "not raised before.") },
	{ "tell", writer_tell, METH_NOARGS, PyDoc_STR("tell() -> int") },
	{ "readable", writer_readable, METH_NOARGS, PyDoc_STR("readable() -> False") },
	{ "writable", writer_writable, METH_NOARGS, PyDoc_STR("writable() -> True") },
	{ "seekable", writer_seekable, METH_NOARGS, PyDoc_STR("seekable() -> False") },
	{ "isatty", writer_isatty, METH_NOARGS, PyDoc_STR("isatty() -> False") },
	{ "fileno", writer_fileno, METH_NOARGS, PyDoc_STR("fileno() -> int") },
	{ "read", writer_unsupported, METH_VARARGS, PyDoc_STR("Not readable: io.UnsupportedOperation.") },
	{ "seek", writer_unsupported, METH_VARARGS, PyDoc_STR("Not seekable: io.UnsupportedOperation.") },
	{ "truncate", writer_unsupported, METH_VARARGS,
	  PyDoc_STR("Not supported: io.UnsupportedOperation.") },
	{ "detach", writer_unsupported, METH_NOARGS, PyDoc_STR("Not supported: io.UnsupportedOperation.") },
	{ "__enter__", writer_enter_ctx, METH_NOARGS, NULL },
	{ "__exit__", writer_exit_ctx, METH_VARARGS, NULL },
	{ NULL },
};

static PyGetSetDef writer_getset[] = {
	{ "closed", writer_get_closed, NULL, PyDoc_STR("True once closed."), NULL },
	{ "name", writer_get_name, NULL, PyDoc_STR("The path given to open()."), NULL },
	{ "mode", writer_get_mode, NULL, PyDoc_STR("'wb' or 'ab'"), NULL },
	{ "stats", writer_get_stats, NULL,
	  PyDoc_STR("pagecliff.Stats: the stream's figures so far (final once closed)."), NULL },
	{ NULL },
};

PyTypeObject pyc_writer_type = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "pagecliff.Writer",
	.tp_doc = PyDoc_STR("A file open for writing through a pagecliff write stream "
			    "(io.BufferedIOBase).\n\nMade by pagecliff.open(path, 'wb' or 'ab')."),
	.tp_basicsize = sizeof(struct pyc_writer),
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_dealloc = writer_dealloc,
	.tp_repr = writer_repr,
	.tp_methods = writer_methods,
	.tp_getset = writer_getset,
	.tp_weaklistoffset = offsetof(struct pyc_writer, weakreflist),
};

/* Open the file and start the stream: 0, or -errno. */
static int writer_start(struct pyc_writer *w, const char *path, enum pc_strategy strategy)
{
	int flags = O_WRONLY | O_CREAT | (w->append ? O_APPEND : O_TRUNC);
	struct pc_wopts o;
	struct stat st;
	int ret;

	w->fd = pyc_open_fd(path, flags, 0666);
	if (w->fd < 0)
		return w->fd;
	pc_wopts_init(&o);
	o.strategy = strategy;
	Py_BEGIN_ALLOW_THREADS
	ret = fstat(w->fd, &st) ? -errno : 0;
	if (!ret)
		ret = pc_wstream_fdopen(&w->stream, w->fd, &o);
	Py_END_ALLOW_THREADS
	if (!ret && w->append && S_ISREG(st.st_mode))
		w->pos = st.st_size;
	return ret;
}

PyObject *pyc_writer_open(PyObject *name, PyObject *path, int append,
			  enum pc_strategy strategy)
{
	struct pyc_writer *w;
	int ret;

	w = PyObject_New(struct pyc_writer, &pyc_writer_type);
	if (!w)
		return NULL;
	memset((char *)w + sizeof(PyObject), 0, sizeof(*w) - sizeof(PyObject));
	w->fd = -1;
	w->append = append;
	w->name = Py_NewRef(name);
	if (pyc_lock_init(&w->lock))
		goto out_free;
	ret = writer_start(w, PyBytes_AS_STRING(path), strategy);
	if (ret) {
		pyc_err(ret, name);
		goto out_free;
	}
	return (PyObject *)w;
out_free:
	w->closed = 1;
	Py_DECREF(w);
	return NULL;
}
