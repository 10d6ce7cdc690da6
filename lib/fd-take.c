// SPDX-License-Identifier: MIT
/*
 * What the read and the write stream cores do alike to make a stream: the
 * look at the file it takes (pcl_fd_take(): its type, its access mode, its
 * offset), the checks of the options both kinds have, and the steps from a
 * descriptor to a stream with its strategy (pcl_stream_new()).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"

int pcl_fd_take(int fd, int writer, struct pcl_fd *ret)
{
	struct stat st;
	int fl = O_RDONLY;
	off_t cur;

	if (fstat(fd, &st) < 0 || (writer && (fl = fcntl(fd, F_GETFL)) < 0))
		return -errno;
	if (S_ISDIR(st.st_mode))
		return -EISDIR;
	if (writer && (fl & O_ACCMODE) == O_RDONLY)
		return -EBADF;
	*ret = (struct pcl_fd){
		.regular = S_ISREG(st.st_mode),
		.append = !!(fl & O_APPEND),
		.readable = (fl & O_ACCMODE) != O_WRONLY,
	};
	if (ret->regular) {
		cur = lseek(fd, 0, writer && ret->append ? SEEK_END : SEEK_CUR);
		ret->pos = cur > 0 ? (uint64_t)cur : 0;
	}
	return 0;
}

int pcl_opts_check(enum pc_strategy strategy, size_t *chunk_size,
		   unsigned int *inflight, const uint64_t *resv, size_t nresv,
		   size_t max_chunk)
{
	if ((unsigned int)strategy >= PC_STRATEGY_COUNT || !pcl_resv_zero(resv, nresv))
		return -EINVAL;
	if (!*chunk_size)
		*chunk_size = PCL_CHUNK_DEFAULT;
	if (!*inflight)
		*inflight = PCL_INFLIGHT_DEFAULT;
	if (*chunk_size > max_chunk || *inflight > PCL_INFLIGHT_MAX)
		return -EINVAL;
	return 0;
}

int pcl_stream_new(const struct pcl_setup *how, int fd, int own_fd,
		   const void *opts, void **ret_stream)
{
	struct pcl_choice c;
	struct pcl_fd f;
	void *s = NULL;
	int ret;

	ret = pcl_fd_take(fd, how->dir == PCL_CAP_WRITE, &f);
	if (ret)
		goto out;
	f.fd = fd;
	f.own_fd = own_fd;
	s = calloc(1, how->size);
	ret = s ? how->take(s, &f, opts, &c) : -ENOMEM;
	if (ret)
		goto out;
	ret = pcl_strategy_setup(how, s, c.requested, f.regular, c.reason, c.size, c.ret_id);
	if (ret)
		goto out;
	*ret_stream = s;
	return 0;
out:
	free(s);
	if (own_fd)
		close(fd);
	return ret;
}
