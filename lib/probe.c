// SPDX-License-Identifier: MIT
/*
 * Probes of what the kernel and a file's file system support, and the count
 * of a file's bytes in the page cache.  auto and `pagecliff doctor` use them.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include <liburing.h>

#include "internal.h"

/* Count cached pages with mincore, a window at a time to bound memory. */
static int cached_mincore(int fd, uint64_t off, uint64_t len, uint64_t *ret)
{
	const uint64_t win = 64 * PC_MIB;
	unsigned char *vec;
	uint64_t pages = 0;
	int err = 0;

	vec = malloc(win / PC_PAGE_SIZE);
	if (!vec)
		return -ENOMEM;
	for (uint64_t o = off; o < off + len && !err; o += win) {
		uint64_t n = off + len - o < win ? off + len - o : win;

		err = pc_mincore(fd, o, n, vec);
		for (uint64_t i = 0; !err && i < (n + PC_PAGE_SIZE - 1) / PC_PAGE_SIZE; i++)
			pages += vec[i] & 1;
	}
	free(vec);
	if (!err)
		*ret = pages;
	return err;
}

int pc_cached_bytes(int fd, uint64_t offset, uint64_t length, uint64_t *ret_bytes)
{
	struct pc_cachestat cs;
	uint64_t size, pages;
	int ret;

	ret = pc_file_size(fd, &size);
	if (ret)
		return ret;
	offset = pc_align_down(offset, PC_PAGE_SIZE);
	if (offset >= size) {
		*ret_bytes = 0;
		return 0;
	}
	if (!length || length > size - offset)
		length = size - offset;
	ret = pc_cachestat(fd, offset, length, &cs);
	pages = cs.nr_cache;
	if (ret == -ENOSYS || ret == -EPERM)
		ret = cached_mincore(fd, offset, length, &pages);
	if (ret)
		return ret;
	*ret_bytes = pages * PC_PAGE_SIZE;
	return 0;
}

/* A one-byte RWF_DONTCACHE read: the kernel checks the flag before reading. */
static int probe_dontcache(int fd)
{
	char byte;
	struct iovec iov = { &byte, 1 };

	while (preadv2(fd, &iov, 1, 0, RWF_DONTCACHE) < 0) {
		if (errno != EINTR)
			return -errno;
	}
	return 0;
}

static int probe_uring(void)
{
	struct io_uring ring;
	int ret;

	ret = pc_ring_init(1, &ring);
	if (ret)
		return ret;
	pc_ring_exit(&ring);
	return 0;
}

static void probe_direct(int fd, struct pc_probe *p)
{
	int dfd = pc_reopen_direct(fd);

	if (dfd < 0) {
		p->direct_err = dfd;
		return;
	}
	close(dfd);
	p->direct = 1;
	if (!pc_dio_align(fd, &p->dio_mem_align, &p->dio_offset_align))
		p->dioalign_known = 1;
}

int pc_probe_fd(int fd, struct pc_probe *ret_probe)
{
	struct pc_cachestat cs;
	struct pc_probe p;
	struct stat st;

	if (fstat(fd, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode))
		return -EINVAL;
	memset(&p, 0, sizeof(p));
	p.file_size = st.st_size;
	p.dontcache_err = probe_dontcache(fd);
	p.dontcache = !p.dontcache_err;
	probe_direct(fd, &p);
	p.uring_err = probe_uring();
	p.uring = !p.uring_err;
	p.cachestat = !pc_cachestat(fd, 0, 0, &cs);
	if (pc_cached_bytes(fd, 0, 0, &p.cached_bytes))
		p.cached_bytes = 0;
	*ret_probe = p;
	return 0;
}
