// SPDX-License-Identifier: MIT
/*
 * The truthful count of a file's residency (pcl_residency_*), which the
 * preload shim shares: cachestat(2) where the kernel has it, else mincore(2)
 * where it does not lie to the caller, never on overlayfs's empty mapping.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "internal.h"
#include "fsmagic.h"

/*
 * mincore(2) tells the truth of a file mapping only to its owner, to a
 * caller with CAP_FOWNER or to one who may write the file; anybody else is
 * told every page is resident (mm/mincore.c, can_do_mincore()).
 */
static int mincore_truthful(int fd, unsigned int *calls)
{
	char path[64];
	struct stat st;
	uid_t euid;

	(*calls)++;
	if (fstat(fd, &st) < 0)
		return 0;
	(*calls)++;
	euid = geteuid();
	if (euid == 0 || st.st_uid == euid)
		return 1;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	(*calls)++;
	return !faccessat(AT_FDCWD, path, W_OK, AT_EACCESS);
}

static int on_overlayfs(int fd)
{
	struct statfs sfs;

	return !fstatfs(fd, &sfs) && sfs.f_type == OVERLAYFS_SUPER_MAGIC;
}

void pcl_residency_init(struct pcl_residency *r, int fd)
{
	struct pcl_cachestat cs;
	int ret;

	*r = (struct pcl_residency){ .page = pcl_page_size() };
	r->overlay = on_overlayfs(fd);
	r->calls = 1;
	/* overlayfs: cachestat sees the overlay's empty mapping, mmap the real file */
	ret = r->overlay ? -EOPNOTSUPP : pcl_cachestat(fd, 0, 1, &cs);
	r->calls += !r->overlay;
	if (!ret) {
		r->how = PCL_RES_CACHESTAT;
	} else if (ret != -EPERM && mincore_truthful(fd, &r->calls)) {
		r->how = PCL_RES_MINCORE;
	} else {
		r->how = PCL_RES_UNKNOWN;
		r->err = ret == -EPERM || ret == -ENOSYS || ret == -EOPNOTSUPP ? -EPERM : ret;
	}
}

/* Count cached pages with mincore, a window at a time to bound memory. */
static int cached_mincore(int fd, uint64_t off, uint64_t len, uint64_t page,
			  uint64_t *ret)
{
	const uint64_t win = 64 * PCL_MIB;
	unsigned char *vec;
	uint64_t pages = 0;
	int err = 0;

	vec = malloc(win / page);
	if (!vec)
		return -ENOMEM;
	for (uint64_t o = off; o < off + len && !err; o += win) {
		uint64_t n = off + len - o < win ? off + len - o : win;

		err = pcl_mincore(fd, o, n, vec);
		for (uint64_t i = 0; !err && i < (n + page - 1) / page; i++)
			pages += vec[i] & 1;
	}
	free(vec);
	if (!err)
		*ret = pages;
	return err;
}

uint64_t pcl_residency_count_calls(const struct pcl_residency *r, uint64_t len)
{
	const uint64_t win = 64 * PCL_MIB;

	if (r->how == PCL_RES_CACHESTAT)
		return 1;
	if (r->how == PCL_RES_UNKNOWN)
		return 0;
	/* fstat, then mmap, mincore and munmap a window at a time */
	return 1 + 3 * ((len + win - 1) / win);
}

int pcl_residency_count(const struct pcl_residency *r, int fd, uint64_t off,
		       uint64_t len, struct pcl_cachestat *ret)
{
	uint64_t size;
	int err;

	if (r->how == PCL_RES_CACHESTAT)
		return pcl_cachestat(fd, off, len, ret);
	if (r->how == PCL_RES_UNKNOWN)
		return r->err;
	err = pcl_file_size(fd, &size);
	if (err)
		return err;
	*ret = (struct pcl_cachestat){ 0 };
	if (off >= size)
		return 0;
	if (!len || len > size - off)
		len = size - off;
	return cached_mincore(fd, off, len, r->page, &ret->nr_cache);
}
