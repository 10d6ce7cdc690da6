// SPDX-License-Identifier: MIT
/*
 * The look at the file a stream takes (pcl_fd_take()), the read and the
 * write stream cores alike: its type, its access mode, its offset.
 */
#include <errno.h>
#include <fcntl.h>
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
