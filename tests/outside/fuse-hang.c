// SPDX-License-Identifier: MIT
/*
 * outside-fuse-hang: a FUSE server (libfuse3) that a hostile user could
 * run: one file, /data, of SIZE MiB whose byte at offset o is (o * 7) & 255;
 * the first open of it is answered, every later one never is.  Its other
 * calls (getattr, read, flush, release) are answered, so the program that
 * opened the file first streams it normally.
 *
 *   outside-fuse-hang MOUNTPOINT SIZE_MIB   (in the foreground: kill it to end)
 */
#define FUSE_USE_VERSION 31
#include <errno.h>
#include <fuse.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static off_t data_size;
static atomic_int opens;

static int hang_getattr(const char *path, struct stat *st, struct fuse_file_info *fi)
{
	memset(st, 0, sizeof(*st));
	if (!strcmp(path, "/")) {
		st->st_mode = S_IFDIR | 0755;
		st->st_nlink = 2;
		return 0;
	}
	if (strcmp(path, "/data"))
		return -ENOENT;
	st->st_mode = S_IFREG | 0644;
	st->st_nlink = 1;
	st->st_size = data_size;
	return 0;
}

static int hang_readdir(const char *path, void *buf, fuse_fill_dir_t fill, off_t off,
			struct fuse_file_info *fi, enum fuse_readdir_flags flags)
{
	if (strcmp(path, "/"))
		return -ENOENT;
	fill(buf, ".", NULL, 0, 0);
	fill(buf, "..", NULL, 0, 0);
	fill(buf, "data", NULL, 0, 0);
	return 0;
}

/* The first open is answered; a second one waits for ever, as a hostile server's would. */
static int hang_open(const char *path, struct fuse_file_info *fi)
{
	if (strcmp(path, "/data"))
		return -ENOENT;
	if (atomic_fetch_add(&opens, 1) == 0) {
		fi->keep_cache = 1;	/* the page cache holds what was read */
		return 0;
	}
	for (;;)
		pause();
}

static int hang_read(const char *path, char *buf, size_t size, off_t off,
		     struct fuse_file_info *fi)
{
	if (off >= data_size)
		return 0;
	if ((off_t)size > data_size - off)
		size = data_size - off;
	for (size_t i = 0; i < size; i++)
		buf[i] = (char)(((off + i) * 7) & 255);
	return (int)size;
}

static const struct fuse_operations hang_ops = {
	.getattr = hang_getattr,
	.readdir = hang_readdir,
	.open = hang_open,
	.read = hang_read,
};

int main(int argc, char **argv)
{
	char *args[] = { argv[0], "-f", "-o", "allow_other", argc > 1 ? argv[1] : NULL, NULL };

	if (argc != 3 || atoi(argv[2]) <= 0) {
		fprintf(stderr, "usage: outside-fuse-hang MOUNTPOINT SIZE_MIB\n");
		return 2;
	}
	data_size = (off_t)atoi(argv[2]) << 20;
	return fuse_main(5, args, &hang_ops, NULL);
}
