/* SPDX-License-Identifier: MIT */
/*
 * The small pieces every object of the module uses: its lock, errno to
 * OSError, strategy names, paths, and open(2)/close(2) without the GIL.
 */
#include "pagecliff-py.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

int pyc_lock_init(struct pyc_lock *l)
{
	l->owner = 0;
	l->lock = PyThread_allocate_lock();
	if (!l->lock) {
		PyErr_NoMemory();
		return -1;
	}
	return 0;
}

void pyc_lock_free(struct pyc_lock *l)
{
	if (l->lock)
		PyThread_free_lock(l->lock);
	l->lock = NULL;
}

/*
 * Take the object's lock; a thread that finds it held waits with the GIL
 * released (the holder may be in a system call and needs no GIL to finish
 * it, but does to return).  Returns 0, or -1 with RuntimeError set when the
 * holder is this very thread.
 */
int pyc_lock_enter(struct pyc_lock *l)
{
	unsigned long me = PyThread_get_thread_ident();

	if (!PyThread_acquire_lock(l->lock, NOWAIT_LOCK)) {
		if (l->owner == me) {
			PyErr_SetString(PyExc_RuntimeError,
					"reentrant call inside a pagecliff file");
			return -1;
		}
		Py_BEGIN_ALLOW_THREADS
		PyThread_acquire_lock(l->lock, WAIT_LOCK);
		Py_END_ALLOW_THREADS
	}
	l->owner = me;
	return 0;
}

void pyc_lock_leave(struct pyc_lock *l)
{
	l->owner = 0;
	PyThread_release_lock(l->lock);
}

PyObject *pyc_err(int err, PyObject *filename)
{
	if (err == -ENOMEM)
		return PyErr_NoMemory();
	errno = -err;
	return PyErr_SetFromErrnoWithFilenameObject(PyExc_OSError, filename);
}

PyObject *pyc_err_closed(void)
{
	PyErr_SetString(PyExc_ValueError, "I/O operation on closed file.");
	return NULL;
}

int pyc_strategy_arg(PyObject *name, enum pc_strategy *ret)
{
	const char *s;

	if (!PyUnicode_Check(name)) {
		PyErr_Format(PyExc_TypeError, "strategy must be a str, not %.100s",
			     Py_TYPE(name)->tp_name);
		return -1;
	}
	s = PyUnicode_AsUTF8(name);
	if (!s)
		return -1;
	if (pc_strategy_parse(s, ret)) {
		PyErr_Format(PyExc_ValueError,
			     "unknown strategy '%s' (auto, buffered, dontcache, dropbehind, direct)", s);
		return -1;
	}
	return 0;
}

PyObject *pyc_fspath_bytes(PyObject *path)
{
	PyObject *bytes = NULL;

	if (!PyUnicode_FSConverter(path, &bytes))
		return NULL;
	return bytes;
}

int pyc_open_fd(const char *path, int flags, mode_t mode)
{
	int fd;

	Py_BEGIN_ALLOW_THREADS
	do {
		fd = open(path, flags | O_CLOEXEC | O_NOCTTY, mode);
	} while (fd < 0 && errno == EINTR);
	if (fd < 0)
		fd = -errno;
	Py_END_ALLOW_THREADS
	return fd;
}

void pyc_close_fd(int fd)
{
	if (fd < 0)
		return;
	Py_BEGIN_ALLOW_THREADS
	close(fd);
	Py_END_ALLOW_THREADS
}

/* Close a reader's stream, its buffer and its fd (with the GIL released). */
void pyc_res_close(struct pyc_res *res)
{
	struct pc_stream *s = res->stream;

	res->stream = NULL;
	if (s) {
		Py_BEGIN_ALLOW_THREADS
		pc_stream_close(s);
		Py_END_ALLOW_THREADS
	}
	if (res->pbuf)
		pc_buf_free(res->pbuf, res->pbuf_size);
	res->pbuf = NULL;
	pyc_close_fd(res->fd);
	res->fd = -1;
}
