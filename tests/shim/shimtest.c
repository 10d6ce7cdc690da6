// SPDX-License-Identifier: MIT
/* Helpers of the shim's C tests; see shimtest.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "shimtest.h"

#ifndef __NR_cachestat
#define __NR_cachestat 451
#endif

void st_skip(const char *fmt, ...)
{
	va_list ap;

	printf("SKIP: ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	exit(77);
}

void st_fail(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "FAIL: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n");
	exit(1);
}

int st_shimmed(void)
{
	const char *c = getenv("SHIMTEST_CHILD");

	return c && !strcmp(c, "1");
}

static char tmpdir[256];

static void rm_tmpdir(void)
{
	char cmd[300];

	if (tmpdir[0]) {
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
		if (system(cmd))
			fprintf(stderr, "cannot remove %s\n", tmpdir);
	}
}

void st_reexec_with_shim(char **argv)
{
	const char *so = getenv("PAGECLIFF_PRELOAD_SO");

	if (!so || access(so, R_OK))
		st_skip("PAGECLIFF_PRELOAD_SO does not name the shim");
	rm_tmpdir();		/* exec skips atexit */
	tmpdir[0] = 0;
	setenv("LD_PRELOAD", so, 1);
	setenv("SHIMTEST_CHILD", "1", 1);
	fflush(NULL);
	execv("/proc/self/exe", argv);
	st_fail("cannot re-run with the shim: %s", strerror(errno));
}

const char *st_tmpdir(void)
{
	if (tmpdir[0])
		return tmpdir;
	snprintf(tmpdir, sizeof(tmpdir), "/var/tmp/pagecliff-shimtest-XXXXXX");
	if (!mkdtemp(tmpdir))
		st_fail("cannot make a folder in /var/tmp: %s", strerror(errno));
	atexit(rm_tmpdir);
	return tmpdir;
}

uint8_t st_byte(uint64_t off, uint32_t seed)
{
	uint64_t x = (off >> 3) * 0x9e3779b97f4a7c15ull + seed;

	return (uint8_t)((x >> 29) ^ (off & 7));
}

void st_fill(void *buf, uint64_t off, size_t len, uint32_t seed)
{
	for (size_t i = 0; i < len; i++)
		((uint8_t *)buf)[i] = st_byte(off + i, seed);
}

int st_check(const void *buf, uint64_t off, size_t len, uint32_t seed)
{
	for (size_t i = 0; i < len; i++)
		if (((const uint8_t *)buf)[i] != st_byte(off + i, seed))
			return 0;
	return 1;
}

void st_make_file(const char *path, uint64_t size, uint32_t seed)
{
	size_t chunk = 1 << 20;
	char *buf = malloc(chunk);
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);

	if (fd < 0 || !buf)
		st_fail("cannot create '%s': %s", path, strerror(errno));
	for (uint64_t off = 0; off < size; off += chunk) {
		size_t n = size - off < chunk ? size - off : chunk;

		st_fill(buf, off, n, seed);
		if (write(fd, buf, n) != (ssize_t)n)
			st_fail("cannot write '%s': %s", path, strerror(errno));
	}
	free(buf);
	close(fd);
	st_evict(path);
}

void st_evict(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		st_fail("cannot open '%s': %s", path, strerror(errno));
	fdatasync(fd);
	posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	close(fd);
}

static void cstat(const char *path, uint64_t *cached, uint64_t *dirty)
{
	struct { uint64_t off, len; } r = { 0, 0 };
	struct { uint64_t cache, dirty, wb, ev, rev; } cs;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		st_fail("cannot open '%s': %s", path, strerror(errno));
	if (syscall(__NR_cachestat, fd, &r, &cs, 0) < 0)
		st_skip("cachestat: %s", strerror(errno));
	close(fd);
	*cached = cs.cache * 4096;
	*dirty = (cs.dirty + cs.wb) * 4096;
}

uint64_t st_cached(const char *path)
{
	uint64_t c, d;

	cstat(path, &c, &d);
	return c;
}

uint64_t st_dirty(const char *path)
{
	uint64_t c, d;

	cstat(path, &c, &d);
	return d;
}
