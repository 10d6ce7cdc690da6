// SPDX-License-Identifier: MIT
/*
 * The temp files doctor's probes try things on: O_TMPFILE, or a mkstemp()
 * name unlinked at once, filled with a pattern.  Nobody else sees them and
 * nothing is left behind.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "pagecliff.h"
#include "doctor.h"

#define FILL_CHUNK (1u << 20)

/* Fill @fd with @size bytes of a pattern; 0 or -errno. */
static int fill(int fd, size_t size)
{
	char *buf = pc_buf_alloc(FILL_CHUNK);
	int ret = 0;

	if (!buf)
		return -ENOMEM;
	for (size_t i = 0; i < FILL_CHUNK; i++)
		buf[i] = (char)(i * 31 + 7);
	for (size_t off = 0; off < size && !ret; off += FILL_CHUNK) {
		size_t n = size - off < FILL_CHUNK ? size - off : FILL_CHUNK;
		ssize_t w = pwrite(fd, buf, n, (off_t)off);

		if (w < 0)
			ret = -errno;
		else if ((size_t)w != n)
			ret = -ENOSPC;
	}
	pc_buf_free(buf, FILL_CHUNK);
	return ret;
}

int doctor_temp_file(const char *dir, size_t size)
{
	char name[PATH_MAX];
	int fd, err;

	fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd < 0 && (errno == EACCES || errno == EROFS || errno == EPERM))
		return -errno;
	if (fd < 0) {
		if (snprintf(name, sizeof(name), "%s/.pagecliff-doctor-XXXXXX", dir) >=
		    (int)sizeof(name))
			return -ENAMETOOLONG;
		fd = mkostemp(name, O_CLOEXEC);
		if (fd < 0)
			return -errno;
		unlink(name);
	}
	err = fill(fd, size);
	if (err) {
		close(fd);
		return err;
	}
	return fd;
}
