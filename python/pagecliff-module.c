/* SPDX-License-Identifier: MIT */
/*
 * The module `pagecliff`: open(), copy(), probe(), residency() and the
 * types, registered as io.BufferedIOBase so that the io world takes them.
 */
#include "pagecliff-py.h"

PyObject *pyc_unsupported;

/* The kind of file a mode asks for: 0 read, 1 write, 2 append; -1 bad. */
static int mode_kind(const char *mode)
{
	if (!strcmp(mode, "rb") || !strcmp(mode, "br"))
		return 0;
	if (!strcmp(mode, "wb") || !strcmp(mode, "bw"))
		return 1;
	if (!strcmp(mode, "ab") || !strcmp(mode, "ba"))
		return 2;
	return -1;
}

static PyObject *pyc_open(PyObject *self, PyObject *args, PyObject *kwargs)
{
	static char *kwlist[] = { "file", "mode", "strategy", "min_size", NULL };
	PyObject *file, *name = NULL, *min_size = Py_None, *path, *ret = NULL;
	enum pc_strategy strategy = PC_AUTO;
	const char *mode = "rb";
	int kind;

	if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|s$UO:open", kwlist,
					 &file, &mode, &name, &min_size))
		return NULL;
	kind = mode_kind(mode);
	if (kind < 0)
		return PyErr_Format(PyExc_ValueError,
				    "invalid mode '%s': pagecliff files are binary, 'rb', 'wb' or 'ab'", mode);
	if (name && pyc_strategy_arg(name, &strategy))
		return NULL;
	if (min_size != Py_None && !PyLong_Check(min_size))
		return PyErr_Format(PyExc_TypeError, "min_size must be an int or None");
	if (kind && min_size != Py_None)
		return PyErr_Format(PyExc_ValueError, "min_size applies to reading ('rb')");
	path = pyc_fspath_bytes(file);
	if (!path)
		return NULL;
	if (kind == 0)
		ret = pyc_reader_open(file, path, strategy, min_size);
	else
		ret = pyc_writer_open(file, path, kind == 2, strategy);
	Py_DECREF(path);
	return ret;
}

static PyObject *pyc_strategies(PyObject *self, PyObject *unused)
{
	PyObject *t = PyTuple_New(PC_STRATEGY_COUNT), *s;
	int i;

	for (i = 0; t && i < PC_STRATEGY_COUNT; i++) {
		s = PyUnicode_FromString(pc_strategy_name(i));
		if (!s) {
			Py_CLEAR(t);
			break;
		}
		PyTuple_SET_ITEM(t, i, s);
	}
	return t;
}

static PyMethodDef module_methods[] = {
	{ "open", (PyCFunction)(void (*)(void))pyc_open, METH_VARARGS | METH_KEYWORDS,
	  PyDoc_STR("open(file, mode='rb', *, strategy='auto', min_size=None) -> Reader | Writer\n\n"
		    "Open a file through a pagecliff stream.  mode is 'rb', 'wb' or 'ab'.  strategy is "
		    "'auto' (chosen per file, reason in stats), 'buffered', 'dontcache', 'dropbehind' or "
		    "'direct'; a strategy the kernel refuses falls back and says so in stats.reason.  "
		    "A file of fewer than min_size bytes is read buffered.") },
	{ "copy", (PyCFunction)(void (*)(void))pyc_copy, METH_VARARGS | METH_KEYWORDS,
	  PyDoc_STR("copy(src, dst, *, strategy='auto') -> dst\n\n"
		    "cp(1) for one file: dst may be a folder; a new file gets src's permission bits; "
		    "a file onto itself raises shutil.SameFileError.  Returns the path written.") },
	{ "probe", (PyCFunction)(void (*)(void))pyc_probe, METH_VARARGS | METH_KEYWORDS,
	  PyDoc_STR("probe(path) -> Probe\n\nWhat the kernel and file system offer for the file, "
		    "and the strategy auto reads it with, with the reason.") },
	{ "residency", (PyCFunction)(void (*)(void))pyc_residency, METH_VARARGS | METH_KEYWORDS,
	  PyDoc_STR("residency(path, offset=0, length=0) -> int | None\n\nBytes of the file "
		    "(length 0: to its end) in the page cache; None when the kernel hides it from this "
		    "process (a file it may not write).") },
	{ "strategies", pyc_strategies, METH_NOARGS,
	  PyDoc_STR("strategies() -> tuple[str, ...]\n\nThe strategies' names, 'auto' first.") },
	{ NULL },
};

static struct PyModuleDef module_def = {
	PyModuleDef_HEAD_INIT,
	.m_name = "pagecliff",
	.m_doc = PyDoc_STR("Stream files without flooding the page cache (libpagecliff).\n\n"
			   "pagecliff.open() returns buffered binary files whose reads and writes go "
			   "through the library's streams: direct I/O, RWF_DONTCACHE or drop-behind, "
			   "chosen per file.  See pagecliff-python(3)."),
	.m_size = -1,
	.m_methods = module_methods,
};

/* Ready a type and add it to the module under @name. */
static int add_type(PyObject *m, PyTypeObject *type, const char *name)
{
	if (PyType_Ready(type))
		return -1;
	return name ? PyModule_AddObjectRef(m, name, (PyObject *)type) : 0;
}

/* io.UnsupportedOperation, and the types registered as io.BufferedIOBase. */
static int io_init(void)
{
	PyObject *io = PyImport_ImportModule("io"), *base = NULL, *r;
	int ret = -1;

	if (!io)
		return -1;
	pyc_unsupported = PyObject_GetAttrString(io, "UnsupportedOperation");
	base = PyObject_GetAttrString(io, "BufferedIOBase");
	if (!pyc_unsupported || !base)
		goto out;
	r = PyObject_CallMethod(base, "register", "O", &pyc_reader_type);
	Py_XDECREF(r);
	if (!r)
		goto out;
	r = PyObject_CallMethod(base, "register", "O", &pyc_writer_type);
	Py_XDECREF(r);
	if (r)
		ret = 0;
out:
	Py_XDECREF(base);
	Py_DECREF(io);
	return ret;
}

PyMODINIT_FUNC PyInit_pagecliff(void);

PyMODINIT_FUNC PyInit_pagecliff(void)
{
	PyObject *m = PyModule_Create(&module_def);

	if (!m)
		return NULL;
	if (add_type(m, &pyc_reader_type, "Reader") || add_type(m, &pyc_writer_type, "Writer") ||
	    add_type(m, &pyc_chunk_type, NULL) || add_type(m, &pyc_chunks_type, NULL) ||
	    pyc_info_init(m) || io_init() ||
	    PyModule_AddStringConstant(m, "__version__", PAGECLIFF_VERSION) ||
	    PyModule_AddIntConstant(m, "DIRECT_INFLIGHT_MAX", PC_DIRECT_INFLIGHT_MAX)) {
		Py_DECREF(m);
		return NULL;
	}
	return m;
}
