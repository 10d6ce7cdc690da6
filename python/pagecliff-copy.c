/* SPDX-License-Identifier: MIT */
/*
 * pagecliff.copy(): cp(1) for one file through a read and a write stream.
 * The source is read into the buffer the write stream lends and committed
 * from it, so with direct I/O on both sides the bytes are never copied in
 * memory; the whole copy runs with the GIL released.
 */
#include "pagecliff-py.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

/* The two ends of a copy; which of them an error belongs to. */
struct copy_job {
	int in, out;
	enum pc_strategy strategy;
	int err;
	int err_dst;		/* the error is the destination's */
};

static void copy_fail(struct copy_job *j, int err, int dst)
{
	if (!j->err) {
		j->err = err;
		j->err_dst = dst;
	}
}

/* Lend, read into it, commit, until the end of the source. */
static void copy_loop(struct copy_job *j, struct pc_stream *s, struct pc_wstream *w)
{
	void *buf;
	ssize_t size, n, done;

	for (;;) {
		size = pc_wstream_lend(w, &buf);
		if (size <= 0)
			return copy_fail(j, size ? size : -EIO, 1);
		n = pc_stream_read(s, buf, size);
		if (n <= 0)
			return n ? copy_fail(j, n, 0) : (void)0;
		done = pc_wstream_commit(w, n);
		if (done != n)
			return copy_fail(j, done < 0 ? done : -EIO, 1);
	}
}

/* Both streams around the loop (GIL released). */
static void copy_streams(struct copy_job *j)
{
	struct pc_stream *s;
	struct pc_wstream *w;
	struct pc_opts o;
	struct pc_wopts wo;
	int ret;

	pc_opts_init(&o);
	o.strategy = j->strategy;
	pc_wopts_init(&wo);
	wo.strategy = j->strategy;
	ret = pc_stream_fdopen(&s, j->in, &o);
	if (ret)
		return copy_fail(j, ret, 0);
	ret = pc_wstream_fdopen(&w, j->out, &wo);
	if (ret) {
		copy_fail(j, ret, 1);
		goto out_s;
	}
	copy_loop(j, s, w);
	ret = pc_wstream_close(w);
	if (ret)
		copy_fail(j, ret, 1);
out_s:
	pc_stream_close(s);
}

/*
 * Open both ends as cp does: a directory source is EISDIR, a destination
 * that is the source is refused before it is truncated, a new destination
 * gets the source's permission bits (less the umask).  0, or -errno.
 */
static int copy_open(struct copy_job *j, const char *src, const char *dst, int *same)
{
	struct stat in, out;

	j->in = open(src, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (j->in < 0 || fstat(j->in, &in))
		return -errno;
	if (S_ISDIR(in.st_mode))
		return -EISDIR;
	if (!stat(dst, &out) && out.st_dev == in.st_dev && out.st_ino == in.st_ino) {
		*same = 1;
		return 0;
	}
	j->out = open(dst, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOCTTY,
		      in.st_mode & 07777);
	if (j->out < 0) {
		j->err_dst = 1;
		return -errno;
	}
	return 0;
}

/* The destination: @dst, or @src's name inside @dst when it is a folder. */
static PyObject *copy_target(PyObject *src, PyObject *dst)
{
	PyObject *os_path, *isdir, *base, *ret = NULL;

	os_path = PyImport_ImportModule("os.path");
	if (!os_path)
		return NULL;
	isdir = PyObject_CallMethod(os_path, "isdir", "O", dst);
	if (!isdir)
		goto out;
	if (isdir == Py_True) {
		base = PyObject_CallMethod(os_path, "basename", "O", src);
		if (base)
			ret = PyObject_CallMethod(os_path, "join", "OO", dst, base);
		Py_XDECREF(base);
	} else {
		ret = PyOS_FSPath(dst);
	}
	Py_DECREF(isdir);
out:
	Py_DECREF(os_path);
	return ret;
}

static PyObject *same_file_error(PyObject *src, PyObject *dst)
{
	PyObject *shutil = PyImport_ImportModule("shutil"), *cls;

	if (!shutil)
		return NULL;
	cls = PyObject_GetAttrString(shutil, "SameFileError");
	if (cls)
		PyErr_Format(cls, "%R and %R are the same file", src, dst);
	Py_XDECREF(cls);
	Py_DECREF(shutil);
	return NULL;
}

/* Run the copy of @src to @target; the target, or NULL with an error set. */
static PyObject *copy_run(PyObject *src, PyObject *target, enum pc_strategy strategy)
{
	struct copy_job j = { .in = -1, .out = -1, .strategy = strategy };
	PyObject *bsrc = NULL, *bdst = NULL, *ret = NULL;
	int same = 0;

	bsrc = pyc_fspath_bytes(src);
	bdst = bsrc ? pyc_fspath_bytes(target) : NULL;
	if (!bdst)
		goto out;
	Py_BEGIN_ALLOW_THREADS
	j.err = copy_open(&j, PyBytes_AS_STRING(bsrc), PyBytes_AS_STRING(bdst), &same);
	if (!j.err && !same)
		copy_streams(&j);
	if (j.in >= 0)
		close(j.in);
	if (j.out >= 0 && close(j.out) && !j.err)
		copy_fail(&j, -errno, 1);
	Py_END_ALLOW_THREADS
	if (same)
		same_file_error(src, target);
	else if (j.err)
		pyc_err(j.err, j.err_dst ? target : src);
	else
		ret = Py_NewRef(target);
out:
	Py_XDECREF(bsrc);
	Py_XDECREF(bdst);
	return ret;
}

PyObject *pyc_copy(PyObject *self, PyObject *args, PyObject *kwargs)
{
	static char *kwlist[] = { "src", "dst", "strategy", NULL };
	PyObject *src, *dst, *name = NULL, *target, *ret;
	enum pc_strategy strategy = PC_AUTO;

	if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OO|$U:copy", kwlist, &src, &dst, &name))
		return NULL;
	if (name && pyc_strategy_arg(name, &strategy))
		return NULL;
	target = copy_target(src, dst);
	if (!target)
		return NULL;
	ret = copy_run(src, target, strategy);
	Py_DECREF(target);
	return ret;
}
