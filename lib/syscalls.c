// SPDX-License-Identifier: MIT
/*
 * Thin wrappers over the system calls the strategies share, including those
 * (cachestat, RWF_DONTCACHE, STATX_DIOALIGN) that older headers lack.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "internal.h"
#include "readfile.h"

#ifndef __NR_cachestat
#define __NR_cachestat 451	/* the same on every architecture */
#endif

#ifndef STATX_DIOALIGN
#define STATX_DIOALIGN 0x00002000U
#endif

struct pcl_cachestat_range {
	uint64_t off;
	uint64_t len;
};

ssize_t pcl_full_pread(int fd, void *buf, size_t len, uint64_t off, int rwf,
		      uint64_t *syscalls)
{
	size_t done = 0;

	while (done < len) {
		struct iovec iov = { (char *)buf + done, len - done };
		ssize_t n;

		(*syscalls)++;
		if (rwf)
			n = preadv2(fd, &iov, 1, off + done, rwf);
		else
			n = pread(fd, iov.iov_base, iov.iov_len, off + done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return done ? (ssize_t)done : -errno;
		if (n == 0)
			break;
		done += n;
	}
	return done;
}

int pcl_cachestat(int fd, uint64_t off, uint64_t len, struct pcl_cachestat *ret)
{
	struct pcl_cachestat_range range = { off, len };

	if (syscall(__NR_cachestat, fd, &range, ret, 0) < 0)
		return -errno;
	return 0;
}

int pcl_mincore(int fd, uint64_t off, uint64_t len, unsigned char *vec)
{
	void *map;
	int ret = 0;

	if (!len)
		return 0;
	map = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, off);
	if (map == MAP_FAILED)
		return -errno;
	if (mincore(map, len, vec) < 0)
		ret = -errno;
	munmap(map, len);
	return ret;
}

int pcl_reopen_direct(int fd)
{
	char path[64];
	int dfd;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	dfd = open(path, O_RDONLY | O_DIRECT | O_CLOEXEC | O_NOCTTY);
	return dfd < 0 ? -errno : dfd;
}

int pcl_dio_align(int fd, uint32_t *ret_mem, uint32_t *ret_off)
{
	struct statx stx;

	if (statx(fd, "", AT_EMPTY_PATH, STATX_DIOALIGN, &stx) < 0)
		return -errno;
	if (!(stx.stx_mask & STATX_DIOALIGN) || !stx.stx_dio_offset_align)
		return -EOPNOTSUPP;
	*ret_mem = stx.stx_dio_mem_align;
	*ret_off = stx.stx_dio_offset_align;
	return 0;
}

int pcl_file_size(int fd, uint64_t *ret_size)
{
	struct stat st;

	if (fstat(fd, &st) < 0)
		return -errno;
	*ret_size = st.st_size;
	return 0;
}

/* A queue's max_sectors_kb in bytes, from @path (open, read, close). */
static int read_max_request(const char *path, uint64_t *ret, unsigned int *calls)
{
	uint64_t kb;
	int err = pcc_read_u64(path, &kb);

	*calls += err == -ENOENT ? 1 : 3;
	if (err || !kb)
		return -EINVAL;
	*ret = kb << 10;
	return 0;
}

int pcl_dev_max_request(int fd, uint64_t *ret_bytes, unsigned int *calls)
{
	char path[96];
	struct stat st;

	++*calls;
	if (fstat(fd, &st) < 0)
		return -errno;
	/* the whole disk's queue, or the queue above a partition */
	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/queue/max_sectors_kb",
		 major(st.st_dev), minor(st.st_dev));
	if (!read_max_request(path, ret_bytes, calls))
		return 0;
	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/../queue/max_sectors_kb",
		 major(st.st_dev), minor(st.st_dev));
	return read_max_request(path, ret_bytes, calls);
}
