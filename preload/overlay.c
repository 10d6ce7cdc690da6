// SPDX-License-Identifier: MIT
/*
 * Writers on overlayfs: the pages a program writes through an overlay file
 * live in the real (upper) file's mapping, which sync_file_range(2),
 * cachestat(2) and a mapping of the program's write-only fd cannot reach.
 * The shim finds the upper file from /proc/self/mountinfo (upperdir= of the
 * file's mount plus the file's path below the mount point) and opens it
 * read-only for the flusher.  Opening a description samples the file's
 * writeback error sequence without marking it seen, and the flusher only
 * starts writeback (SYNC_FILE_RANGE_WRITE), polls cachestat and fadvises
 * through it, so every description of the file, the program's and any
 * opened later, still gets a writeback error at fsync.  Where the upper
 * directory is not visible (a container), or the file found is not the
 * overlay file's upper file, nothing is kept open and the writer is left to
 * the kernel as before.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "mount-escape.h"
#include "preload.h"
#include "fsmagic.h"

#define PATH_BUF 4096	/* the scanf widths below are PATH_BUF - 1 */
#define READ_ROOM 4096	/* a read of mountinfo gets at least this much room */

/* The mount id of @fd's mount, from /proc/self/fdinfo. */
static int mount_id(int fd, long *ret, uint64_t *syscalls)
{
	char path[64], buf[512], *p;
	ssize_t n;
	long in;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	in = syscall(SYS_openat, AT_FDCWD, path, O_RDONLY | O_CLOEXEC);
	*syscalls += 3;
	if (in < 0)
		return -errno;
	n = read((int)in, buf, sizeof(buf) - 1);
	syscall(SYS_close, in);
	if (n <= 0)
		return -EIO;
	buf[n] = 0;
	p = strstr(buf, "\nmnt_id:");
	if (!p)
		return -ENOENT;
	*ret = strtol(p + 8, NULL, 10);
	return 0;
}

/* All of @path (a /proc file), NUL-terminated, in a buffer to free. */
static char *read_all(const char *path, uint64_t *syscalls)
{
	size_t cap = 65536, len = 0;
	char *buf = malloc(cap), *grown;
	long in = syscall(SYS_openat, AT_FDCWD, path, O_RDONLY | O_CLOEXEC);
	ssize_t n = 1;

	*syscalls += 2;
	if (in < 0 || !buf)
		goto out_fail;
	while (n > 0) {
		if (cap - len < READ_ROOM) {
			grown = realloc(buf, cap * 2);
			if (!grown)
				goto out_fail;
			buf = grown;
			cap *= 2;
		}
		n = read((int)in, buf + len, cap - len - 1);
		(*syscalls)++;
		if (n < 0)
			goto out_fail;
		len += (size_t)n;
	}
	buf[len] = 0;
	syscall(SYS_close, in);
	return buf;
out_fail:
	if (in >= 0)
		syscall(SYS_close, in);
	free(buf);
	return NULL;
}

/* From one mountinfo line of an overlay: the upperdir of its super options. */
static int upperdir_of(char *sep, char *upper, size_t size)
{
	char *save, *tok = strrchr(sep, ' ');	/* the super options come last */

	for (tok = strtok_r(tok + 1, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (strncmp(tok, "upperdir=", 9) || strlen(tok + 9) >= size)
			continue;
		strcpy(upper, tok + 9);
		pc_mount_unescape(upper);
		return 0;
	}
	return -ENOENT;
}

/*
 * From the mountinfo line of mount @id: its root, mount point and upperdir,
 * unescaped, into the caller's buffers of @size.  0, or -errno.
 */
static int overlay_mount(long id, char *root, char *mnt, char *upper, size_t size,
			 uint64_t *syscalls)
{
	char *all = read_all("/proc/self/mountinfo", syscalls), *save, *line;
	int ret = -ENOENT;

	if (!all)
		return -EIO;
	for (line = strtok_r(all, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *sep = strstr(line, " - ");

		if (!sep || strtol(line, NULL, 10) != id)
			continue;
		if (size < PATH_BUF || sscanf(line, "%*d %*d %*s %4095s %4095s", root, mnt) != 2 ||
		    strncmp(sep, " - overlay ", 11))
			break;
		pc_mount_unescape(root);
		pc_mount_unescape(mnt);
		ret = upperdir_of(sep, upper, size);
		break;
	}
	free(all);
	return ret;
}

/*
 * The path of @fd's file in the upper layer, into @buf.  The buffers are on
 * the heap: a program's thread may have a small stack.
 */
static int upper_path(int fd, char *buf, size_t size, uint64_t *syscalls)
{
	char link[64], *path = malloc(4 * PATH_BUF);
	char *root = path + PATH_BUF, *mnt = root + PATH_BUF, *upper = mnt + PATH_BUF;
	size_t mlen;
	ssize_t n;
	long id = -1;
	int ret;

	if (!path)
		return -ENOMEM;
	ret = mount_id(fd, &id, syscalls);
	if (!ret)
		ret = overlay_mount(id, root, mnt, upper, PATH_BUF, syscalls);
	if (ret)
		goto out;
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, path, PATH_BUF - 1);
	(*syscalls)++;
	ret = -ENOENT;
	if (n <= 0)
		goto out;
	path[n] = 0;
	mlen = strcmp(mnt, "/") ? strlen(mnt) : 0;
	if (strncmp(path, mnt, mlen) || path[mlen] != '/')
		goto out;	/* another root (chroot), or deleted */
	n = snprintf(buf, size, "%s%s%s", upper, strcmp(root, "/") ? root : "", path + mlen);
	ret = n > 0 && (size_t)n < size ? 0 : -ENAMETOOLONG;
out:
	free(path);
	return ret;
}

/*
 * Is @real the upper file of the overlay file @st?  The upper layer's tree
 * mirrors the overlay's names, so the path found names it unless the file
 * was renamed meanwhile.  A file created in the overlay has the upper
 * inode's number (and size: a number alone could be some other file's on
 * another file system); one copied up from the lower layer keeps the lower one's,
 * and is recognised by the attributes overlayfs takes from the upper inode:
 * size, and change and modification times to the nanosecond.
 */
static int is_upper(const struct stat *st, const struct stat *real)
{
	if (!S_ISREG(real->st_mode) || real->st_size != st->st_size)
		return 0;
	if (real->st_ino == st->st_ino)
		return 1;
	return real->st_ctim.tv_sec == st->st_ctim.tv_sec &&
	       real->st_ctim.tv_nsec == st->st_ctim.tv_nsec &&
	       real->st_mtim.tv_sec == st->st_mtim.tv_sec &&
	       real->st_mtim.tv_nsec == st->st_mtim.tv_nsec;
}

/* Out of the way of the program's own numbers: at 512 to 1024 and up. */
int pl_dup_high(int fd, uint64_t *syscalls)
{
	struct rlimit rl;
	long base = 1024;

	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur / 2 < (rlim_t)base)
		base = (long)(rl.rlim_cur / 2);
	*syscalls += 2;
	return (int)syscall(SYS_fcntl, fd, F_DUPFD_CLOEXEC, (int)base);
}

static int move_high(int fd, uint64_t *syscalls)
{
	int high = pl_dup_high(fd, syscalls);

	syscall(SYS_close, fd);
	*syscalls += 1;
	return high;
}

/*
 * Open the upper file of the overlay file @st at @path; -errno if it is not.
 * Looked at through O_PATH first: what is at the path now may be a FIFO or a
 * device that an open would block on or act upon; only a file that is the
 * upper one is opened for reading (through its /proc/self/fd link).
 */
static int open_upper(const char *path, const struct stat *st, struct stat *ret_st,
		      uint64_t *syscalls)
{
	long pfd = syscall(SYS_openat, AT_FDCWD, path, O_PATH | O_CLOEXEC | O_NOFOLLOW);
	char link[64];
	long rfd;
	int err;

	*syscalls += 2;
	if (pfd < 0)
		return -errno;
	if (fstat((int)pfd, ret_st) || !is_upper(st, ret_st)) {
		syscall(SYS_close, pfd);
		(*syscalls)++;
		return -ESTALE;
	}
	snprintf(link, sizeof(link), "/proc/self/fd/%ld", pfd);
	rfd = syscall(SYS_openat, AT_FDCWD, link, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	err = rfd < 0 ? -errno : 0;
	syscall(SYS_close, pfd);
	*syscalls += 2;
	if (err)
		return err;
	rfd = move_high((int)rfd, syscalls);
	return rfd < 0 ? -EMFILE : (int)rfd;
}

int pl_overlay_real(int fd, struct stat *ret_st, uint64_t *syscalls)
{
	size_t size = 3 * PATH_BUF;
	struct statfs sfs;
	struct stat st;
	char *path;
	int ret;

	*syscalls += 2;
	if (fstatfs(fd, &sfs) || sfs.f_type != OVERLAYFS_SUPER_MAGIC || fstat(fd, &st))
		return -ENOTSUP;
	path = malloc(size);
	if (!path)
		return -ENOMEM;
	ret = upper_path(fd, path, size, syscalls);
	if (!ret)
		ret = open_upper(path, &st, ret_st, syscalls);
	free(path);
	return ret;
}
