// SPDX-License-Identifier: MIT
/*
 * A program that writes and reads the same file under the shim.  One fd
 * writes 32 MiB without syncing, through the raw system call so that the
 * shim's write-behind does not see it (the pages are someone else's), and a
 * second, read-only fd reads it back past the threshold: the bytes are right
 * and the dirty pages stay dirty (the shim never drops a range with dirty
 * pages, which would start writeback).  Then a
 * read-write fd and a "w+" stdio stream write, rewind and read back.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "shimtest.h"

#define SIZE (32ull << 20)
#define CHUNK (1u << 20)

static void write_all(int fd, uint32_t seed, int raw)
{
	char *buf = malloc(CHUNK);

	for (uint64_t off = 0; off < SIZE; off += CHUNK) {
		st_fill(buf, off, CHUNK, seed);
		if (raw)
			ST_CHECK(syscall(SYS_write, fd, buf, CHUNK) == CHUNK, "write: %s",
				 strerror(errno));
		else
			ST_CHECK(write(fd, buf, CHUNK) == CHUNK, "write: %s", strerror(errno));
	}
	free(buf);
}

static void read_back(int fd, uint32_t seed)
{
	char *buf = malloc(CHUNK);

	for (uint64_t off = 0; off < SIZE; off += CHUNK) {
		ST_CHECK(read(fd, buf, CHUNK) == CHUNK, "read: %s", strerror(errno));
		ST_CHECK(st_check(buf, off, CHUNK, seed), "wrong bytes at %llu",
			 (unsigned long long)off);
	}
	free(buf);
}

static void two_fds(const char *path)
{
	int w = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644), r;
	uint64_t dirty_before, dirty_after;

	ST_CHECK(w >= 0, "open: %s", strerror(errno));
	write_all(w, 1, 1);
	dirty_before = st_dirty(path);
	r = open(path, O_RDONLY);
	read_back(r, 1);
	close(r);
	dirty_after = st_dirty(path);
	close(w);
	ST_CHECK(dirty_after >= dirty_before - dirty_before / 10,
		 "dirty pages went from %llu to %llu bytes: writeback was started",
		 (unsigned long long)dirty_before, (unsigned long long)dirty_after);
	printf("two fds: %llu dirty bytes before reading, %llu after\n",
	       (unsigned long long)dirty_before, (unsigned long long)dirty_after);
}

static void one_fd(const char *path)
{
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);

	ST_CHECK(fd >= 0, "open: %s", strerror(errno));
	write_all(fd, 2, 0);
	ST_CHECK(lseek(fd, 0, SEEK_SET) == 0, "lseek: %s", strerror(errno));
	read_back(fd, 2);
	close(fd);
}

static void stdio_wplus(const char *path)
{
	FILE *fp = fopen(path, "w+");
	char *buf = malloc(CHUNK);

	ST_CHECK(fp && buf, "fopen: %s", strerror(errno));
	for (uint64_t off = 0; off < SIZE; off += CHUNK) {
		st_fill(buf, off, CHUNK, 3);
		ST_CHECK(fwrite(buf, 1, CHUNK, fp) == CHUNK, "fwrite: %s", strerror(errno));
	}
	rewind(fp);
	for (uint64_t off = 0; off < SIZE; off += CHUNK) {
		ST_CHECK(fread(buf, 1, CHUNK, fp) == CHUNK, "fread: %s", strerror(errno));
		ST_CHECK(st_check(buf, off, CHUNK, 3), "stdio: wrong bytes at %llu",
			 (unsigned long long)off);
	}
	fclose(fp);
	free(buf);
}

int main(int argc, char **argv)
{
	char path[300];

	if (!st_shimmed())
		st_reexec_with_shim(argv);
	snprintf(path, sizeof(path), "%s/f", st_tmpdir());
	two_fds(path);
	one_fd(path);
	stdio_wplus(path);
	printf("PASS: write and read back the same file: two fds, one O_RDWR fd, \"w+\" stdio\n");
	return 0;
}
