// SPDX-License-Identifier: MIT
/*
 * shim-pagestat: what the shim's tests measure of a file's page cache.
 *
 *   shim-pagestat cached PATH [OFF LEN]   bytes of the range in the page cache
 *   shim-pagestat dirty PATH              dirty + writeback bytes of the file
 *   shim-pagestat evict PATH              write back and drop the file's pages
 *   shim-pagestat warm PATH OFF LEN       read the range into the page cache
 *
 * Built without sanitizers and without the library, like the shim.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef __NR_cachestat
#define __NR_cachestat 451
#endif

struct cs_range { uint64_t off, len; };
struct cs { uint64_t cache, dirty, writeback, evicted, recently_evicted; };

int main(int argc, char **argv)
{
	struct cs_range r = { 0, 0 };
	struct cs st;
	int fd;

	if (argc != 3 && argc != 5) {
		fprintf(stderr, "usage: shim-pagestat cached|dirty|evict|warm PATH [OFF LEN]\n");
		return 2;
	}
	fd = open(argv[2], O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "shim-pagestat: cannot open '%s': %s\n", argv[2], strerror(errno));
		return 1;
	}
	if (!strcmp(argv[1], "warm") && argc == 5)
		return posix_fadvise(fd, strtoll(argv[3], NULL, 0), strtoll(argv[4], NULL, 0),
				     POSIX_FADV_WILLNEED) ? 1 : 0;
	if (!strcmp(argv[1], "evict")) {
		fdatasync(fd);
		return posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED) ? 1 : 0;
	}
	if (argc == 5) {
		r.off = strtoull(argv[3], NULL, 0);
		r.len = strtoull(argv[4], NULL, 0);
	}
	if (syscall(__NR_cachestat, fd, &r, &st, 0) < 0) {
		printf("SKIP: cachestat: %s\n", strerror(errno));
		return 77;
	}
	if (!strcmp(argv[1], "dirty"))
		printf("%llu\n", (unsigned long long)(st.dirty + st.writeback) * 4096);
	else
		printf("%llu\n", (unsigned long long)st.cache * 4096);
	return 0;
}
