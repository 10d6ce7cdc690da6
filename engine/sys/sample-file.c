// SPDX-License-Identifier: MIT
/*
 * Files under a root: every path the readers open is prefixed with a root
 * directory ("/" or NULL for the live system, a fixture tree in tests), and
 * read whole into memory for the parsers.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sample.h"
#include "sample-internal.h"

int sample_path(const char *root, const char *path, char *buf, size_t size)
{
	int n;

	if (!root || !strcmp(root, "/"))
		root = "";
	while (root[0] && path[0] == '/' && root[strlen(root) - 1] == '/')
		path++;
	n = snprintf(buf, size, "%s%s", root, path);
	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

/* Read all of @fd into a malloc'ed string. */
static int slurp_fd(int fd, char **ret_text)
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

int sample_slurp(const char *root, const char *path, char **ret_text)
{
	char full[4096];
	int fd, ret;

	ret = sample_path(root, path, full, sizeof(full));
	if (ret)
		return ret;
	fd = open(full, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ret = slurp_fd(fd, ret_text);
	close(fd);
	return ret;
}

int sample_read_text(const char *root, const char *path, char *buf, size_t size)
{
	char *text;
	size_t len;
	int ret;

	if (!size)
		return -EINVAL;
	ret = sample_slurp(root, path, &text);
	if (ret)
		return ret;
	len = strlen(text);
	while (len && (text[len - 1] == '\n' || text[len - 1] == ' '))
		len--;
	if (len >= size)
		len = size - 1;
	memcpy(buf, text, len);
	buf[len] = '\0';
	free(text);
	return 0;
}

int sample_read_u64(const char *root, const char *path, uint64_t *ret)
{
	char buf[64];
	const char *p = buf;
	uint64_t v;
	int err;

	err = sample_read_text(root, path, buf, sizeof(buf));
	if (err)
		return err;
	if (!buf[0])
		return -ENODATA;
	err = sample_scan_u64(&p, &v);
	if (err)
		return err;
	*ret = v;
	return 0;
}

/* The "/proc/PID" (or "/proc/self") part of a path for @pid. */
void sample_proc_dir(pid_t pid, char *buf, size_t size)
{
	if (pid > 0)
		snprintf(buf, size, "/proc/%d", (int)pid);
	else
		snprintf(buf, size, "/proc/self");
}
