// SPDX-License-Identifier: MIT
/*
 * pc_buf_alloc(): page-aligned always; from half a huge page up, a mapping
 * of the size asked rounded up to whole huge pages, starting on one, marked
 * MADV_HUGEPAGE ("hg" in smaps), so that, where transparent huge pages are
 * on, it is backed by them; and then direct reads of a long file (from
 * 256 MiB) reach the device unsplit: on a loop device (128 segments, 1280 KiB
 * a request) 1 MiB O_DIRECT reads from 4 KiB pages go as two 512 KiB
 * requests, from huge pages as one.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "helpers.h"
#include "pagecliff.h"

#define MIB (1024ull * 1024)
#define FILE_SIZE (256 * MIB)	/* the direct pipeline's huge pages start here */

struct vma {
	uintptr_t start, end;
	int hg;				/* VmFlags has hg (MADV_HUGEPAGE) */
	unsigned long long huge_kib;	/* AnonHugePages */
};

/* The mapping of this process that holds @addr; 0 when there is none. */
static int vma_of(const void *addr, struct vma *v)
{
	FILE *f = fopen("/proc/self/smaps", "r");
	uintptr_t a = (uintptr_t)addr;
	unsigned long long kib;
	char line[512];
	int in = 0, found = 0;

	T_CHECK(f, "open /proc/self/smaps: %s", strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		unsigned long s, e;

		/* a mapping's first line; fields ("AnonHugePages:") stop at one hex digit */
		if (sscanf(line, "%lx-%lx ", &s, &e) == 2) {
			if (found)
				break;
			in = a >= s && a < e;
			if (in)
				*v = (struct vma){ .start = s, .end = e };
			found = in;
			continue;
		}
		if (!in)
			continue;
		if (sscanf(line, "AnonHugePages: %llu kB", &kib) == 1)
			v->huge_kib = kib;
		else if (!strncmp(line, "VmFlags:", 8))
			v->hg = strstr(line, " hg") != NULL;
	}
	fclose(f);
	return found;
}

static size_t huge_page(void)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);

	return page * (page / 8);
}

/* One size: alignment, the mapping's exact extent and mark, bytes kept. */
static void check_size(size_t size)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), huge = huge_page();
	size_t len = (size + page - 1) / page * page;
	size_t huge_len = (size + huge - 1) / huge * huge;
	unsigned char *p = pc_buf_alloc(size);
	struct vma v;

	T_CHECK(p, "pc_buf_alloc(%zu) failed", size);
	T_CHECK((uintptr_t)p % page == 0, "%zu bytes at %p: not page-aligned", size, (void *)p);
	for (size_t i = 0; i < size; i += page)
		p[i] = (unsigned char)(i / page);
	p[size - 1] = 0xa5;
	T_CHECK(vma_of(p, &v), "no mapping holds %p", (void *)p);
	if (len >= huge / 2) {
		T_CHECK((uintptr_t)p % huge == 0, "%zu bytes at %p: not on a %zu-byte page",
			size, (void *)p, huge);
		T_CHECK(v.start == (uintptr_t)p && v.end == (uintptr_t)p + huge_len,
			"%zu bytes: mapping %#lx-%#lx, want %p + %zu (the over-map not trimmed)",
			size, (unsigned long)v.start, (unsigned long)v.end, (void *)p, huge_len);
		T_CHECK(v.hg, "%zu bytes: mapping not marked MADV_HUGEPAGE", size);
	} else {
		T_CHECK(!v.hg, "%zu bytes: a small buffer marked MADV_HUGEPAGE", size);
	}
	for (size_t i = 0; i + 1 < size; i += page)
		T_CHECK(p[i] == (unsigned char)(i / page), "%zu bytes: byte %zu lost", size, i);
	T_CHECK(p[size - 1] == 0xa5, "%zu bytes: last byte lost", size);
	pc_buf_free(p, size);
	T_CHECK(!vma_of(p, &v) || !v.hg, "%zu bytes: still mapped after pc_buf_free", size);
}

static int thp_mode(char *buf, size_t size)
{
	FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
	char line[128] = "", *b, *e;

	if (!f)
		return -1;
	if (!fgets(line, sizeof(line), f))
		line[0] = 0;
	fclose(f);
	b = strchr(line, '[');
	e = b ? strchr(b, ']') : NULL;
	if (!b || !e)
		return -1;
	snprintf(buf, size, "%.*s", (int)(e - b - 1), b + 1);
	return 0;
}

/* A touched buffer of two huge pages gets them (tries: a fault may find none). */
static void check_backed(void)
{
	size_t size = 2 * huge_page();
	struct vma v = { 0 };

	for (int tries = 0; tries < 5; tries++) {
		unsigned char *p = pc_buf_alloc(size);

		T_CHECK(p, "pc_buf_alloc(%zu) failed", size);
		memset(p, 1, size);
		T_CHECK(vma_of(p, &v), "no mapping holds %p", (void *)p);
		pc_buf_free(p, size);
		if (v.huge_kib * 1024 >= size)
			return;
	}
	t_skip("5 buffers of %zu bytes got %llu KiB of huge pages at best: none free",
	       size, v.huge_kib);
}

/* Read requests completed on block device @dev ("/dev/loop3"). */
static unsigned long long dev_reads(const char *dev)
{
	char path[128];
	unsigned long long reads = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/block/%s/stat", strrchr(dev, '/') + 1);
	f = fopen(path, "r");
	T_CHECK(f, "open %s: %s", path, strerror(errno));
	T_CHECK(fscanf(f, "%llu", &reads) == 1, "%s unreadable", path);
	fclose(f);
	return reads;
}

/*
 * The requests one direct read of the file takes, every byte checked: lent
 * from the stream's own buffers (@bufsize 0), or read into the caller's
 * buffer of @bufsize bytes, which direct fills in place when it is aligned.
 */
static unsigned long long direct_requests(const char *path, const char *dev,
					  size_t bufsize)
{
	unsigned long long before = dev_reads(dev);
	unsigned char *buf = bufsize ? pc_buf_alloc(bufsize) : NULL;
	const unsigned char *data = buf;
	struct pc_stream *s;
	struct pc_stats st;
	struct pc_opts o;
	uint64_t off = 0;
	ssize_t n;

	T_CHECK(!bufsize || buf, "alloc %zu", bufsize);
	pc_opts_init(&o);
	o.strategy = PC_DIRECT;
	T_CHECK(pc_stream_open(&s, path, &o) == 0, "open %s", path);
	while ((n = bufsize ? pc_stream_read(s, buf, bufsize) :
			      pc_stream_next(s, (const void **)&data)) > 0) {
		for (ssize_t i = 0; i < n; i += 4096)
			T_CHECK(data[i] == t_pattern_byte(off + i, 5), "byte %llu wrong",
				(unsigned long long)(off + i));
		off += n;
	}
	T_CHECK(n == 0 && off == FILE_SIZE, "read %llu of %llu (%zd)",
		(unsigned long long)off, FILE_SIZE, n);
	pc_stream_stats(s, &st);
	T_CHECK(st.strategy == PC_DIRECT, "direct fell back: %s", st.reason);
	pc_stream_close(s);
	pc_buf_free(buf, bufsize);
	return dev_reads(dev) - before;
}

/* At most @most requests for the file, in three tries (a fault may find no huge page). */
static void check_way(const char *path, const char *dev, size_t bufsize,
		      unsigned long long most)
{
	unsigned long long reqs = 0;

	for (int tries = 0; tries < 3; tries++) {
		reqs = direct_requests(path, dev, bufsize);
		if (reqs <= most)
			break;
	}
	T_CHECK(reqs <= most, "256 MiB read %s in %llu requests on %s (want <= %llu: "
		"huge-page buffers unsplit)", bufsize ? "into the caller's buffer" : "lent",
		reqs, dev, most);
	printf("256 MiB direct, %s: %llu requests on %s\n",
	       bufsize ? "into the caller's 1 MiB buffer" : "lent", reqs, dev);
}

/* Mappings of this process marked MADV_HUGEPAGE. */
static unsigned int marked_mappings(void)
{
	FILE *f = fopen("/proc/self/smaps", "r");
	unsigned int n = 0;
	char line[512];

	T_CHECK(f, "open /proc/self/smaps: %s", strerror(errno));
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "VmFlags:", 8) && strstr(line, " hg"))
			n++;
	fclose(f);
	return n;
}

/*
 * A direct stream's own slots are huge pages for a long file only: a short
 * one would pay their first touch for nothing (lib/buf.c).  @path's stream,
 * once it has lent a chunk, adds @want marked mappings.
 */
static void check_slots(const char *path, unsigned int want)
{
	unsigned int before = marked_mappings(), added;
	const void *data;
	struct pc_stream *s;
	struct pc_opts o;

	pc_opts_init(&o);
	o.strategy = PC_DIRECT;
	T_CHECK(pc_stream_open(&s, path, &o) == 0, "open %s", path);
	T_CHECK(pc_stream_next(s, &data) > 0, "read %s", path);
	added = marked_mappings() - before;
	pc_stream_close(s);
	T_CHECK(added == want, "%s: %u mappings marked for huge pages, want %u", path, added, want);
}

static void check_requests(void)
{
	const char *mnt = t_loopfs("ext4", FILE_SIZE + 128 * MIB), *dev = t_loopfs_dev();
	char path[4200];

	snprintf(path, sizeof(path), "%s/buf", mnt);
	t_make_file(path, FILE_SIZE, 5);
	/*
	 * 1 MiB reads from the stream's slots: one request each, 256 (from
	 * 4 KiB pages, 512); the same into the caller's 1 MiB buffer.
	 */
	check_way(path, dev, 0, FILE_SIZE / MIB * 3 / 2);
	check_way(path, dev, MIB, FILE_SIZE / MIB * 3 / 2);
	check_slots(path, 1);
	snprintf(path, sizeof(path), "%s/short", mnt);
	t_make_file(path, FILE_SIZE / 4, 6);
	check_slots(path, 0);
	printf("slots in huge pages for the 256 MiB file, not for a 64 MiB one\n");
}

int main(void)
{
	size_t huge = huge_page();
	size_t sizes[] = { 1, 4096, 4097, huge / 2 - 4096, huge / 2 - 4095, huge / 2,
			   huge - 4096, huge, huge + 1, 2 * huge + 12345, 64 * MIB };
	char mode[32];

	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		check_size(sizes[i]);
	printf("alignment, extent and mark right for %zu sizes\n",
	       sizeof(sizes) / sizeof(sizes[0]));
	if (thp_mode(mode, sizeof(mode)) || !strcmp(mode, "never"))
		t_skip("transparent huge pages off (%s): buffers are small pages",
		       thp_mode(mode, sizeof(mode)) ? "no sysfs" : mode);
	check_backed();
	printf("huge pages back a touched buffer (THP %s)\n", mode);
	check_requests();
	return T_EXIT_PASS;
}
