/* SPDX-License-Identifier: MIT */
/*
 * Figures as named tuples: a stream's stats, what probe() found about a
 * file, and residency().  A count the library says it does not know
 * (PC_BYTES_UNKNOWN, -EPERM from residency) is None, never a guess.
 */
#include "pagecliff-py.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>

static PyTypeObject stats_type, probe_type;

static PyStructSequence_Field stats_fields[] = {
	{ "bytes", "bytes read or written (handed to the caller or to the kernel)" },
	{ "uncached", "bytes moved by I/O that leaves no page cached (direct, dontcache)" },
	{ "dropped", "bytes the stream evicted from the page cache, or None when unknown" },
	{ "kept", "bytes left cached because they were cached before (or someone else's)" },
	{ "syscalls", "system calls the stream made" },
	{ "strategy", "the strategy in use (never 'auto')" },
	{ "requested", "the strategy asked for" },
	{ "reason", "why this strategy: auto's choice or a fallback" },
	{ NULL, NULL },
};

static PyStructSequence_Desc stats_desc = {
	"pagecliff.Stats",
	"The measured figures of a pagecliff stream.",
	stats_fields,
	8,
};

static PyStructSequence_Field probe_fields[] = {
	{ "strategy", "the strategy auto chooses for reading the file" },
	{ "reason", "why" },
	{ "dontcache", "preadv2(RWF_DONTCACHE) accepted" },
	{ "direct", "O_DIRECT accepted" },
	{ "uring", "io_uring rings can be created" },
	{ "cachestat", "cachestat(2) available" },
	{ "dio_mem_align", "buffer alignment O_DIRECT needs (None when unknown)" },
	{ "dio_offset_align", "offset and length alignment O_DIRECT needs (None when unknown)" },
	{ "size", "the file's size" },
	{ "cached", "bytes of the file in the page cache, or None when the kernel hides it" },
	{ NULL, NULL },
};

static PyStructSequence_Desc probe_desc = {
	"pagecliff.Probe",
	"What pagecliff.probe() found about a file, and auto's choice.",
	probe_fields,
	10,
};

int pyc_info_init(PyObject *module)
{
	if (PyStructSequence_InitType2(&stats_type, &stats_desc) ||
	    PyStructSequence_InitType2(&probe_type, &probe_desc))
		return -1;
	if (PyModule_AddObjectRef(module, "Stats", (PyObject *)&stats_type) ||
	    PyModule_AddObjectRef(module, "Probe", (PyObject *)&probe_type))
		return -1;
	return 0;
}

static PyObject *count(uint64_t bytes)
{
	if (bytes == PC_BYTES_UNKNOWN)
		Py_RETURN_NONE;
	return PyLong_FromUnsignedLongLong(bytes);
}

static PyObject *strategy_str(enum pc_strategy s)
{
	const char *name = pc_strategy_name(s);

	return PyUnicode_FromString(name ? name : "?");
}

/*
 * Bytes that went through I/O that leaves no page behind (O_DIRECT,
 * RWF_DONTCACHE), as the shim's "bytes read uncached": all of a direct or
 * dontcache stream's, none of the others' (their evictions are "dropped").
 */
static uint64_t uncached(enum pc_strategy s, uint64_t bytes)
{
	return s == PC_DIRECT || s == PC_DONTCACHE ? bytes : 0;
}

/* Fill a Stats; steals nothing, returns a new reference or NULL. */
static PyObject *stats_new(uint64_t bytes, uint64_t syscalls, uint64_t dropped, uint64_t kept,
			   enum pc_strategy s, enum pc_strategy req, const char *reason)
{
	PyObject *t = PyStructSequence_New(&stats_type);
	PyObject *v[8];
	int i;

	if (!t)
		return NULL;
	v[0] = PyLong_FromUnsignedLongLong(bytes);
	v[1] = PyLong_FromUnsignedLongLong(uncached(s, bytes));
	v[2] = count(dropped);
	v[3] = count(kept);
	v[4] = PyLong_FromUnsignedLongLong(syscalls);
	v[5] = strategy_str(s);
	v[6] = strategy_str(req);
	v[7] = PyUnicode_DecodeUTF8(reason, strnlen(reason, 160), "replace");
	for (i = 0; i < 8; i++) {
		if (!v[i]) {
			Py_DECREF(t);
			while (++i < 8)
				Py_XDECREF(v[i]);
			return NULL;
		}
		PyStructSequence_SET_ITEM(t, i, v[i]);
	}
	return t;
}

PyObject *pyc_stats_read(const struct pc_stats *st)
{
	return stats_new(st->bytes_read, st->syscalls, st->bytes_dropped, st->bytes_kept,
			 st->strategy, st->requested, st->reason);
}

PyObject *pyc_stats_write(const struct pc_wstats *st)
{
	return stats_new(st->bytes_written, st->syscalls, st->bytes_dropped, st->bytes_kept,
			 st->strategy, st->requested, st->reason);
}

/* Open @path read-only for a look (a directory is EISDIR); fd, or -errno. */
static int look_open_fd(const char *path)
{
	struct stat st;
	int fd = pyc_open_fd(path, O_RDONLY, 0), ret;

	if (fd < 0)
		return fd;
	Py_BEGIN_ALLOW_THREADS
	ret = fstat(fd, &st) ? -errno : 0;
	Py_END_ALLOW_THREADS
	if (!ret && S_ISDIR(st.st_mode))
		ret = -EISDIR;
	if (ret) {
		pyc_close_fd(fd);
		return ret;
	}
	return fd;
}

/* As look_open_fd() for a path-like: the fd, or -1 with OSError set. */
static int look_open(PyObject *path_arg, PyObject **ret_bytes)
{
	PyObject *bytes = pyc_fspath_bytes(path_arg);
	int fd;

	if (!bytes)
		return -1;
	fd = look_open_fd(PyBytes_AS_STRING(bytes));
	if (fd < 0) {
		pyc_err(fd, path_arg);
		Py_DECREF(bytes);
		return -1;
	}
	*ret_bytes = bytes;
	return fd;
}

/* Probe the file open on @fd and open an auto stream on it for its choice. */
static int probe_fd(int fd, struct pc_probe *p, struct pc_stats *st)
{
	struct pc_stream *s;
	struct pc_opts o;
	int ret;

	ret = pc_probe_fd(fd, p);
	if (ret)
		return ret;
	pc_opts_init(&o);
	ret = pc_stream_fdopen(&s, fd, &o);
	if (ret)
		return ret;
	pc_stream_stats(s, st);
	pc_stream_close(s);
	return 0;
}

static PyObject *probe_tuple(const struct pc_probe *p, const struct pc_stats *st)
{
	PyObject *t = PyStructSequence_New(&probe_type);
	PyObject *v[10];
	int i;

	if (!t)
		return NULL;
	v[0] = strategy_str(st->strategy);
	v[1] = PyUnicode_DecodeUTF8(st->reason, strnlen(st->reason, 160), "replace");
	v[2] = PyBool_FromLong(p->dontcache);
	v[3] = PyBool_FromLong(p->direct);
	v[4] = PyBool_FromLong(p->uring);
	v[5] = PyBool_FromLong(p->cachestat);
	v[6] = p->dioalign_known ? PyLong_FromUnsignedLong(p->dio_mem_align) : Py_NewRef(Py_None);
	v[7] = p->dioalign_known ? PyLong_FromUnsignedLong(p->dio_offset_align) : Py_NewRef(Py_None);
	v[8] = PyLong_FromUnsignedLongLong(p->file_size);
	v[9] = count(p->cached_bytes);
	for (i = 0; i < 10; i++) {
		if (!v[i]) {
			Py_DECREF(t);
			while (++i < 10)
				Py_XDECREF(v[i]);
			return NULL;
		}
		PyStructSequence_SET_ITEM(t, i, v[i]);
	}
	return t;
}

PyObject *pyc_probe(PyObject *self, PyObject *args, PyObject *kwargs)
{
	static char *kwlist[] = { "path", NULL };
	PyObject *path, *bytes = NULL, *ret = NULL;
	struct pc_probe p;
	struct pc_stats st;
	int fd, err;

	if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O:probe", kwlist, &path))
		return NULL;
	fd = look_open(path, &bytes);
	if (fd < 0)
		return NULL;
	Py_BEGIN_ALLOW_THREADS
	err = probe_fd(fd, &p, &st);
	Py_END_ALLOW_THREADS
	pyc_close_fd(fd);
	if (err)
		pyc_err(err, path);
	else
		ret = probe_tuple(&p, &st);
	Py_DECREF(bytes);
	return ret;
}

PyObject *pyc_residency(PyObject *self, PyObject *args, PyObject *kwargs)
{
	static char *kwlist[] = { "path", "offset", "length", NULL };
	unsigned long long offset = 0, length = 0;
	PyObject *path, *bytes = NULL;
	uint64_t cached = 0;
	int fd, err;

	if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|KK:residency", kwlist,
					 &path, &offset, &length))
		return NULL;
	fd = look_open(path, &bytes);
	if (fd < 0)
		return NULL;
	Py_BEGIN_ALLOW_THREADS
	err = pc_cached_bytes(fd, offset, length, &cached);
	Py_END_ALLOW_THREADS
	pyc_close_fd(fd);
	Py_DECREF(bytes);
	if (err == -EPERM)
		Py_RETURN_NONE;
	if (err)
		return pyc_err(err, path);
	return PyLong_FromUnsignedLongLong(cached);
}
