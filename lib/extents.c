// SPDX-License-Identifier: MIT
/*
 * Cached extents of a file at one moment (see extents.h): found with
 * cachestat(2) per window, and mincore(2) page by page only in windows
 * that hold some.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "extents.h"

/* Scanned this much at a time: a mincore vector of 16 KiB. */
#define PCL_EXTENTS_WINDOW (64 * PCL_MIB)

/* Append [lo, hi), merging with the last extent when they touch. */
static int add(struct pcl_extents *e, uint64_t lo, uint64_t hi)
{
	if (e->n && e->r[e->n - 1][1] >= lo) {
		if (hi > e->r[e->n - 1][1])
			e->r[e->n - 1][1] = hi;
		return 0;
	}
	if (e->n == e->cap) {
		int cap = e->cap ? 2 * e->cap : 16;
		uint64_t (*more)[2] = realloc(e->r, cap * sizeof(*more));

		if (!more)
			return -ENOMEM;
		e->r = more;
		e->cap = cap;
	}
	e->r[e->n][0] = lo;
	e->r[e->n][1] = hi;
	e->n++;
	return 0;
}

/* The cached pages of one window [off, off + len), page by page. */
static int scan_pages(struct pcl_extents *e, int fd, uint64_t off, uint64_t len,
		      uint64_t page, unsigned char *vec, uint64_t *calls)
{
	uint64_t pages = (len + page - 1) / page;
	int err;

	(*calls)++;
	err = pcl_mincore(fd, off, len, vec);
	if (err)
		return err;
	for (uint64_t i = 0; i < pages && !err; i++) {
		if (!(vec[i] & 1))
			continue;
		if (e->n == PCL_EXTENTS_MAX && e->r[e->n - 1][1] < off + i * page)
			return -E2BIG;
		err = add(e, off + i * page, off + (i + 1) * page);
	}
	return err;
}

int pcl_extents_scan(struct pcl_extents *e, const struct pcl_residency *res, int fd,
		     uint64_t from, uint64_t to, uint64_t *calls)
{
	uint64_t page = res->page, off = from / page * page;
	unsigned char *vec = NULL;
	struct pcl_cachestat cs;
	int err = 0;

	*e = (struct pcl_extents){ 0 };
	if (res->how == PCL_RES_UNKNOWN)
		return res->err ? res->err : -EPERM;
	while (off < to && !err) {
		uint64_t len = to - off < PCL_EXTENTS_WINDOW ? to - off : PCL_EXTENTS_WINDOW;

		(*calls)++;
		err = pcl_residency_count(res, fd, off, len, &cs);
		/* all of it cached (a warm file): one extent, no page-by-page look */
		if (!err && cs.nr_cache == (len + page - 1) / page && res->how == PCL_RES_CACHESTAT)
			err = add(e, off, off + (len + page - 1) / page * page);
		else if (!err && cs.nr_cache && !vec && !(vec = malloc(PCL_EXTENTS_WINDOW / page)))
			err = -ENOMEM;
		else if (!err && cs.nr_cache)
			err = scan_pages(e, fd, off, len, page, vec, calls);
		if (err == -E2BIG)	/* too many: keep the rest whole */
			err = add(e, e->r[e->n - 1][1], (to + page - 1) / page * page);
		else
			off += len;
		if (e->n && e->r[e->n - 1][1] >= to)
			break;
	}
	free(vec);
	if (err)
		pcl_extents_release(e);
	return err;
}

void pcl_extents_release(struct pcl_extents *e)
{
	free(e->r);
	*e = (struct pcl_extents){ 0 };
}

uint64_t pcl_extents_split(const struct pcl_extents *e, uint64_t off, uint64_t len,
			   void (*drop)(void *arg, uint64_t off, uint64_t len), void *arg)
{
	uint64_t end = off + len, kept = 0;
	int lo = 0, hi = e->n;

	/* the first extent that ends after off */
	while (lo < hi) {
		int mid = (lo + hi) / 2;

		if (e->r[mid][1] <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (int i = lo; i < e->n && off < end && e->r[i][0] < end; i++) {
		uint64_t klo = e->r[i][0] > off ? e->r[i][0] : off;
		uint64_t khi = e->r[i][1] < end ? e->r[i][1] : end;

		if (klo > off)
			drop(arg, off, klo - off);
		kept += khi - klo;
		off = khi;
	}
	if (off < end)
		drop(arg, off, end - off);
	return kept;
}

/* The index of the extent that begins at @off, or -1. */
static int at(const struct pcl_extents *e, uint64_t off)
{
	for (int i = 0; i < e->n && e->r[i][0] <= off; i++)
		if (e->r[i][0] == off)
			return i;
	return -1;
}

uint64_t pcl_extents_front(const struct pcl_extents *e, uint64_t off)
{
	int i = at(e, off);

	return i < 0 ? 0 : e->r[i][1] - e->r[i][0];
}

void pcl_extents_cut(struct pcl_extents *e, uint64_t off, uint64_t len)
{
	int i = at(e, off);

	if (i < 0 || !len)
		return;
	e->r[i][0] += len;
	if (e->r[i][0] < e->r[i][1])
		return;
	memmove(&e->r[i], &e->r[i + 1], (e->n - i - 1) * sizeof(e->r[0]));
	e->n--;
}

uint64_t pcl_extents_bytes(const struct pcl_extents *e)
{
	uint64_t sum = 0;

	for (int i = 0; i < e->n; i++)
		sum += e->r[i][1] - e->r[i][0];
	return sum;
}
