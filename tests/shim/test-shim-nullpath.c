// SPDX-License-Identifier: MIT
/*
 * Every function the shim replaces that takes a path, called with a NULL
 * path: -1 (NULL for the stdio ones) and EFAULT, as libc gives without the
 * shim.  The same calls run first plainly, then with the shim preloaded.
 * A wrapper that reads path[0] first kills the process with SIGSEGV
 * instead.  creat() is called with a real path as well, to show the
 * shim takes up what it creates (libc's creat does not go through open).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "helpers.h"

/* The _FORTIFY_SOURCE entry points, which programs call directly. */
int __open_2(const char *path, int flags);
int __open64_2(const char *path, int flags);
int __openat_2(int dirfd, const char *path, int flags);
int __openat64_2(int dirfd, const char *path, int flags);

#define EXPECT_EFAULT(call)						\
	do {								\
		long r_;						\
		errno = 0;						\
		r_ = (long)(call);					\
		T_CHECK(r_ == -1 && errno == EFAULT, "%s: %ld, errno %d (%s)", \
			 t_shimmed() ? "with the shim" : "plain", r_, errno, \
			 strerror(errno));				\
	} while (0)

#define EXPECT_NULL_EFAULT(call)					\
	do {								\
		void *p_;						\
		errno = 0;						\
		p_ = (call);						\
		T_CHECK(!p_ && errno == EFAULT, "%s: %p, errno %d (%s)", \
			 t_shimmed() ? "with the shim" : "plain", p_, errno, \
			 strerror(errno));				\
	} while (0)

static void null_paths(int dirfd)
{
	const char *volatile null = NULL;	/* hide it from -Wnonnull */

	EXPECT_EFAULT(open(null, O_RDONLY));
	EXPECT_EFAULT(open(null, O_WRONLY | O_CREAT, 0644));
	EXPECT_EFAULT(open64(null, O_RDONLY));
	EXPECT_EFAULT(openat(AT_FDCWD, null, O_RDONLY));
	EXPECT_EFAULT(openat(dirfd, null, O_RDONLY));
	EXPECT_EFAULT(openat(dirfd, null, O_WRONLY | O_CREAT, 0644));
	EXPECT_EFAULT(openat64(AT_FDCWD, null, O_RDONLY));
	EXPECT_EFAULT(openat64(dirfd, null, O_RDONLY));
	EXPECT_EFAULT(__open_2(null, O_RDONLY));
	EXPECT_EFAULT(__open64_2(null, O_RDONLY));
	EXPECT_EFAULT(__openat_2(AT_FDCWD, null, O_RDONLY));
	EXPECT_EFAULT(__openat_2(dirfd, null, O_RDONLY));
	EXPECT_EFAULT(__openat64_2(dirfd, null, O_RDONLY));
	EXPECT_EFAULT(creat(null, 0644));
	EXPECT_EFAULT(creat64(null, 0644));
	EXPECT_NULL_EFAULT(fopen(null, "r"));
	EXPECT_NULL_EFAULT(fopen(null, "w"));
	EXPECT_NULL_EFAULT(fopen64(null, "r"));
}

/*
 * creat() of a real file, 64 MiB written sequentially: with the shim the
 * file is written behind and not left cached (as test-shim-write's bound);
 * the bytes are right either way.
 */
static void creat_writer(const char *dir)
{
	size_t len = 1 << 20, n = 64;
	char path[300], *buf = malloc(len);
	uint64_t left;
	int fd;

	snprintf(path, sizeof(path), "%s/created", dir);
	fd = creat(path, 0644);
	T_CHECK(fd >= 0 && buf, "creat %s: %s", path, strerror(errno));
	for (size_t i = 0; i < n; i++) {
		t_pattern_fill(buf, i * len, len, 9);
		T_CHECK(write(fd, buf, len) == (ssize_t)len, "write: %s", strerror(errno));
	}
	T_CHECK(close(fd) == 0, "close: %s", strerror(errno));
	left = t_cached(path);
	fd = open(path, O_RDONLY);
	for (size_t i = 0; i < n; i++)
		T_CHECK(read(fd, buf, len) == (ssize_t)len && (t_pattern_check(buf, i * len, len, 9) < 0),
			 "creat'd file: wrong bytes in MiB %zu", i);
	close(fd);
	unlink(path);
	free(buf);
	if (t_shimmed())
		T_CHECK(left <= (16ull << 20), "creat: %llu MiB of %zu left cached",
			 (unsigned long long)(left >> 20), n);
	printf("%s: creat'd file, %llu MiB left cached\n", t_shimmed() ? "shim" : "plain",
	       (unsigned long long)(left >> 20));
}

int main(int argc, char **argv)
{
	const char *dir = t_testdir();
	int dirfd = open(dir, O_RDONLY | O_DIRECTORY);

	(void)argc;
	T_CHECK(dirfd >= 0, "open %s: %s", dir, strerror(errno));
	null_paths(dirfd);
	close(dirfd);
	creat_writer(dir);
	if (!t_shimmed())
		t_reexec_with_shim(argv);
	printf("PASS: NULL paths give -1/EFAULT (NULL/EFAULT) with and without the shim\n");
	return 0;
}
