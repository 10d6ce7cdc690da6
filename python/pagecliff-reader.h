/* SPDX-License-Identifier: MIT */
/*
 * What the reader's type (pagecliff-reader-type.c) calls of its reads
 * (pagecliff-reader.c).  All but pyc_reader_enter() are called with the
 * reader's lock held; the ones that return -1 or NULL set an exception.
 */
#ifndef PAGECLIFF_READER_H
#define PAGECLIFF_READER_H

#include "pagecliff-py.h"

/* Take the reader's lock; -1 with an exception when it is closed. */
int pyc_reader_enter(struct pyc_reader *r);
/* End the step of the chunk chunks() lent; -1 (BufferError) while it is held. */
int pyc_reader_retire(struct pyc_reader *r);
/* Let go of the stream (close, destructor); never raises. */
void pyc_reader_drop(struct pyc_reader *r);
/* Up to @len bytes into @buf (@once: one call on the stream): bytes, 0 at end, -1. */
Py_ssize_t pyc_reader_into(struct pyc_reader *r, char *buf, size_t len, int once);
/* @size bytes (all to the end when negative) as bytes, or NULL. */
PyObject *pyc_reader_read_n(struct pyc_reader *r, Py_ssize_t size, int once);
/* One line, at most @limit bytes when @limit >= 0; b"" at end of file. */
PyObject *pyc_reader_line(struct pyc_reader *r, Py_ssize_t limit);
/* peek()'s bytes: the window's at the position, filled when empty. */
PyObject *pyc_reader_window(struct pyc_reader *r);
/* The new position for seek(@off, @whence), or -1 with an exception. */
int pyc_reader_seek_target(struct pyc_reader *r, int64_t off, int whence, uint64_t *ret);

#endif
