/* SPDX-License-Identifier: MIT */
/*
 * What the files of a followed stream share (internal to outside/, below
 * stream.h): stream.c, the stream's looks and ends, calls the three below
 * it, which call none of it: stream-own.c (our own description of the
 * file), stream-clean.c (the cleaner and the counts of what is cached) and
 * stream-stats.c (the --stats line).
 */
#ifndef PCO_OUTSIDE_STREAM_PARTS_H
#define PCO_OUTSIDE_STREAM_PARTS_H

#include "stream.h"

/* A stream that acts on its file at every look. */
static inline int pco_stream_active(const struct pco_stream *s)
{
	return (pco_state_reader(s->state) && s->have_drop) || pco_state_writer(s->state);
}

/* Work left once the program's descriptor is gone. */
static inline int pco_stream_end_work(const struct pco_stream *s)
{
	return pco_stream_active(s) || s->state == PCO_APPENDING;
}

/* stream-own.c */

/*
 * Our own read-only description of the file behind @s->fd, or -errno: a
 * fresh open of /proc/PID/fd/N, checked first; where that open is refused,
 * the program's description duplicated, on file systems whose close does
 * nothing to it.
 */
int pco_own_open(struct pco_stream *s, int pidfd);
/* @at (an O_PATH descriptor, closed here) opened read-only if it is the stream's file. */
int pco_own_reopen(const struct pco_stream *s, int at);
/* The file again once the program closed it: by its path, or its handle; or -errno. */
int pco_own_closed(const struct pco_stream *s);
/* Our description for this look; 0 or -errno (closed or replaced meanwhile). */
int pco_own_get(struct pco_stream *s, int pidfd);
/* Close our description (but the anchor of a process in another mount namespace). */
void pco_own_put(struct pco_stream *s);
/* The look is done: an active stream keeps its description, others close it. */
void pco_own_done(struct pco_stream *s);

/* stream-clean.c */

/* cachestat(2) of [@off, @off + @len) of @fd (@len 0: to the end), overlayfs too. */
int pco_stream_count(const struct pco_stream *s, int fd, uint64_t off, uint64_t len,
		     struct pcl_cachestat *ret);
/* Bytes of [@off, end of file) cached, or 0 when it cannot be told. */
uint64_t pco_cached_from(const struct pco_stream *s, int fd, uint64_t off);
/* Bytes cached in [@off, @off + @len), 0 when it cannot be told. */
uint64_t pco_cached_in(const struct pco_stream *s, int fd, uint64_t off, uint64_t len);
/* How far an appender's cleaner may go behind it at @pos. */
uint64_t pco_clean_to(const struct pco_stream *s, uint64_t pos, const struct pco_ctx *c);
/* One look of the stream's cleaner; 1 while work remains. */
int pco_clean_look(struct pco_stream *s);

/* stream-stats.c */

/* The stream's --stats line to c->stats_fd, if it acted. */
void pco_stream_stats(const struct pco_stream *s, const struct pco_ctx *c);

#endif
