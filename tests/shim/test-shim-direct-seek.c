// SPDX-License-Identifier: MIT
/*
 * read(2)'s file offset under the shim's direct mode: a cold file read
 * through O_DIRECT read-ahead gives every read the bytes and the count
 * read(2) gives, and leaves the offset where read(2) leaves it, across lseek
 * jumps (back within the chunk read ahead, forward within the reads in
 * flight and past them, from the end, past the end), a dup()ed descriptor
 * sharing the offset, readv(), short reads at the end of the file, pread()
 * (which the offset ignores), a buffer the kernel refuses (EFAULT, and a
 * partial count for one that ends in an unmapped page, as a plain
 * descriptor gives them), and ends with nothing of the file in the page
 * cache before the pread() and a stats line that says "mode direct".  A
 * program that closes the shim's descriptors stops the reader, not the read.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <unistd.h>

#include "direct-test.h"
#include "helpers.h"

#define MIB (1ull << 20)
#define SIZE (24 * MIB + 12345)	/* a tail that is no whole page */
#define SEED 11

static char *buf;

/* read @len at the offset, which must be @at; expect @want bytes. */
static void read_at(int fd, uint64_t at, size_t len, ssize_t want)
{
	ssize_t n;

	T_CHECK(lseek(fd, 0, SEEK_CUR) == (off_t)at, "offset %lld, not %llu",
		(long long)lseek(fd, 0, SEEK_CUR), (unsigned long long)at);
	n = read(fd, buf, len);
	T_CHECK(n == want, "read of %zu at %llu: %zd, not %zd (%s)", len,
		(unsigned long long)at, n, want, strerror(errno));
	T_CHECK(n <= 0 || t_pattern_check(buf, at, n, SEED) < 0, "wrong bytes at %llu",
		(unsigned long long)at);
	T_CHECK(lseek(fd, 0, SEEK_CUR) == (off_t)(at + (n > 0 ? n : 0)),
		"offset after the read of %zu at %llu: %lld", len, (unsigned long long)at,
		(long long)lseek(fd, 0, SEEK_CUR));
}

static void seek_to(int fd, off_t off, int whence, uint64_t want)
{
	T_CHECK(lseek(fd, off, whence) == (off_t)want, "lseek(%lld, %d): %s", (long long)off,
		whence, strerror(errno));
}

/* Jumps of every kind, each followed by reads checked against the pattern. */
static void jumps(int fd)
{
	read_at(fd, 0, 1000, 1000);
	read_at(fd, 1000, 3000, 3000);
	seek_to(fd, 500, SEEK_SET, 500);		/* back within the chunk */
	read_at(fd, 500, 100, 100);
	seek_to(fd, 5 * MIB + 7, SEEK_SET, 5 * MIB + 7);	/* ahead, within flight */
	read_at(fd, 5 * MIB + 7, 65536, 65536);
	seek_to(fd, -4096, SEEK_CUR, 5 * MIB + 7 + 65536 - 4096);
	read_at(fd, 5 * MIB + 7 + 65536 - 4096, 8192, 8192);
	seek_to(fd, 20 * MIB, SEEK_SET, 20 * MIB);	/* past the reads in flight */
	read_at(fd, 20 * MIB, MIB, MIB);
	seek_to(fd, 2 * MIB + 1, SEEK_SET, 2 * MIB + 1);	/* back, long gone */
	read_at(fd, 2 * MIB + 1, 3 * MIB, 3 * MIB);
	seek_to(fd, -10, SEEK_END, SIZE - 10);		/* short at the end */
	read_at(fd, SIZE - 10, 100, 10);
	read_at(fd, SIZE, 100, 0);
	read_at(fd, SIZE, 100, 0);
	seek_to(fd, SIZE + 100, SEEK_SET, SIZE + 100);	/* past the end */
	read_at(fd, SIZE + 100, 100, 0);
}

/* A dup()ed fd shares the offset; readv() reads at it too. */
static void shared(int fd)
{
	char a[3], b[4093], c[70000];
	struct iovec iov[3] = { { a, sizeof(a) }, { b, sizeof(b) }, { c, sizeof(c) } };
	uint64_t at = MIB + 3;
	int fd2 = dup(fd);
	ssize_t n;

	T_CHECK(fd2 >= 0, "dup: %s", strerror(errno));
	seek_to(fd, at, SEEK_SET, at);
	read_at(fd, at, 100, 100);
	read_at(fd2, at + 100, 100, 100);
	T_CHECK(lseek(fd, 0, SEEK_CUR) == (off_t)(at + 200), "the dup did not move fd's offset");
	n = readv(fd2, iov, 3);
	T_CHECK(n == (ssize_t)(sizeof(a) + sizeof(b) + sizeof(c)), "readv: %zd", n);
	T_CHECK(t_pattern_check(a, at + 200, sizeof(a), SEED) < 0 &&
		t_pattern_check(b, at + 203, sizeof(b), SEED) < 0 &&
		t_pattern_check(c, at + 203 + sizeof(b), sizeof(c), SEED) < 0, "readv: wrong bytes");
	read_at(fd, at + 200 + n, 5000, 5000);
	T_CHECK(close(fd2) == 0, "close: %s", strerror(errno));
}

/*
 * A buffer the kernel refuses: EFAULT with the offset unmoved, and for one
 * whose second page is gone the count a plain descriptor (@plain: read-write,
 * which the shim reads plainly) gives, from the same offset.
 */
static void bad_buffers(int fd, int plain)
{
	long page = sysconf(_SC_PAGESIZE);
	char *ro = mmap(NULL, page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *half = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	off_t at = lseek(fd, 0, SEEK_CUR);
	ssize_t n, m;
	int e1, e2;

	T_CHECK(ro != MAP_FAILED && half != MAP_FAILED, "mmap: %s", strerror(errno));
	munmap(half + page, page);
	errno = 0;
	T_CHECK(read(fd, ro, 100) == -1 && errno == EFAULT, "read into a read-only page: errno %d",
		errno);
	T_CHECK(lseek(fd, 0, SEEK_CUR) == at, "EFAULT moved the offset");
	T_CHECK(lseek(plain, at, SEEK_SET) == at, "lseek plain: %s", strerror(errno));
	errno = 0;
	n = read(fd, half, 2 * page);
	e1 = errno;
	errno = 0;
	m = read(plain, half, 2 * page);
	e2 = errno;
	T_CHECK(n == m && (n >= 0 || e1 == e2), "half a buffer: %zd (errno %d), plainly %zd (%d)",
		n, e1, m, e2);
	T_CHECK(n <= 0 || t_pattern_check(half, at, n, SEED) < 0, "half a buffer: wrong bytes");
	T_CHECK(lseek(fd, 0, SEEK_CUR) == at + (n > 0 ? n : 0), "half a buffer: offset");
	munmap(ro, page);
	munmap(half, page);
}

/*
 * A program that closes every descriptor from 3 up but its own (as daemons
 * do, here through /proc/self/fd) closes the shim's: the reader stops
 * first, the program's close() gets EBADF as it would, and the file is read
 * on plainly from where it was.
 */
static void shim_fds_closed(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), ebadf = 0;
	char line[2048];
	struct dirent *e;
	DIR *dir;

	T_CHECK(fd >= 0, "open: %s", strerror(errno));
	read_at(fd, 0, MIB, MIB);
	dir = opendir("/proc/self/fd");
	T_CHECK(dir, "opendir: %s", strerror(errno));
	while ((e = readdir(dir))) {
		int n = atoi(e->d_name);

		if (n > 2 && n != fd && n != dirfd(dir) && close(n) < 0 && errno == EBADF)
			ebadf++;	/* the shim's: closed by the shim first */
	}
	closedir(dir);
	T_CHECK(ebadf >= 1, "no descriptor of the shim's was found");
	for (uint64_t at = MIB; at < SIZE; at += 4 * MIB)	/* buf holds 4 MiB */
		read_at(fd, at, 4 * MIB, SIZE - at < 4 * MIB ? SIZE - at : 4 * MIB);
	close(fd);
	T_CHECK(strstr(direct_stats_last(path, line, sizeof(line)),
		       "stopped: the program closed the shim's descriptor"), "%s", line);
	printf("closing the shim's %d descriptors (EBADF) stopped the reader; bytes still exact\n",
	       ebadf);
}

int main(int argc, char **argv)
{
	char path[4096];
	int fd, plain;

	if (!t_shimmed())
		direct_reexec(argv, "direct-seek", "direct", "1m");
	snprintf(path, sizeof(path), "%s/f", t_testdir());
	direct_cold_file(path, SIZE, SEED);
	buf = malloc(4 * MIB);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	plain = open(path, O_RDWR | O_CLOEXEC);	/* read-write: the shim reads it plainly */
	T_CHECK(buf && fd >= 0 && plain >= 0, "open: %s", strerror(errno));
	jumps(fd);
	shared(fd);
	T_CHECK(t_cached(path) == 0, "%llu bytes cached after direct reads",
		(unsigned long long)t_cached(path));
	bad_buffers(fd, plain);
	T_CHECK(pread(fd, buf, 1000, 12345) == 1000 && t_pattern_check(buf, 12345, 1000, SEED) < 0,
		"pread: %s", strerror(errno));
	read_at(fd, lseek(fd, 0, SEEK_CUR), 10, 10);	/* pread left the offset alone */
	close(plain);
	T_CHECK(close(fd) == 0, "close: %s", strerror(errno));
	direct_stats_say(path, "mode direct (asked for");
	t_evict(path);
	shim_fds_closed(path);
	direct_stats_remove();
	printf("PASS: read(2)'s offset, counts and errno through direct read-ahead\n");
	return 0;
}
