// SPDX-License-Identifier: MIT
/*
 * What left the page cache while the shim dropped: the dropper and the
 * flusher count what they hand to POSIX_FADV_DONTNEED, which skips dirty
 * pages, pages under writeback and pages someone holds, so the stats count
 * the range's cached pages before and after each drop instead.  Where the
 * file's residency cannot be told (a file the caller may not write, a
 * write-only fd on overlayfs), the count is unknown and the stats say so.
 */
#include <stdio.h>

#include "preload.h"

static int cached(struct pl_meter *m, int fd, uint64_t off, uint64_t len, uint64_t *ret)
{
	struct pcl_cachestat cs;
	int err;

	m->syscalls += m->res.how == PCL_RES_CACHESTAT ? 1 : 3;	/* mincore: map, count, unmap */
	err = pcl_residency_count(&m->res, fd, off, len, &cs);

	if (!err)
		*ret = cs.nr_cache * m->res.page;
	return err;
}

void pl_meter_begin(struct pl_meter *m, int fd, uint64_t off, uint64_t len)
{
	if (!m->ready) {	/* how to tell residency: found at the first drop */
		pcl_residency_init(&m->res, fd);
		m->ready = 1;
	}
	m->off = off - off % m->res.page;
	m->len = len ? len + (off - m->off) : 0;
	m->armed = !cached(m, fd, m->off, m->len, &m->before);
	if (!m->armed)
		m->unknown = 1;
}

void pl_meter_end(struct pl_meter *m, int fd)
{
	uint64_t after;

	if (!m->armed)
		return;
	m->armed = 0;
	if (cached(m, fd, m->off, m->len, &after)) {
		m->unknown = 1;
		return;
	}
	m->dropped += m->before > after ? m->before - after : 0;
}

void pl_meter_reset(struct pl_meter *m)
{
	m->dropped = m->syscalls = 0;
	m->unknown = m->armed = 0;
}

const char *pl_meter_str(const struct pl_meter *m, char *buf, size_t size)
{
	if (m->unknown)
		return "unknown";
	snprintf(buf, size, "%llu", (unsigned long long)m->dropped);
	return buf;
}
