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

#include "helpers.h"

#define SIZE (32ull << 20)
#define CHUNK (1u << 20)

static void write_all(int fd, uint32_t seed, int raw)
{
	char *buf = malloc(CHUNK);

	for (uint64_t off = 0; off < SIZE; off += CHUNK) {
		t_pattern_fill(buf, off, CHUNK, seed);
		if (raw)
			T_CHECK(syscall(SYS_write, fd, buf, CHUNK) == CHUNK, "write: %s",
				 strerror(errno));
		else
			T_CHECK(write(fd, buf, CHUNK) == CHUNK, "write: %s", strerror(errno));
	}
	free(buf);
}

static void read_back(int fd, uint32_t seed)
{
	char *buf = malloc(CHUNK);

	for (uint64_t off = 0; off < SIZE; off += CHUNK) {
		T_CHECK(read(fd, buf, CHUNK) == CHUNK, "read: %s", strerror(errno));
		T_CHECK(t_pattern_check(buf, off, CHUNK, seed) < 0, "wrong bytes at %llu",
			 (unsigned long long)off);
	}
	free(buf);
}

static void two_fds(const char *path)
{
	int w = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644), r;
	uint64_t dirty_before, dirty_after;

	T_CHECK(w >= 0, "open: %s", strerror(errno));
	write_all(w, 1, 1);
	dirty_before = t_dirty(path);
	r = open(path, O_RDONLY);
	read_back(r, 1);
	close(r);
	dirty_after = t_dirty(path);
	close(w);
	T_CHECK(dirty_after >= dirty_before - dirty_before / 10,
		 "dirty pages went from %llu to %llu bytes: writeback was started",
		 (unsigned long long)dirty_before, (unsigned long long)dirty_after);
	printf("two fds: %llu dirty bytes before reading, %llu after\n",
	       (unsigned long long)dirty_before, (unsigned long long)dirty_after);
}

static void one_fd(const char *path)
{
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);

	T_CHECK(fd >= 0, "open: %s", strerror(errno));
	write_all(fd, 2, 0);
	T_CHECK(lseek(fd, 0, SEEK_SET) == 0, "lseek: %s", strerror(errno));
	read_back(fd, 2);
	close(fd);
}

static void stdio_wplus(const char *path)
{
	FILE *fp = fopen(path, "w+");
	char *buf = malloc(CHUNK);

	T_CHECK(fp && buf, "fopen: %s", strerror(errno));
	for (uint64_t off = 0; off < SIZE; off += CHUNK) {
		t_pattern_fill(buf, off, CHUNK, 3);
		T_CHECK(fwrite(buf, 1, CHUNK, fp) == CHUNK, "fwrite: %s", strerror(errno));
	}
	rewind(fp);
	for (uint64_t off = 0; off < SIZE; off += CHUNK) {
		T_CHECK(fread(buf, 1, CHUNK, fp) == CHUNK, "fread: %s", strerror(errno));
		T_CHECK(t_pattern_check(buf, off, CHUNK, 3) < 0, "stdio: wrong bytes at %llu",
			 (unsigned long long)off);
	}
	fclose(fp);
	free(buf);
}

int main(int argc, char **argv)
{
	char path[300];

	if (!t_shimmed())
		t_reexec_with_shim(argv);
	snprintf(path, sizeof(path), "%s/f", t_testdir());
	two_fds(path);
	one_fd(path);
	stdio_wplus(path);
	printf("PASS: write and read back the same file: two fds, one O_RDWR fd, \"w+\" stdio\n");
	return 0;
}
