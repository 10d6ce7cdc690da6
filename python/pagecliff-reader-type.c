/* SPDX-License-Identifier: MIT */
/*
 * The reader open() returns for "rb" as Python sees it: the methods of
 * io.BufferedIOBase over the reads of pagecliff-reader.c, its attributes,
 * the type, and open() itself (the file checked, the stream started).
 */
#include "pagecliff-py.h"
#include "pagecliff-reader.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>

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

	if (size_arg(args, nargs, &size) || pyc_reader_enter(r))
		return NULL;
	if (!pyc_reader_retire(r))
		ret = pyc_reader_read_n(r, size, once);
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
	if (pyc_reader_enter(r))
		goto out_buf;
	if (!pyc_reader_retire(r)) {
		n = pyc_reader_into(r, b.buf, b.len, once);
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

static PyObject *reader_readline(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
	struct pyc_reader *r = (struct pyc_reader *)self;
	PyObject *ret = NULL;
	Py_ssize_t limit;

	if (size_arg(args, nargs, &limit) || pyc_reader_enter(r))
		return NULL;
	if (!pyc_reader_retire(r))
		ret = pyc_reader_line(r, limit);
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

	if (size_arg(args, nargs, &unused) || pyc_reader_enter(r))
		return NULL;
	if (!pyc_reader_retire(r))
		ret = pyc_reader_window(r);
	pyc_lock_leave(&r->lock);
	return ret;
}

static PyObject *reader_seek(PyObject *self, PyObject *args)
{
	struct pyc_reader *r = (struct pyc_reader *)self;
	PyObject *ret = NULL;
	long long off;
	int whence = SEEK_SET;
	uint64_t to;

	if (!PyArg_ParseTuple(args, "L|i:seek", &off, &whence) || pyc_reader_enter(r))
		return NULL;
	if (!r->regular)
		PyErr_SetString(pyc_unsupported, "seek: the file is not seekable");
	else if (!pyc_reader_seek_target(r, off, whence, &to)) {
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

	if (pyc_reader_enter(r))
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
		pyc_reader_drop(r);
	}
	pyc_lock_leave(&r->lock);
	Py_RETURN_NONE;
}

/* A method that only needs the file open: answers @answer. */
static PyObject *reader_check(struct pyc_reader *r, PyObject *answer)
{
	if (pyc_reader_enter(r))
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

	if (pyc_reader_enter(r))
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

	if (pyc_reader_enter(r))
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
	pyc_reader_drop(r);
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
