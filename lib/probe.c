// SPDX-License-Identifier: MIT
/*
 * Probes of what the kernel and a file's file system support, and the count
 * of a file's bytes in the page cache.  auto and `pagecliff doctor` use them.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/vfs.h>
#include <sys/uio.h>
#include <unistd.h>

#include <liburing.h>

#include "internal.h"

/* uname(2)'s release as 6 * 1000 + 12, once a process; 0 when it does not parse. */
int pcl_kernel_version(void)
{
	static int known = -1;
	int v = __atomic_load_n(&known, __ATOMIC_RELAXED);
	struct utsname u;
	int maj, min;

	if (v >= 0)
		return v;
	v = 0;
	if (!uname(&u) && sscanf(u.release, "%d.%d", &maj, &min) == 2)
		v = maj * 1000 + min;
	__atomic_store_n(&known, v, __ATOMIC_RELAXED);
	return v;
}

/* pc_cached_bytes(), counting its system calls in *calls. */
static int cached_bytes(int fd, uint64_t offset, uint64_t length,
			uint64_t *ret_bytes, uint64_t *calls)
{
	struct pcl_residency r;
	struct pcl_cachestat cs;
	uint64_t size;
	int ret;

	(*calls)++;
	ret = pcl_file_size(fd, &size);
	if (ret)
		return ret;
	pcl_residency_init(&r, fd);
	*calls += r.calls;
	offset = pcl_align_down(offset, r.page);
	if (offset >= size) {
		*ret_bytes = 0;
		return 0;
	}
	if (!length || length > size - offset)
		length = size - offset;
	*calls += pcl_residency_count_calls(&r, length);
	ret = pcl_residency_count(&r, fd, offset, length, &cs);
	if (ret)
		return ret;
	*ret_bytes = cs.nr_cache * r.page;
	return 0;
}

int pc_cached_bytes(int fd, uint64_t offset, uint64_t length, uint64_t *ret_bytes)
{
	uint64_t calls = 0;

	return cached_bytes(fd, offset, length, ret_bytes, &calls);
}

/*
 * A one-byte RWF_DONTCACHE read at the end of the file: the kernel checks the
 * flag (kiocb_set_rw_flags()) before it looks at the offset, and a read at
 * the end brings no page in, so the probe leaves the cache as it was.
 */
static int probe_dontcache(int fd, uint64_t size, uint64_t *calls)
{
	char byte;
	struct iovec iov = { &byte, 1 };

	while ((*calls)++, preadv2(fd, &iov, 1, size, RWF_DONTCACHE) < 0) {
		if (errno != EINTR)
			return -errno;
	}
	return 0;
}

/*
 * A ring set up and torn down.  liburing's io_uring_queue_init() makes
 * io_uring_setup(2) and maps the rings and the entries (one mapping fewer
 * with IORING_FEAT_SINGLE_MMAP); io_uring_queue_exit() unmaps them and
 * closes the ring.
 */
static int probe_uring(uint64_t *calls)
{
	struct io_uring ring;
	unsigned int maps;
	int ret;

	(*calls)++;
	ret = pcl_ring_init(1, &ring);
	if (ret)
		return ret;
	maps = ring.features & IORING_FEAT_SINGLE_MMAP ? 2 : 3;
	*calls += maps + maps + 1;
	pcl_ring_exit(&ring);
	return 0;
}

static void probe_direct(int fd, struct pc_probe *p, uint64_t *calls)
{
	int dfd = pcl_reopen_direct(fd);

	(*calls)++;
	if (dfd < 0) {
		p->direct_err = dfd;
		return;
	}
	close(dfd);
	*calls += 2;	/* close and statx */
	p->direct = 1;
	if (!pcl_dio_align(fd, &p->dio_mem_align, &p->dio_offset_align))
		p->dioalign_known = 1;
}

int pcl_probe_cache(int fd, struct pc_probe *ret_probe, uint64_t *calls)
{
	struct pcl_cachestat cs;
	struct stat st;

	(*calls)++;
	if (fstat(fd, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode))
		return -EINVAL;
	memset(ret_probe, 0, sizeof(*ret_probe));
	ret_probe->file_size = st.st_size;
	if (cached_bytes(fd, 0, 0, &ret_probe->cached_bytes, calls))
		ret_probe->cached_bytes = PC_BYTES_UNKNOWN;
	(*calls)++;
	ret_probe->cachestat = !pcl_cachestat(fd, 0, 0, &cs);
	return 0;
}

int pcl_probe_fd(int fd, struct pc_probe *ret_probe, uint64_t *calls)
{
	struct pc_probe p;
	int ret;

	/* Count before anything reads the file. */
	ret = pcl_probe_cache(fd, &p, calls);
	if (ret)
		return ret;
	p.dontcache_err = probe_dontcache(fd, p.file_size, calls);
	p.dontcache = !p.dontcache_err;
	probe_direct(fd, &p, calls);
	p.uring_err = probe_uring(calls);
	p.uring = !p.uring_err;
	*ret_probe = p;
	return 0;
}

int pc_probe_fd(int fd, struct pc_probe *ret_probe)
{
	uint64_t calls = 0;

	return pcl_probe_fd(fd, ret_probe, &calls);
}
