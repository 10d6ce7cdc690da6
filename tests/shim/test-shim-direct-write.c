// SPDX-License-Identifier: MIT
/*
 * A file that changes while the shim reads it O_DIRECT ahead of the program
 * gives the bytes read(2) would: a file another process appends to (raw
 * system calls the shim does not see) is read on past its old end, while it
 * grows and after; the program's own writes through the shim on another
 * descriptor (pwrite, write, ftruncate, truncate, fallocate punching a hole)
 * over bytes already read ahead are seen by the next read, as are bytes
 * another process wrote before the read-ahead reached them and bytes written
 * through a shared map of the file (the mmap stops the direct reader).  Each change is
 * checked against the file as a plain descriptor reads it.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/falloc.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "direct-test.h"
#include "helpers.h"

#define MIB (1ull << 20)
#define START (4 * MIB)
#define GROWN (12 * MIB + 777)
#define SEED 21

static char *buf, *want;

/* Append [from, to) of the pattern with raw system calls, in pieces, pausing. */
static void append_raw(const char *path, uint64_t from, uint64_t to, int pause_us)
{
	int fd = (int)syscall(SYS_openat, AT_FDCWD, path, O_WRONLY | O_APPEND);
	char piece[65536];

	T_CHECK(fd >= 0, "open to append: %s", strerror(errno));
	for (uint64_t at = from; at < to;) {
		size_t n = to - at < sizeof(piece) ? to - at : sizeof(piece);

		t_pattern_fill(piece, at, n, SEED);
		T_CHECK(syscall(SYS_write, fd, piece, n) == (long)n, "append: %s", strerror(errno));
		at += n;
		if (pause_us) {
			struct timespec ts = { 0, pause_us * 1000L };

			nanosleep(&ts, NULL);
		}
	}
	syscall(SYS_close, fd);
}

/* Read to the end as it grows to @total: a read of 0 means wait a little. */
static uint64_t read_growing(int fd, uint64_t at, uint64_t total)
{
	int zeros = 0;

	while (at < total && zeros < 20000) {
		ssize_t n = read(fd, buf, 100000);

		T_CHECK(n >= 0, "read at %llu: %s", (unsigned long long)at, strerror(errno));
		if (!n) {
			zeros++;
			usleep(100);
			continue;
		}
		T_CHECK(t_pattern_check(buf, at, n, SEED) < 0, "wrong bytes at %llu",
			(unsigned long long)at);
		at += n;
	}
	return at;
}

/* What a plain descriptor reads at @at (the file as it is now) against a read of @fd there. */
static void same_as_plain(int fd, int plain, uint64_t at, size_t len, const char *what)
{
	ssize_t n, m;

	T_CHECK(lseek(fd, at, SEEK_SET) == (off_t)at, "lseek: %s", strerror(errno));
	n = read(fd, buf, len);
	m = pread(plain, want, len, at);
	T_CHECK(n == m && n >= 0 && !memcmp(buf, want, n), "%s: read %zd bytes at %llu, the file "
		"has %zd%s", what, n, (unsigned long long)at, m, n == m ? " (different bytes)" : "");
}

/* Read [@at, @at + MIB) to fill the read-ahead past @at, then stay at @at. */
static void read_ahead_of(int fd, uint64_t at)
{
	T_CHECK(lseek(fd, at - 4096, SEEK_SET) == (off_t)(at - 4096), "lseek");
	T_CHECK(read(fd, buf, 4096) == 4096, "read: %s", strerror(errno));
}

static void own_writes(int fd, int plain, const char *path)
{
	int w = open(path, O_WRONLY);

	T_CHECK(w >= 0, "open to write: %s", strerror(errno));
	read_ahead_of(fd, 6 * MIB);
	memset(want, 'x', 300000);
	T_CHECK(pwrite(w, want, 300000, 6 * MIB + 5) == 300000, "pwrite: %s", strerror(errno));
	same_as_plain(fd, plain, 6 * MIB, MIB, "after pwrite");
	read_ahead_of(fd, 7 * MIB);
	memset(want, 'y', 5000);
	T_CHECK(lseek(w, 7 * MIB + 100, SEEK_SET) > 0 && write(w, want, 5000) == 5000, "write");
	same_as_plain(fd, plain, 7 * MIB, MIB, "after write");
	read_ahead_of(fd, 8 * MIB);
	T_CHECK(fallocate(w, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 8 * MIB + 8192, 65536) == 0 ||
		errno == EOPNOTSUPP, "fallocate: %s", strerror(errno));
	same_as_plain(fd, plain, 8 * MIB, MIB, "after a hole was punched");
	read_ahead_of(fd, 9 * MIB);
	T_CHECK(ftruncate(w, 9 * MIB + 333) == 0, "ftruncate: %s", strerror(errno));
	same_as_plain(fd, plain, 9 * MIB, MIB, "after ftruncate");
	same_as_plain(fd, plain, 9 * MIB + 333, MIB, "past the new end");
	read_ahead_of(fd, 5 * MIB);
	T_CHECK(truncate(path, 5 * MIB + 1) == 0, "truncate: %s", strerror(errno));
	same_as_plain(fd, plain, 5 * MIB, MIB, "after truncate");
	close(w);
}

/* A shared writable map of the file writes over bytes read ahead (no system
 * call says so): the reader stops at the mmap, and reads them plainly. */
static void mapped_write(int fd, int plain, const char *path)
{
	int w = open(path, O_RDWR | O_CLOEXEC);
	char *map;

	T_CHECK(w >= 0, "open: %s", strerror(errno));
	read_ahead_of(fd, 3 * MIB);
	map = mmap(NULL, 4 * MIB, PROT_READ | PROT_WRITE, MAP_SHARED, w, 0);
	T_CHECK(map != MAP_FAILED, "mmap: %s", strerror(errno));
	memset(map + 3 * MIB + 1000, 'm', 2000);
	same_as_plain(fd, plain, 3 * MIB, MIB, "after a write through a map");
	munmap(map, 4 * MIB);
	close(w);
}

/* Another process overwrites bytes the read-ahead has not reached yet. */
static void others_write_ahead(int fd, int plain, const char *path)
{
	int w = (int)syscall(SYS_openat, AT_FDCWD, path, O_WRONLY);

	T_CHECK(w >= 0, "open: %s", strerror(errno));
	memset(want, 'z', 4096);
	T_CHECK(syscall(SYS_pwrite64, w, want, 4096, 2 * MIB + 10) == 4096, "pwrite: %s",
		strerror(errno));
	syscall(SYS_close, w);
	same_as_plain(fd, plain, 2 * MIB, MIB, "after another process wrote ahead");
}

int main(int argc, char **argv)
{
	char path[4096], line[2048];
	uint64_t at;
	pid_t pid;
	int fd, plain, st;

	if (!t_shimmed())
		direct_reexec(argv, "direct-write", "direct", "1m");
	snprintf(path, sizeof(path), "%s/f", t_testdir());
	direct_cold_file(path, START, SEED);
	buf = malloc(2 * MIB);
	want = malloc(2 * MIB);
	/* close-on-exec: a fork() child's sharing of fd across exec stops direct */
	fd = open(path, O_RDONLY | O_CLOEXEC);
	plain = open(path, O_RDWR | O_CLOEXEC);	/* read-write: the shim reads it plainly */
	T_CHECK(buf && want && fd >= 0 && plain >= 0, "open: %s", strerror(errno));

	at = read_growing(fd, 0, START);
	T_CHECK(read(fd, buf, 100) == 0, "no end of file at %llu", (unsigned long long)at);
	append_raw(path, START, START + 100000, 0);	/* grew after the end was seen */
	at = read_growing(fd, at, START + 100000);
	T_CHECK(at == START + 100000 && read(fd, buf, 100) == 0, "read %llu after it grew",
		(unsigned long long)at);
	pid = fork();
	T_CHECK(pid >= 0, "fork: %s", strerror(errno));
	if (!pid) {
		append_raw(path, START + 100000, GROWN, 200);	/* grows while read */
		_exit(0);
	}
	at = read_growing(fd, at, GROWN);
	T_CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && !WEXITSTATUS(st), "the writer");
	T_CHECK(at == GROWN && read(fd, buf, 100) == 0, "read %llu of %llu while it grew",
		(unsigned long long)at, (unsigned long long)GROWN);

	others_write_ahead(fd, plain, path);
	own_writes(fd, plain, path);
	mapped_write(fd, plain, path);
	close(plain);
	close(fd);
	T_CHECK(strstr(direct_stats_last(path, line, sizeof(line)),
		       "stopped: the file was mapped"), "%s", line);
	direct_stats_remove();
	printf("PASS: growth, others' writes and the program's own writes are read as read(2) does\n");
	return 0;
}
