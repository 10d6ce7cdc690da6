// SPDX-License-Identifier: MIT
/*
 * direct's setup and teardown: the O_DIRECT descriptor and the alignment it
 * wants, the bound on bytes in flight, the slots' buffers and the ring.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <liburing.h>

#include "direct-tune.h"
#include "direct.h"

static int open_direct(struct pc_stream *s, struct direct *d)
{
	uint32_t mem_align = pcl_page_size(), off_align = pcl_page_size();

	d->dfd = pcl_reopen_direct(s->fd);
	if (d->dfd < 0) {
		pcl_set_reason(s, "O_DIRECT refused (%s)", strerror(-d->dfd));
		return d->dfd == -ENOMEM ? -ENOMEM : -EOPNOTSUPP;
	}
	/* Without STATX_DIOALIGN a page covers every logical block size. */
	pcl_dio_align(s->fd, &mem_align, &off_align);
	if (mem_align > pcl_page_size() || pcl_page_size() % mem_align) {
		pcl_set_reason(s, "O_DIRECT wants %u-byte buffers", mem_align);
		return -EOPNOTSUPP;
	}
	d->align = off_align;
	d->mem_align = mem_align;
	d->chunk = pcl_align_up(s->opts.chunk_size,
			       off_align > pcl_page_size() ? off_align : pcl_page_size());
	return 0;
}

/*
 * Files from this size get their slots in huge pages, so that a request of
 * several slots reaches the device unsplit (lib/buf.c).  Under it the first
 * touch of huge pages can cost more than they win: on this project's VM up
 * to 15 ms per fresh 2 MiB page, 60 ms for the starting 8 MiB, what the disk
 * gains on a 256 MiB file (1.4 GB/s from small pages, 2.06 from huge ones).
 */
#define PCL_DIRECT_HUGE_FROM (256ull << 20)

static int alloc_slots(struct direct *d)
{
	d->slots = calloc(d->nmax, sizeof(*d->slots));
	d->pieces = calloc(d->nmax, sizeof(*d->pieces));
	d->bufs_size = (size_t)d->nmax * d->chunk;
	d->bufs = pcl_buf_map(d->bufs_size, d->bufs_huge);
	if (!d->slots || !d->pieces || !d->bufs)
		return -ENOMEM;
	for (unsigned int i = 0; i < d->nmax; i++)
		d->slots[i].buf = d->bufs + (size_t)i * d->chunk;
	return 0;
}

/*
 * The largest request the pipeline makes, several slots read at once: what
 * the kernel's readahead asks of the VM's virtio disk at a time (its
 * max_sectors_kb, 4 MiB); the block layer splits it for a device that takes
 * less.
 */
#define PCL_DIRECT_REQ_MAX (4u * PCL_MIB)

/* Requests as large as the device takes, when that is several slots. */
static void dev_request(struct pc_stream *s, struct direct *d)
{
	unsigned int calls = 0;
	uint64_t bytes;
	int ret = pcl_dev_max_request(s->fd, &bytes, &calls);

	s->stats.syscalls += calls;
	if (!ret && bytes >= 2 * d->chunk)
		pcl_tune_req_dev(&d->dt, (unsigned int)(bytes / d->chunk));
}

/*
 * Bound the bytes in flight: at most PC_DIRECT_INFLIGHT_MAX in all, the chunk
 * shrunk to it when larger, and never more slots or a larger chunk than the
 * file needs now (a 300 MB file does not need 8 x 1 GiB).  The buffers are
 * pinned when registered with the ring, so every byte of them is resident.
 */
static void bound_inflight(struct pc_stream *s, struct direct *d)
{
	uint64_t unit = d->align > pcl_page_size() ? d->align : pcl_page_size();
	uint64_t size = 0, need, cap = PC_DIRECT_INFLIGHT_MAX;
	size_t chunk = d->chunk;

	pcl_file_size(s->fd, &size);
	d->bufs_huge = size >= PCL_DIRECT_HUGE_FROM;
	need = pcl_align_up(size ? size : 1, unit);
	if (cap < unit)
		cap = unit;
	/* Over the bound: smaller chunks first (not under 1 MiB), to keep depth. */
	if ((uint64_t)d->chunk * s->opts.inflight > cap) {
		uint64_t fit = cap / s->opts.inflight;

		if (fit < PCL_MIB)
			fit = PCL_MIB;
		fit = pcl_align_up(fit, unit);
		if (fit < d->chunk)
			d->chunk = fit;
	}
	if (d->chunk > cap)
		d->chunk = pcl_align_down(cap, unit);
	if (d->chunk > need)
		d->chunk = need;
	d->nslots = s->opts.inflight;
	if (d->nslots > cap / d->chunk)
		d->nslots = cap / d->chunk;
	if (d->nslots > (need + d->chunk - 1) / d->chunk)
		d->nslots = (need + d->chunk - 1) / d->chunk;
	if (!d->nslots)
		d->nslots = 1;
	/* The tuner may go as deep as the bound and the file allow. */
	d->nmax = cap / d->chunk;
	if (d->nmax > (need + d->chunk - 1) / d->chunk)
		d->nmax = (need + d->chunk - 1) / d->chunk;
	if (d->nmax < d->nslots)
		d->nmax = d->nslots;
	d->want = d->nslots;
	/*
	 * Never under the starting depth: on the loaded RAM testbed, window
	 * noise let probes down to 2 pass as "no loss" and cost 10-25%.
	 */
	pcl_tune_depth_init(&d->dt, d->nslots, d->nslots, d->nmax);
	pcl_tune_req_max(&d->dt, PCL_DIRECT_REQ_MAX / d->chunk);
	dev_request(s, d);
	d->req = pcl_tune_req(&d->dt);
	if (d->req > 1)
		pcl_add_reason(s, "requests of %zu KiB (the device's largest)",
			      d->req * d->chunk >> 10);
	if (d->chunk != chunk || d->nslots != s->opts.inflight)
		pcl_add_reason(s, "%u x %zu KiB in flight (the file and a %u MiB bound)",
			      d->nslots, d->chunk >> 10,
			      (unsigned int)(PC_DIRECT_INFLIGHT_MAX >> 20));
}

void pcl_direct_release(struct pc_stream *s)
{
	struct direct *d = s->priv;

	if (!d)
		return;
	if (d->have_ring) {
		pcl_direct_drain(s, d);
		pcl_ring_exit(&d->ring);
	}
	pcl_buf_unmap(d->bufs, d->bufs_size, d->bufs_huge);
	pcl_buf_unmap(d->bounce, d->chunk, d->bufs_huge);
	free(d->slots);
	free(d->pieces);
	if (d->dfd >= 0)
		close(d->dfd);
	free(d);
	s->priv = NULL;
}

int pcl_direct_init(struct pc_stream *s)
{
	struct direct *d;
	int ret;

	d = calloc(1, sizeof(*d));
	if (!d)
		return -ENOMEM;
	s->priv = d;
	d->dfd = -1;
	ret = open_direct(s, d);
	if (ret)
		goto out_release;
	bound_inflight(s, d);
	ret = alloc_slots(d);
	if (ret)
		goto out_release;
	ret = pcl_direct_ring_setup(s, d);
	if (ret) {
		/* One slot: a synchronous read at a time. */
		pcl_add_reason(s, "io_uring unavailable (%s): synchronous O_DIRECT",
			      strerror(-ret));
		d->nslots = d->want = d->req = 1;
	}
	d->restart = 1;
	return 0;
out_release:
	pcl_direct_release(s);
	return ret;
}
