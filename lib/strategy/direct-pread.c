// SPDX-License-Identifier: MIT
/*
 * direct's reads off the cursor (pc_stream_pread()): synchronous O_DIRECT
 * reads through an aligned bounce buffer of the stream's, the pipeline left
 * as it is.
 */
#include <errno.h>
#include <string.h>

#include "direct.h"

/* Off-cursor reads go synchronously through an aligned bounce buffer. */
ssize_t pcl_direct_pread(struct pc_stream *s, void *buf, size_t len,
			    uint64_t off)
{
	struct direct *d = s->priv;
	size_t done = 0;

	if (!d->bounce) {
		d->bounce = pcl_buf_map(d->chunk, d->bufs_huge);
		if (!d->bounce)
			return -ENOMEM;
	}
	while (done < len) {
		uint64_t at = off + done, base = pcl_align_down(at, d->align);
		size_t want = pcl_align_up(at + (len - done), d->align) - base;
		ssize_t n;

		if (want > d->chunk)
			want = d->chunk;
		n = pcl_full_pread(d->dfd, d->bounce, want, base, 0,
				  &s->stats.syscalls);
		if (n < 0)
			return done ? (ssize_t)done : n;
		if ((uint64_t)n <= at - base)
			break;
		size_t take = n - (at - base);

		if (take > len - done)
			take = len - done;
		memcpy((char *)buf + done, d->bounce + (at - base), take);
		done += take;
		if ((size_t)n < want)
			break;	/* end of file */
	}
	return done;
}
