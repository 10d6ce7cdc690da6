// SPDX-License-Identifier: MIT
/*
 * errno and return values are the program's own, with and without the shim:
 * the same checks run first plainly, then with the shim preloaded.  Failing
 * calls give the same errno (EBADF, EFAULT, ESPIPE, EOPNOTSUPP), and
 * successful calls on a tracked file (which make the shim snapshot, drop and
 * fadvise) leave errno as it was.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <unistd.h>

#include "helpers.h"

#define SIZE (24ull << 20)

static void failing_calls(const char *path)
{
	char buf[16];
	int p[2], fd = open(path, O_RDONLY);
	struct iovec iov = { buf, sizeof(buf) };
	char *volatile bad = NULL;	/* hide it from -Wnonnull */

	errno = 0;
	T_CHECK(read(-1, buf, 1) == -1 && errno == EBADF, "read(-1): errno %d", errno);
	errno = 0;
	T_CHECK(read(12345, buf, 1) == -1 && errno == EBADF, "read(12345): errno %d", errno);
	errno = 0;
	T_CHECK(pread(fd, bad, 4096, 0) == -1 && errno == EFAULT, "pread(NULL): errno %d", errno);
	errno = 0;
	T_CHECK(preadv2(fd, &iov, 1, 0, 0x10000000) == -1 && errno == EOPNOTSUPP,
		 "preadv2(bad flag): errno %d", errno);
	T_CHECK(pipe(p) == 0, "pipe: %s", strerror(errno));
	errno = 0;
	T_CHECK(lseek(p[0], 0, SEEK_SET) == -1 && errno == ESPIPE, "lseek(pipe): errno %d", errno);
	errno = 0;
	T_CHECK(close(p[0]) == 0 && close(p[1]) == 0 && close(p[1]) == -1 && errno == EBADF,
		 "double close: errno %d", errno);
	close(fd);
}

/* Stream the file in 1 MiB reads with errno set to EDOM before each call. */
static void successful_calls(const char *path)
{
	char *buf = malloc(1 << 20);
	uint64_t off = 0;
	ssize_t n;
	int fd;

	errno = EDOM;
	fd = open(path, O_RDONLY);
	T_CHECK(fd >= 0 && errno == EDOM, "open changed errno to %d", errno);
	for (;;) {
		errno = EDOM;
		n = read(fd, buf, 1 << 20);
		T_CHECK(errno == EDOM, "read at %llu changed errno to %d",
			 (unsigned long long)off, errno);
		if (n <= 0)
			break;
		T_CHECK(t_pattern_check(buf, off, n, 5) < 0, "wrong bytes at %llu", (unsigned long long)off);
		off += n;
	}
	T_CHECK(n == 0 && off == SIZE, "read %llu bytes", (unsigned long long)off);
	errno = EDOM;
	T_CHECK(pread(fd, buf, 4096, 4096) == 4096 && errno == EDOM, "pread: errno %d", errno);
	errno = EDOM;
	T_CHECK(dup2(fd, 200) == 200 && errno == EDOM, "dup2: errno %d", errno);
	errno = EDOM;
	T_CHECK(close(200) == 0 && close(fd) == 0 && errno == EDOM, "close: errno %d", errno);
	free(buf);
}

/*
 * Lengths past what one read(2) moves, on a file being read with
 * RWF_DONTCACHE (auto does so for reads of 4 MiB): read() checks the whole
 * buffer and says EFAULT; a preadv2() would clamp first and copy into
 * whatever follows the buffer, or say EINVAL over SSIZE_MAX.
 */
static void huge_lengths(const char *path)
{
	long page = sysconf(_SC_PAGESIZE);
	size_t chunk = 4 << 20;
	char *buf = mmap(NULL, chunk + page, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int fd = open(path, O_RDONLY);
	volatile size_t ssize_max = SSIZE_MAX, size_max = SIZE_MAX;	/* hide from -Wstringop */
	ssize_t n;

	T_CHECK(buf != MAP_FAILED && fd >= 0, "mmap or open: %s", strerror(errno));
	munmap(buf + chunk, page);	/* nothing mapped right after the buffer */
	for (int i = 0; i < 4; i++)
		T_CHECK(read(fd, buf, chunk) == (ssize_t)chunk, "read: %s", strerror(errno));
	errno = 0;
	n = read(fd, buf, ssize_max);
	T_CHECK(n == -1 && errno == EFAULT, "read(SSIZE_MAX): %zd, errno %d", n, errno);
	errno = 0;
	n = read(fd, buf, size_max);
	T_CHECK(n == -1 && errno == EFAULT, "read(SIZE_MAX): %zd, errno %d", n, errno);
	errno = 0;
	n = pread(fd, buf, size_max, 16 << 20);
	T_CHECK(n == -1 && errno == EFAULT, "pread(SIZE_MAX): %zd, errno %d", n, errno);
	close(fd);
	munmap(buf, chunk);
	t_evict(path);		/* readahead past the reads stays: start cold again */
}

int main(int argc, char **argv)
{
	char path[300];

	snprintf(path, sizeof(path), "%s/f", t_testdir());
	t_make_file(path, SIZE, 5);
	t_evict(path);
	failing_calls(path);
	huge_lengths(path);
	successful_calls(path);
	if (!t_shimmed())
		t_reexec_with_shim(argv);
	T_CHECK(t_cached(path) <= (8ull << 20), "the shim did not act: %llu bytes cached",
		 (unsigned long long)t_cached(path));
	printf("PASS: same errno and results with and without the shim\n");
	return 0;
}
