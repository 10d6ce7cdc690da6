// SPDX-License-Identifier: MIT
/*
 * Threads under the shim: four threads stream files of their own with read(),
 * two share one fd with pread() on its two halves, and one opens and closes
 * files all the while (the fd table grows and shrinks under the readers).
 * Every byte must be right, and the streamed files must not stay cached.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "helpers.h"

#define NSTREAM 4
#define FILE_SIZE (48ull << 20)
#define MAX_LEFT (16ull << 20)

static char paths[NSTREAM + 1][300];
static atomic_int done;

static void *streamer(void *arg)
{
	long i = (long)arg;
	size_t chunk = 128 << 10;
	char *buf = malloc(chunk);
	uint64_t off = 0;
	int fd = open(paths[i], O_RDONLY);
	ssize_t n;

	T_CHECK(fd >= 0 && buf, "open %s: %s", paths[i], strerror(errno));
	while ((n = read(fd, buf, chunk)) > 0) {
		T_CHECK(t_pattern_check(buf, off, n, i) < 0, "thread %ld: wrong bytes at %llu", i,
			 (unsigned long long)off);
		off += n;
	}
	T_CHECK(n == 0 && off == FILE_SIZE, "thread %ld: read %llu bytes, last %zd (%s)",
		 i, (unsigned long long)off, n, strerror(errno));
	close(fd);
	free(buf);
	return NULL;
}

struct half {
	int fd;
	uint64_t from, to;
};

static void *half_reader(void *arg)
{
	struct half *h = arg;
	size_t chunk = 1 << 20;
	char *buf = malloc(chunk);

	for (uint64_t off = h->from; off < h->to; off += chunk) {
		ssize_t n = pread(h->fd, buf, chunk, off);

		T_CHECK(n == (ssize_t)chunk, "pread at %llu: %zd", (unsigned long long)off, n);
		T_CHECK(t_pattern_check(buf, off, n, NSTREAM) < 0, "pread: wrong bytes at %llu",
			 (unsigned long long)off);
	}
	free(buf);
	return NULL;
}

static void *churner(void *arg)
{
	int fds[64];

	while (!atomic_load(&done)) {
		for (int i = 0; i < 64; i++)
			fds[i] = open(paths[i % (NSTREAM + 1)], O_RDONLY);
		for (int i = 0; i < 64; i++)
			if (fds[i] >= 0)
				close(fds[i]);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t[NSTREAM + 3];
	struct half h[2];
	int fd;

	if (!t_shimmed())
		t_reexec_with_shim(argv);
	for (long i = 0; i <= NSTREAM; i++) {
		snprintf(paths[i], sizeof(paths[i]), "%s/f%ld", t_testdir(), i);
		t_make_file(paths[i], FILE_SIZE, i);
		t_evict(paths[i]);
	}
	fd = open(paths[NSTREAM], O_RDONLY);
	T_CHECK(fd >= 0, "open: %s", strerror(errno));
	h[0] = (struct half){ fd, 0, FILE_SIZE / 2 };
	h[1] = (struct half){ fd, FILE_SIZE / 2, FILE_SIZE };
	pthread_create(&t[NSTREAM + 2], NULL, churner, NULL);
	for (long i = 0; i < NSTREAM; i++)
		pthread_create(&t[i], NULL, streamer, (void *)i);
	pthread_create(&t[NSTREAM], NULL, half_reader, &h[0]);
	pthread_create(&t[NSTREAM + 1], NULL, half_reader, &h[1]);
	for (int i = 0; i < NSTREAM + 2; i++)
		pthread_join(t[i], NULL);
	atomic_store(&done, 1);
	pthread_join(t[NSTREAM + 2], NULL);
	close(fd);
	/* Interleaved preads on one fd look like random access: not checked. */
	for (int i = 0; i < NSTREAM; i++) {
		uint64_t left = t_cached(paths[i]);

		T_CHECK(left <= MAX_LEFT, "%s: %llu bytes left cached", paths[i],
			 (unsigned long long)left);
	}
	printf("PASS: %d streaming threads, 2 pread threads on one fd, open/close churn\n",
	       NSTREAM);
	return 0;
}
