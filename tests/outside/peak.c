// SPDX-License-Identifier: MIT
/*
 * outside-peak: the most of each file the page cache held while a process
 * ran, for the watcher's tests of writers and readers in flight.
 *
 *   outside-peak PID FILE...
 *
 * Asks cachestat(2) of every FILE every 20 ms (by path each time: a FILE
 * not there yet counts 0, one replaced is followed) until the process PID
 * (not a child: a pidfd tells when it ends) has exited, then once more.
 * Prints "FILE: BYTES bytes peak, N samples" per FILE; exits 0, 1 on an
 * error, 77 where the kernel lacks cachestat(2) or pidfd_open(2).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef __NR_cachestat
#define __NR_cachestat 451
#endif
#ifndef __NR_pidfd_open
#define __NR_pidfd_open 434
#endif

#define MAX_FILES 16

struct cs_range { uint64_t off, len; };
struct cs { uint64_t cache, dirty, writeback, evicted, recently_evicted; };

/* Bytes of @path cached now: 0 when it is not there, -1 without cachestat. */
static long long cached_now(const char *path)
{
	struct cs_range r = { 0, 0 };
	struct cs st;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	long ret;
	int err;

	if (fd < 0)
		return 0;
	ret = syscall(__NR_cachestat, fd, &r, &st, 0);
	err = errno;
	close(fd);
	errno = err;
	return ret < 0 ? -1 : (long long)st.cache * sysconf(_SC_PAGESIZE);
}

/* Sample every file once into @peak; -1 without cachestat. */
static int sample(char **files, int n, long long *peak)
{
	for (int i = 0; i < n; i++) {
		long long c = cached_now(files[i]);

		if (c < 0)
			return -1;
		if (c > peak[i])
			peak[i] = c;
	}
	return 0;
}

int main(int argc, char **argv)
{
	long long peak[MAX_FILES] = { 0 };
	unsigned long samples = 0;
	int n = argc - 2, pidfd, done = 0;
	struct pollfd pfd;

	if (argc < 3 || n > MAX_FILES) {
		fprintf(stderr, "usage: outside-peak PID FILE... (at most %d)\n", MAX_FILES);
		return 2;
	}
	pidfd = (int)syscall(__NR_pidfd_open, atoi(argv[1]), 0);
	if (pidfd < 0 && errno != ESRCH) {
		printf("SKIP: pidfd_open: %s\n", strerror(errno));
		return 77;
	}
	done = pidfd < 0;		/* gone already: one sample */
	pfd = (struct pollfd){ .fd = pidfd, .events = POLLIN };
	for (;;) {
		if (sample(argv + 2, n, peak)) {
			printf("SKIP: cachestat: %s\n", strerror(errno));
			return 77;
		}
		samples++;
		if (done)
			break;
		if (poll(&pfd, 1, 20) < 0 && errno != EINTR) {
			perror("poll");
			return 1;
		}
		done = pfd.revents != 0;
	}
	for (int i = 0; i < n; i++)
		printf("%s: %lld bytes peak, %lu samples\n", argv[i + 2], peak[i], samples);
	return 0;
}
