/* SPDX-License-Identifier: MIT */
/*
 * chunks(): the library's lent buffers as read-only memoryviews.  Each step
 * lends through a new exporter; the next step (or any other call on the
 * file) releases the step's memoryview, so that a view kept past its step
 * raises ValueError instead of showing bytes the stream has reused.  While
 * something else still holds a buffer of the chunk (a slice, an array over
 * it) the file refuses the next step with BufferError, and a file closed
 * meanwhile hands its stream to the exporter, which frees it with the last
 * buffer: no view ever reads freed memory.
 */
#include "pagecliff-py.h"

struct pyc_chunk *pyc_chunk_new(const char *data, size_t len)
{
	struct pyc_chunk *c = PyObject_New(struct pyc_chunk, &pyc_chunk_type);

	if (!c)
		return NULL;
	c->data = data;
	c->len = (Py_ssize_t)len;
	c->exports = 0;
	c->valid = 1;
	c->orphan = (struct pyc_res){ .fd = -1 };
	return c;
}

static int chunk_getbuffer(PyObject *self, Py_buffer *view, int flags)
{
	struct pyc_chunk *c = (struct pyc_chunk *)self;

	if (!c->valid) {
		PyErr_SetString(PyExc_ValueError, "the chunk's step is over");
		view->obj = NULL;
		return -1;
	}
	if (PyBuffer_FillInfo(view, self, (void *)c->data, c->len, 1, flags))
		return -1;
	c->exports++;
	return 0;
}

static void chunk_releasebuffer(PyObject *self, Py_buffer *view)
{
	struct pyc_chunk *c = (struct pyc_chunk *)self;

	if (--c->exports == 0)
		pyc_res_close(&c->orphan);
}

static void chunk_dealloc(PyObject *self)
{
	struct pyc_chunk *c = (struct pyc_chunk *)self;

	pyc_res_close(&c->orphan);
	PyObject_Free(self);
}

static PyBufferProcs chunk_as_buffer = {
	.bf_getbuffer = chunk_getbuffer,
	.bf_releasebuffer = chunk_releasebuffer,
};

PyTypeObject pyc_chunk_type = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "pagecliff._Chunk",
	.tp_doc = PyDoc_STR("The exporter of one lent chunk of a pagecliff file."),
	.tp_basicsize = sizeof(struct pyc_chunk),
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_dealloc = chunk_dealloc,
	.tp_as_buffer = &chunk_as_buffer,
};

/* The iterator chunks() returns: the steps of one reader. */
struct pyc_chunks {
	PyObject_HEAD
	struct pyc_reader *reader;
};

static void chunks_dealloc(PyObject *self)
{
	Py_XDECREF(((struct pyc_chunks *)self)->reader);
	PyObject_Free(self);
}

static PyObject *chunks_next(PyObject *self)
{
	return pyc_reader_next_chunk(((struct pyc_chunks *)self)->reader);
}

PyTypeObject pyc_chunks_type = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "pagecliff._Chunks",
	.tp_doc = PyDoc_STR("Iterator over the lent chunks of a pagecliff file."),
	.tp_basicsize = sizeof(struct pyc_chunks),
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_dealloc = chunks_dealloc,
	.tp_iter = PyObject_SelfIter,
	.tp_iternext = chunks_next,
};

PyObject *pyc_chunks_new(struct pyc_reader *reader)
{
	struct pyc_chunks *it = PyObject_New(struct pyc_chunks, &pyc_chunks_type);

	if (!it)
		return NULL;
	Py_INCREF(reader);
	it->reader = reader;
	return (PyObject *)it;
}
