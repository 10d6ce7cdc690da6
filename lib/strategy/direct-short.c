// SPDX-License-Identifier: MIT
/*
 * direct's short reads: a read that came back short before the end of the
 * file is finished through the O_DIRECT descriptor, so that the page cache
 * stays out of it; a buffered read, its pages dropped after, is the last
 * resort.
 */
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "direct.h"

/* One O_DIRECT pread of [@at, @off + @len) into @buf at @at - @off. */
static ssize_t dio_pread(struct pc_stream *s, struct direct *d, char *buf,
			 size_t len, uint64_t off, uint64_t at)
{
	ssize_t n;

	do {
		s->stats.syscalls++;
		n = pread(d->dfd, buf + (at - off), len - (at - off), at);
	} while (n < 0 && errno == EINTR);
	return n < 0 ? -errno : n;
}

/*
 * Last resort for a short read that O_DIRECT cannot finish: a buffered read,
 * and its pages dropped again unless some were cached before.
 */
static ssize_t buffered_rest(struct pc_stream *s, char *buf, size_t len,
			     uint64_t at)
{
	uint64_t page = pcl_page_size(), start = pcl_align_down(at, page);
	struct pcl_cachestat cs = { .nr_cache = 1 };
	ssize_t n;

	s->stats.syscalls++;
	pcl_cachestat(s->fd, start, at + len - start, &cs);
	n = pcl_full_pread(s->fd, buf, len, at, 0, &s->stats.syscalls);
	if (n > 0 && !cs.nr_cache) {
		s->stats.syscalls++;
		posix_fadvise(s->fd, start, pcl_align_up(at + n, page) - start,
			      POSIX_FADV_DONTNEED);
	}
	return n;
}

/*
 * A read that came back with @got of @len bytes before the end of the file
 * (a FUSE server, say): read the rest through the O_DIRECT descriptor, so
 * that the page cache stays out of it.  Each retry starts at the aligned
 * offset at or below what is missing (@off is aligned, and so is @buf); a
 * server that keeps answering short from there is asked at the exact offset
 * (FUSE takes any), and only a file system that refuses both is read
 * buffered, with the pages dropped after.  Returns the bytes now in @buf.
 */
ssize_t pcl_direct_complete_short(struct pc_stream *s, struct direct *d, char *buf,
			      size_t len, size_t got, uint64_t off)
{
	uint64_t size;
	ssize_t n;

	while (got < len && !pcl_file_size(s->fd, &size) && off + got < size) {
		uint64_t at = pcl_align_down(off + got, d->align);

		if ((at - off) % d->mem_align)
			at = off + got;
		n = dio_pread(s, d, buf, len, off, at);
		if (n > 0 && at - off + n > got) {
			got = at - off + n;
			continue;
		}
		if (at != off + got)
			n = dio_pread(s, d, buf, len, off, off + got);
		if (n == -EINVAL)
			n = buffered_rest(s, buf + got, len - got, off + got);
		if (n <= 0)
			break;
		got += n;
	}
	return got;
}
