// SPDX-License-Identifier: MIT
/*
 * Helpers of the write tests (wtest.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "helpers.h"
#include "internal.h"
#include "wtest.h"

uint64_t wt_page(void)
{
	return (uint64_t)sysconf(_SC_PAGESIZE);
}

static struct pcl_cachestat cstat(int fd, uint64_t off, uint64_t len)
{
	struct pcl_cachestat cs;
	int ret = pcl_cachestat(fd, off, len, &cs);

	if (ret)
		t_fail("cachestat: %s", strerror(-ret));
	return cs;
}

uint64_t wt_cached(int fd, uint64_t off, uint64_t len)
{
	uint64_t bytes;
	int ret = pc_cached_bytes(fd, off, len, &bytes);

	if (ret)
		t_fail("cannot count cached pages: %s", strerror(-ret));
	return bytes;
}

uint64_t wt_dirty(int fd, uint64_t off, uint64_t len)
{
	struct pcl_cachestat cs = cstat(fd, off, len);

	return (cs.nr_dirty + cs.nr_writeback) * wt_page();
}

void wt_check_file(const char *path, uint64_t size, uint32_t seed)
{
	static char buf[1 << 20];
	uint64_t off = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		t_fail("cannot open '%s': %s", path, strerror(errno));
	while ((n = pread(fd, buf, sizeof(buf), off)) > 0) {
		int64_t bad = t_pattern_check(buf, off, n, seed);

		if (bad >= 0)
			t_fail("'%s': byte %lld differs", path, (long long)bad);
		off += n;
	}
	if (n < 0)
		t_fail("cannot read '%s': %s", path, strerror(errno));
	close(fd);
	if (off != size)
		t_fail("'%s' has %llu bytes, expected %llu", path,
		       (unsigned long long)off, (unsigned long long)size);
}

struct pc_wstream *wt_open(const char *path, int flags, enum pc_strategy st)
{
	struct pc_wstream *s;
	struct pc_wopts o;
	int ret;

	pc_wopts_init(&o);
	o.strategy = st;
	ret = pc_wstream_open(&s, path, flags, 0644, &o);
	if (ret)
		t_fail("cannot open '%s' with %s: %s", path, pc_strategy_name(st),
		       strerror(-ret));
	return s;
}
