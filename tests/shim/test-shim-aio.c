// SPDX-License-Identifier: MIT
/*
 * POSIX AIO readers: the shim cannot follow aio_read(), so it leaves the file
 * alone (its bytes right) and its stats say so, in one exact line.
 */
#include <aio.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "helpers.h"

#define SIZE (16ull << 20)
#define CHUNK (1u << 20)

static char stats[300];

static void rm_stats(void)
{
	unlink(stats);
}

int main(int argc, char **argv)
{
	char path[400], want[600], line[700];
	char *buf = malloc(CHUNK);
	FILE *fp;
	int fd, found = 0;

	if (!t_shimmed()) {
		snprintf(stats, sizeof(stats), "/var/tmp/pagecliff-shimtest-aio.%d", getpid());
		unlink(stats);
		setenv("PAGECLIFF_STATS", stats, 1);
		t_reexec_with_shim(argv);
	}
	snprintf(stats, sizeof(stats), "%s", getenv("PAGECLIFF_STATS"));
	atexit(rm_stats);
	snprintf(path, sizeof(path), "%s/f", t_testdir());
	t_make_file(path, SIZE, 9);
	t_evict(path);
	fd = open(path, O_RDONLY);
	T_CHECK(fd >= 0 && buf, "open: %s", strerror(errno));
	for (uint64_t off = 0; off < SIZE; off += CHUNK) {
		struct aiocb cb = { .aio_fildes = fd, .aio_buf = buf, .aio_nbytes = CHUNK,
				    .aio_offset = off };
		const struct aiocb *list[1] = { &cb };

		T_CHECK(aio_read(&cb) == 0, "aio_read: %s", strerror(errno));
		while (aio_error(&cb) == EINPROGRESS)
			aio_suspend(list, 1, NULL);
		T_CHECK(aio_return(&cb) == CHUNK, "aio_return at %llu", (unsigned long long)off);
		T_CHECK(t_pattern_check(buf, off, CHUNK, 9) < 0, "wrong bytes at %llu", (unsigned long long)off);
	}
	close(fd);
	free(buf);
	snprintf(want, sizeof(want), "pagecliff: %s: read with POSIX AIO (aio_read, lio_listio): "
		 "not tracked, the shim did not act\n", path);
	fp = fopen(stats, "r");
	while (fp && fgets(line, sizeof(line), fp))
		found += !strcmp(line, want);
	if (fp)
		fclose(fp);
	T_CHECK(found == 1, "%d lines '%s'", found, want);
	printf("PASS: aio_read: right bytes, one stats line says the shim did not act\n");
	return 0;
}
