// SPDX-License-Identifier: MIT
/* Files read whole (readfile.h): small ones into a buffer, larger into memory. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "readfile.h"

int pcc_read_small(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), err;
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, size - 1);
	err = errno;
	close(fd);
	if (n < 0)
		return -err;
	buf[n] = 0;
	return (int)n;
}

int pcc_read_u64(const char *path, uint64_t *ret)
{
	char buf[32], *end;
	unsigned long long v;
	int n = pcc_read_small(path, buf, sizeof(buf));

	if (n < 0)
		return n;
	v = strtoull(buf, &end, 10);
	if (end == buf)
		return -EINVAL;
	*ret = v;
	return 0;
}

/* Read all of @fd into a malloc'ed string. */
static int read_fd_all(int fd, char **ret_text)
{
	size_t cap = 8192, len = 0;
	char *buf = malloc(cap), *nbuf;
	int ret = 0;

	if (!buf)
		return -ENOMEM;
	for (;;) {
		ssize_t n;

		if (len + 1 >= cap) {
			nbuf = realloc(buf, cap * 2);
			if (!nbuf) {
				ret = -ENOMEM;
				goto out_free;
			}
			buf = nbuf;
			cap *= 2;
		}
		n = read(fd, buf + len, cap - len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			ret = -errno;
			goto out_free;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	buf[len] = '\0';
	*ret_text = buf;
	return 0;
out_free:
	free(buf);
	return ret;
}

int pcc_read_all(const char *path, char **ret_text)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), ret;

	if (fd < 0)
		return -errno;
	ret = read_fd_all(fd, ret_text);
	close(fd);
	return ret;
}
