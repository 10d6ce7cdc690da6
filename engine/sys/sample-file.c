// SPDX-License-Identifier: MIT
/*
 * Files under a root: every path the readers open is prefixed with a root
 * directory ("/" or NULL for the live system, a fixture tree in tests), and
 * read whole into memory for the parsers.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sample.h"
#include "sample-internal.h"
#include "readfile.h"

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

int sample_slurp(const char *root, const char *path, char **ret_text)
{
	char full[PATH_MAX];
	int ret = sample_path(root, path, full, sizeof(full));

	return ret ? ret : pcc_read_all(full, ret_text);
}

int sample_read_text(const char *root, const char *path, char *buf, size_t size)
{
	char full[PATH_MAX];
	int ret;

	if (!size)
		return -EINVAL;
	ret = sample_path(root, path, full, sizeof(full));
	if (!ret)
		ret = pcc_read_small(full, buf, size);
	if (ret < 0)
		return ret;
	while (ret && (buf[ret - 1] == '\n' || buf[ret - 1] == ' '))
		buf[--ret] = '\0';
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
