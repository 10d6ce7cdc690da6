// SPDX-License-Identifier: MIT
/*
 * Thin wrappers over the system calls the strategies share, including those
 * (cachestat, RWF_DONTCACHE, STATX_DIOALIGN) that older headers lack.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "internal.h"

#ifndef __NR_cachestat
#define __NR_cachestat 451	/* the same on every architecture */
#endif

#ifndef STATX_DIOALIGN
#define STATX_DIOALIGN 0x00002000U
#endif

struct pc_cachestat_range {
	uint64_t off;
	uint64_t len;
};

ssize_t pc_full_pread(int fd, void *buf, size_t len, uint64_t off, int rwf,
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

int pc_cachestat(int fd, uint64_t off, uint64_t len, struct pc_cachestat *ret)
{
	struct pc_cachestat_range range = { off, len };

	if (syscall(__NR_cachestat, fd, &range, ret, 0) < 0)
		return -errno;
	return 0;
}

int pc_mincore(int fd, uint64_t off, uint64_t len, unsigned char *vec)
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

int pc_reopen_direct(int fd)
{
	char path[64];
	int dfd;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	dfd = open(path, O_RDONLY | O_DIRECT | O_CLOEXEC | O_NOCTTY);
	return dfd < 0 ? -errno : dfd;
}

int pc_dio_align(int fd, uint32_t *ret_mem, uint32_t *ret_off)
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

int pc_file_size(int fd, uint64_t *ret_size)
{
	struct stat st;

	if (fstat(fd, &st) < 0)
		return -errno;
	*ret_size = st.st_size;
	return 0;
}
