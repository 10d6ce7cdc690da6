// SPDX-License-Identifier: MIT
/*
 * direct: O_DIRECT reads through io_uring with several chunks in flight ahead
 * of the consumer, into page-aligned buffers registered with the ring.  The
 * page cache is never touched.  Without io_uring the same pipeline runs one
 * synchronous O_DIRECT read at a time.  Offsets, lengths and the file's tail
 * need no alignment from the caller.
 *
 * This file holds the strategy's entry points and its ops table; the parts,
 * one concern each (direct.h): direct-open.c (descriptor, alignment, bounds,
 * setup), direct-ring.c (io_uring), direct-pipe.c (the pipeline of slots),
 * direct-short.c (short reads), direct-user.c (reads into the caller's
 * buffer), direct-measure.c (the tuners' measurements; the depth tuner itself
 * is direct-tune.c) and direct-pread.c (reads off the cursor).
 */
#include <string.h>

#include "direct.h"

static ssize_t direct_read(struct pc_stream *s, void *buf, size_t len)
{
	struct direct *d = s->priv;
	size_t done = 0;

	pcl_direct_loan_end(d);
	if (pcl_direct_user_fits(s, d, buf, len)) {
		if (pcl_direct_way(&d->tune) == WAY_USER) {
			ssize_t n = pcl_direct_read_user(s, d, buf, len);

			if (n != -ECANCELED)
				return n;
		}
		d->tune.bytes += len;	/* the pipeline's turn (end of file aside) */
	}
	while (done < len) {
		char *p;
		ssize_t n = pcl_direct_peek(s, d, s->pos + done, &p);

		if (n < 0)
			return done ? (ssize_t)done : n;
		if (n == 0)
			break;
		if ((size_t)n > len - done)
			n = len - done;
		memcpy((char *)buf + done, p, n);
		pcl_direct_account(d, n);
		d->head_used += n;
		if (d->head_used == d->chunk)
			pcl_direct_retire(d);
		done += n;
	}
	return done;
}

/* Lend the rest of the head slot; it is retired when the loan ends. */
static ssize_t direct_next(struct pc_stream *s, const void **ret_data)
{
	struct direct *d = s->priv;
	char *p;
	ssize_t n;

	pcl_direct_loan_end(d);
	n = pcl_direct_peek(s, d, s->pos, &p);
	if (n <= 0)
		return n;
	*ret_data = p;
	pcl_direct_account(d, n);
	d->head_used += n;
	d->lent = d->head_used == d->chunk;
	return n;
}

const struct pcl_strategy_ops pcl_strat_direct = {
	.init = pcl_direct_init,
	.read = direct_read,
	.pread = pcl_direct_pread,
	.next = direct_next,
	.release = pcl_direct_release,
};
