/* SPDX-License-Identifier: MIT */
/*
 * What the files of the Python module `pagecliff` share: its object types,
 * the lock every object takes around a call, and errno to OSError.  The
 * module sees the library through include/pagecliff.h alone.
 */
#ifndef PAGECLIFF_PY_H
#define PAGECLIFF_PY_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <pythread.h>
#include <stdint.h>
#include <pagecliff.h>

/*
 * One object's lock: a call holds it from start to end, taken with the GIL
 * released when another thread has it, so that two threads on one file
 * serialize; the same thread coming back in (a signal handler) is refused.
 */
struct pyc_lock {
	PyThread_type_lock lock;
	unsigned long owner;
};

int pyc_lock_init(struct pyc_lock *l);
void pyc_lock_free(struct pyc_lock *l);
int pyc_lock_enter(struct pyc_lock *l);
void pyc_lock_leave(struct pyc_lock *l);

/* io.UnsupportedOperation, set when the module is imported. */
extern PyObject *pyc_unsupported;

/* Set OSError (its subclass for @err) from a negative errno; returns NULL. */
PyObject *pyc_err(int err, PyObject *filename);
/* Raise ValueError("I/O operation on closed file."); returns NULL. */
PyObject *pyc_err_closed(void);
/* Parse a strategy name (str) into *ret; 0, or -1 with ValueError set. */
int pyc_strategy_arg(PyObject *name, enum pc_strategy *ret);
/* The bytes (file system encoding) of a path-like @path, or NULL. */
PyObject *pyc_fspath_bytes(PyObject *path);
/* open(2) @path with @flags and @mode with the GIL released: fd, or -errno. */
int pyc_open_fd(const char *path, int flags, mode_t mode);
/* close(2) with the GIL released. */
void pyc_close_fd(int fd);

/* What a stream holds that must outlive a reader a lent chunk still shows. */
struct pyc_res {
	struct pc_stream *stream;
	int fd;
	char *pbuf;		/* the buffer of reads away from the cursor */
	size_t pbuf_size;
};

void pyc_res_close(struct pyc_res *res);

/* The exporter of one lent chunk (pagecliff-chunks.c). */
struct pyc_chunk {
	PyObject_HEAD
	const char *data;
	Py_ssize_t len;
	Py_ssize_t exports;	/* buffers handed out and not released */
	int valid;		/* 0 once its step is over: no new export */
	struct pyc_res orphan;	/* what a closed reader left to it */
};

extern PyTypeObject pyc_chunk_type;
extern PyTypeObject pyc_chunks_type;

struct pyc_chunk *pyc_chunk_new(const char *data, size_t len);

struct pyc_reader;
/* The iterator of @reader's chunks (a new reference), or NULL. */
PyObject *pyc_chunks_new(struct pyc_reader *reader);

/* A reader (pagecliff-reader.c). */
struct pyc_reader {
	PyObject_HEAD
	struct pyc_res res;
	struct pyc_lock lock;
	PyObject *name;
	int regular;
	int closed;
	uint64_t cur;		/* the stream's cursor */
	uint64_t pos;		/* the caller's position */
	const char *win;	/* bytes of the file at [win_start, + win_len) */
	size_t win_len;
	uint64_t win_start;
	struct pyc_chunk *lent;	/* the chunk chunks() lent last */
	PyObject *lent_view;
	struct pc_stats stats;	/* the final figures once closed */
	PyObject *weakreflist;
};

extern PyTypeObject pyc_reader_type;

PyObject *pyc_reader_open(PyObject *name, PyObject *path, enum pc_strategy strategy,
			  PyObject *min_size);
/* One step of chunks(): a read-only memoryview, NULL at the end (no error). */
PyObject *pyc_reader_next_chunk(struct pyc_reader *r);

/* A writer (pagecliff-writer.c). */
extern PyTypeObject pyc_writer_type;

PyObject *pyc_writer_open(PyObject *name, PyObject *path, int append,
			  enum pc_strategy strategy);

/* Figures as named tuples (pagecliff-info.c). */
int pyc_info_init(PyObject *module);
PyObject *pyc_stats_read(const struct pc_stats *st);
PyObject *pyc_stats_write(const struct pc_wstats *st);
PyObject *pyc_probe(PyObject *self, PyObject *args, PyObject *kwargs);
PyObject *pyc_residency(PyObject *self, PyObject *args, PyObject *kwargs);

/* pagecliff.copy() (pagecliff-copy.c). */
PyObject *pyc_copy(PyObject *self, PyObject *args, PyObject *kwargs);

#endif /* PAGECLIFF_PY_H */
