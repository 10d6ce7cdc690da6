// SPDX-License-Identifier: MIT
/*
 * Write streams leave on disk, byte for byte, what write(2)/pwrite(2) leave:
 * every strategy, sizes around pages and MiB, chunk sizes from 1 byte to
 * several MiB, the zero-copy API, positioned and sparse writes and O_APPEND,
 * on the file system named by argv[1]: "tmpfs" (/dev/shm), "builddir", or
 * "xfs" / "ext4" made on a loop device.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "helpers.h"
#include "pagecliff.h"
#include "wtest.h"

#define KIB 1024ull
#define MIB (1024ull * 1024)

static const enum pc_strategy strategies[] = {
	PC_BUFFERED, PC_DONTCACHE, PC_DROPBEHIND, PC_DIRECT, PC_AUTO,
};
#define NSTRAT (sizeof(strategies) / sizeof(strategies[0]))

static char src[8 * MIB + 4096];

/* Write @size pattern bytes (seed 9) in @chunk pieces; @lend: lend/commit. */
static enum pc_strategy write_file(const char *path, uint64_t size, size_t chunk,
				   enum pc_strategy st, int lend)
{
	struct pc_wstream *s = wt_open(path, O_WRONLY | O_CREAT | O_TRUNC, st);
	struct pc_wstats stats;
	uint64_t off = 0;
	int ret;

	while (off < size) {
		size_t n = size - off < chunk ? size - off : chunk;
		ssize_t w;

		if (lend) {
			void *buf;
			ssize_t cap = pc_wstream_lend(s, &buf);

			T_CHECK(cap > 0, "%s: lend at %llu of %llu (chunk %zu): %s", pc_strategy_name(st), (unsigned long long)off, (unsigned long long)size, chunk, strerror((int)-cap));
			n = n < (size_t)cap ? n : (size_t)cap;
			t_pattern_fill(buf, off, n, 9);
			w = pc_wstream_commit(s, n);
		} else {
			t_pattern_fill(src, off, n, 9);
			w = pc_wstream_write(s, src, n);
		}
		T_CHECK(w == (ssize_t)n, "%s: write at %llu: %zd (%s)", pc_strategy_name(st),
			(unsigned long long)off, w, w < 0 ? strerror((int)-w) : "short");
		off += n;
	}
	pc_wstream_stats(s, &stats);
	T_CHECK(stats.bytes_written == size, "bytes_written %llu",
		(unsigned long long)stats.bytes_written);
	ret = pc_wstream_close(s);
	T_CHECK(!ret, "close: %s", strerror(-ret));
	return stats.strategy;
}

static void check_sizes(const char *dir, enum pc_strategy st)
{
	static const uint64_t sizes[] = {
		0, 1, 511, 4095, 4096, 4097, MIB - 1, MIB + 1, 64 * MIB + 3,
	};
	static const size_t chunks[] = {
		1, 511, 4096, 4097, 64 * KIB + 1, MIB, MIB + 1, 3 * MIB, 8 * MIB,
	};
	char path[600];
	enum pc_strategy used = st;

	snprintf(path, sizeof(path), "%s/f-%s", dir, pc_strategy_name(st));
	for (unsigned int i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		for (unsigned int j = 0; j < sizeof(chunks) / sizeof(chunks[0]); j++) {
			uint64_t size = sizes[i];
			size_t chunk = chunks[j];

			/* 1-byte writes are one system call each: small files only. */
			if ((chunk < 4096 && size > MIB + 1) || (chunk == 1 && size > 4097))
				continue;
			used = write_file(path, size, chunk, st, j % 2);
			wt_check_file(path, size, 9);
		}
	}
	printf("%s (%s): every size and chunk exact\n", pc_strategy_name(st),
	       pc_strategy_name(used));
}

/* The same operations on a plain fd and on a stream. */
struct op {
	int positioned;
	uint64_t off;			/* positioned only */
	size_t len;
};

static const struct op ops[] = {
	{ 0, 0, 10000 },
	{ 1, 3 * MIB + 5, 70000 },	/* a hole before it */
	{ 1, 4090, 20 },		/* overwrite across a page boundary */
	{ 0, 0, 5000 },			/* the cursor did not move */
	{ 1, MIB, MIB },		/* aligned, inside the hole */
	{ 1, 8 * MIB, 4096 },		/* aligned, a hole before it */
	{ 0, 0, 2 * MIB + 7 },
	{ 1, 100, 1 },
	{ 0, 0, 3 },
};
#define NOPS (sizeof(ops) / sizeof(ops[0]))

static void ref_ops(const char *path, int flags)
{
	int fd = open(path, flags | O_CLOEXEC, 0644);

	T_CHECK(fd >= 0, "open: %s", strerror(errno));
	for (unsigned int i = 0; i < NOPS; i++) {
		t_pattern_fill(src, 0, ops[i].len, 20 + i);
		if (ops[i].positioned)
			T_CHECK(pwrite(fd, src, ops[i].len, ops[i].off) == (ssize_t)ops[i].len, "pwrite");
		else
			T_CHECK(write(fd, src, ops[i].len) == (ssize_t)ops[i].len, "write");
	}
	close(fd);
}

static void stream_ops(const char *path, int flags, enum pc_strategy st)
{
	struct pc_wstream *s = wt_open(path, flags, st);
	int ret;

	for (unsigned int i = 0; i < NOPS; i++) {
		ssize_t n;

		t_pattern_fill(src, 0, ops[i].len, 20 + i);
		if (ops[i].positioned)
			n = pc_wstream_pwrite(s, src, ops[i].len, ops[i].off);
		else
			n = pc_wstream_write(s, src, ops[i].len);
		T_CHECK(n == (ssize_t)ops[i].len, "%s: op %u: %zd", pc_strategy_name(st), i, n);
	}
	ret = pc_wstream_close(s);
	T_CHECK(!ret, "close: %s", strerror(-ret));
}

/* @a and @b hold the same bytes and size. */
static void same_files(const char *a, const char *b)
{
	static char x[MIB], y[MIB];
	int fa = open(a, O_RDONLY | O_CLOEXEC), fb = open(b, O_RDONLY | O_CLOEXEC);
	uint64_t off = 0;
	ssize_t na, nb;
	struct stat sa, sb;

	T_CHECK(fa >= 0 && fb >= 0, "open: %s", strerror(errno));
	T_CHECK(!fstat(fa, &sa) && !fstat(fb, &sb), "stat");
	T_CHECK(sa.st_size == sb.st_size, "sizes %lld and %lld",
		(long long)sa.st_size, (long long)sb.st_size);
	do {
		na = pread(fa, x, sizeof(x), off);
		nb = pread(fb, y, sizeof(y), off);
		T_CHECK(na == nb && na >= 0, "reads differ at %llu", (unsigned long long)off);
		T_CHECK(!memcmp(x, y, na), "bytes differ in [%llu, +%zd)",
			(unsigned long long)off, na);
		off += na;
	} while (na > 0);
	close(fa);
	close(fb);
}

/* Start @path as a 5000-byte file so that O_APPEND has something to follow. */
static void seed_file(const char *path)
{
	unlink(path);
	t_make_file(path, 5000, 3);
}

static void check_ops(const char *dir, enum pc_strategy st)
{
	char ref[600], got[600];

	snprintf(ref, sizeof(ref), "%s/ref", dir);
	snprintf(got, sizeof(got), "%s/ops-%s", dir, pc_strategy_name(st));
	unlink(ref);
	unlink(got);
	ref_ops(ref, O_WRONLY | O_CREAT | O_TRUNC);
	stream_ops(got, O_WRONLY | O_CREAT | O_TRUNC, st);
	same_files(ref, got);
	seed_file(ref);
	seed_file(got);
	ref_ops(ref, O_WRONLY | O_APPEND);
	stream_ops(got, O_WRONLY | O_APPEND, st);
	same_files(ref, got);
	printf("%s: positioned, sparse and O_APPEND writes as pwrite(2)\n",
	       pc_strategy_name(st));
}

static const char *pick_dir(const char *what)
{
	struct statfs sf;

	if (!strcmp(what, "tmpfs")) {
		if (statfs("/dev/shm", &sf) || sf.f_type != 0x01021994)
			t_skip("/dev/shm is not a tmpfs");
		return "/dev/shm";
	}
	if (!strcmp(what, "builddir"))
		return t_workdir();
	if (!strcmp(what, "xfs") || !strcmp(what, "ext4"))
		return t_loopfs(what, 512 * MIB);
	t_fail("usage: test-wexact tmpfs|builddir|xfs|ext4");
}

int main(int argc, char **argv)
{
	char dir[512];

	if (argc != 2)
		t_fail("usage: test-wexact tmpfs|builddir|xfs|ext4");
	t_tmpdir(dir, sizeof(dir), pick_dir(argv[1]));
	for (unsigned int i = 0; i < NSTRAT; i++) {
		check_sizes(dir, strategies[i]);
		check_ops(dir, strategies[i]);
	}
	t_rmtree(dir);
	printf("every write strategy exact on %s\n", argv[1]);
	return 0;
}
