// SPDX-License-Identifier: MIT
/*
 * Byte-exact checks shared by the tests that read through every strategy on
 * one file system or another.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "exact.h"
#include "helpers.h"

const uint64_t exact_sizes[] = {
	0, 1, 511, 4095, 4096, 4097, (1 << 20) - 1, (1 << 20) + 1,
	(64u << 20) + 3,
};
const unsigned int exact_nsizes = sizeof(exact_sizes) / sizeof(exact_sizes[0]);

static struct pc_stream *open_stream(const char *path, enum pc_strategy strategy,
				     size_t chunk)
{
	struct pc_opts o;
	struct pc_stream *s;
	int ret;

	pc_opts_init(&o);
	o.strategy = strategy;
	o.chunk_size = chunk;
	o.inflight = 4;
	ret = pc_stream_open(&s, path, &o);
	if (ret)
		t_fail("cannot open '%s' (%s): %s", path,
		       pc_strategy_name(strategy), strerror(-ret));
	return s;
}

/*
 * Sequential reads of @rlen into a buffer at @misalign bytes from a page
 * (0: the library may read straight into it).
 */
static void check_sequential(struct pc_stream *s, const char *path,
			     uint64_t size, uint32_t seed, size_t rlen,
			     size_t misalign)
{
	char *mem = pc_buf_alloc(rlen + 4096), *buf = mem + misalign;
	uint64_t off = 0;
	ssize_t n;

	while ((n = pc_stream_read(s, buf, rlen)) > 0) {
		int64_t bad = t_pattern_check(buf, off, n, seed);

		T_CHECK(bad < 0, "%s: byte %lld differs (read of %zu)", path,
			(long long)bad, rlen);
		T_CHECK((size_t)n == rlen || off + n == size,
			"%s: short read of %zd at %llu before end of file",
			path, n, (unsigned long long)off);
		off += n;
	}
	T_CHECK(n == 0, "%s: read failed: %s", path, strerror((int)-n));
	T_CHECK(off == size, "%s: read %llu bytes of %llu", path,
		(unsigned long long)off, (unsigned long long)size);
	T_CHECK(pc_stream_read(s, buf, rlen) == 0, "%s: data after end of file", path);
	pc_buf_free(mem, rlen + 4096);
}

static void check_zero_copy(struct pc_stream *s, const char *path,
			    uint64_t size, uint32_t seed)
{
	uint64_t off = 0;
	const void *p;
	ssize_t n;

	while ((n = pc_stream_next(s, &p)) > 0) {
		T_CHECK(((uintptr_t)p & 4095) == 0 || off % 4096,
			"%s: lent chunk at %llu not page aligned", path,
			(unsigned long long)off);
		T_CHECK(t_pattern_check(p, off, n, seed) < 0,
			"%s: lent chunk at %llu differs", path,
			(unsigned long long)off);
		off += n;
	}
	T_CHECK(n == 0 && off == size, "%s: zero-copy read %llu of %llu (%zd)",
		path, (unsigned long long)off, (unsigned long long)size, n);
}

static void check_random(struct pc_stream *s, const char *path, uint64_t size,
			 uint32_t seed)
{
	char *buf = malloc(3 << 20);
	unsigned int rs = seed;

	for (int i = 0; i < 64; i++) {
		uint64_t off = size ? ((uint64_t)rand_r(&rs) << 16 ^ rand_r(&rs)) % (size + 10) : 0;
		size_t len = 1 + rand_r(&rs) % (i % 4 ? 9000 : 3 << 20);
		uint64_t want = off >= size ? 0 : (size - off < len ? size - off : len);
		ssize_t n = pc_stream_pread(s, buf, len, off);

		T_CHECK(n >= 0 && (uint64_t)n == want,
			"%s: pread(%zu at %llu) gave %zd, want %llu", path, len,
			(unsigned long long)off, n, (unsigned long long)want);
		T_CHECK(t_pattern_check(buf, off, n, seed) < 0,
			"%s: pread(%zu at %llu) bytes differ", path, len,
			(unsigned long long)off);
	}
	free(buf);
}

enum pc_strategy exact_check(const char *path, uint64_t size, uint32_t seed,
			     enum pc_strategy strategy, size_t rlen, size_t chunk)
{
	struct pc_stream *s = open_stream(path, strategy, chunk);
	struct pc_stats st;
	char name[256];

	snprintf(name, sizeof(name), "%s [%s, chunk %zu, reads of %zu]", path,
		 pc_strategy_name(strategy), chunk, rlen);

	check_sequential(s, name, size, seed, rlen, 16);
	pc_stream_stats(s, &st);
	T_CHECK(st.bytes_read == size, "%s: stats say %llu bytes read", name,
		(unsigned long long)st.bytes_read);
	pc_stream_close(s);
	s = open_stream(path, strategy, chunk);
	check_sequential(s, name, size, seed, rlen, 0);
	pc_stream_close(s);
	s = open_stream(path, strategy, chunk);
	check_zero_copy(s, name, size, seed);
	check_random(s, name, size, seed);
	pc_stream_close(s);
	return st.strategy;
}

/* Read lengths and chunk sizes: from a byte to several MiB. */
static const size_t rlens[] = { 1, 511, 4096, 65539, 1 << 20, 5 << 20 };
static const size_t chunks[] = { 4096, 1 << 20, 4 << 20 };

void exact_suite(const char *dir, int quick)
{
	char path[4096];

	for (unsigned int i = 0; i < exact_nsizes; i++) {
		uint64_t size = exact_sizes[i];

		snprintf(path, sizeof(path), "%s/f%llu", dir, (unsigned long long)size);
		t_make_file(path, size, i + 1);
		for (int st = PC_AUTO; st < PC_STRATEGY_COUNT; st++) {
			for (unsigned int r = 0; r < sizeof(rlens) / sizeof(rlens[0]); r++) {
				/* A byte at a time over 64 MiB: 64M calls; 1 MiB - 1 is enough. */
				if (rlens[r] < 4096 && size > (2 << 20))
					continue;
				if (quick && r % 2)
					continue;
				t_evict(path);
				exact_check(path, size, i + 1, st, rlens[r],
					    chunks[(i + r) % 3]);
			}
		}
		unlink(path);
	}
}
