// SPDX-License-Identifier: MIT
/*
 * What the read and the write stream cores share: the reason a stream gives
 * for its strategy (pc_stats.reason, pc_wstats.reason), written by auto, by
 * a strategy that refuses and by the cores, and the look at the file a
 * stream takes.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"
#include "strategy.h"
#include "wstrategy.h"

void pcl_reason_vprintf(char *reason, size_t size, int add, const char *fmt,
			va_list ap)
{
	size_t len = add ? strlen(reason) : 0;

	if (len && len + 2 < size) {
		memcpy(reason + len, "; ", 3);
		len += 2;
	}
	vsnprintf(reason + len, size - len, fmt, ap);
}

/* The reason either kind of stream gives: set anew, or added with "; ". */
#define REASON_PRINTF(name, stream, add)					\
	void name(stream *s, const char *fmt, ...)				\
	{									\
		va_list ap;							\
										\
		va_start(ap, fmt);						\
		pcl_reason_vprintf(s->stats.reason, sizeof(s->stats.reason),	\
				   add, fmt, ap);				\
		va_end(ap);							\
	}

REASON_PRINTF(pcl_set_reason, struct pc_stream, 0)
REASON_PRINTF(pcl_add_reason, struct pc_stream, 1)
REASON_PRINTF(pcl_wset_reason, struct pc_wstream, 0)
REASON_PRINTF(pcl_wadd_reason, struct pc_wstream, 1)

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
