// SPDX-License-Identifier: MIT
/*
 * The library's buffers: anonymous mappings, page-aligned, and from half a
 * huge page up, whole huge pages (the size rounded up to one) aligned to one
 * and marked MADV_HUGEPAGE.
 *
 * Why huge pages: an O_DIRECT read is built from the buffer's physical
 * pages, one segment per contiguous run, and the block layer splits it at the
 * device's max_segments.  With 4 KiB pages the VM's virtio disk (254
 * segments) takes 1016 KiB at most and a loop device (128) 512 KiB, so a
 * 4 MiB read reaches the disk as 512 KiB requests; from a buffer in 2 MiB
 * pages it reaches it whole, as the kernel's own readahead into large
 * folios does (measured: 4 MiB O_DIRECT preads, one at a time, 1.15-1.20
 * GB/s in 512 KiB requests, 2.47-2.63 GB/s in 4 MiB ones).  The mark is
 * advice: where transparent huge pages are off, or none is free when the
 * buffer is first touched, it is small pages as before.  From half a huge
 * page, not a whole one, so that the 1 MiB chunk is in one: the price is
 * up to a huge page resident beyond the size asked, once a fault gives it.
 */
#include <stdint.h>
#include <sys/mman.h>

#include "internal.h"

/*
 * The size a page-middle-directory entry maps, the transparent huge page:
 * a page of page-table entries, 8 bytes each (2 MiB with 4 KiB pages, 32 MiB
 * with 16 KiB, 512 MiB with 64 KiB), what hpage_pmd_size says on 64-bit
 * kernels, computed without reading sysfs (the preload shim's own open()
 * must not run inside the library).
 */
static size_t huge_size(void)
{
	uint64_t page = pc_page_size();

	return (size_t)(page * (page / sizeof(uint64_t)));
}

/* @size bytes on a huge page boundary: over-map by one, trim both ends. */
static void *map_huge(size_t size, size_t huge)
{
	uint8_t *p, *start;
	size_t head, tail;

	p = mmap(NULL, size + huge, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	start = (uint8_t *)(((uintptr_t)p + huge - 1) & ~(uintptr_t)(huge - 1));
	head = (size_t)(start - p);
	tail = huge - head;
	if (head)
		munmap(p, head);
	if (tail)
		munmap(start + size, tail);
	madvise(start, size, MADV_HUGEPAGE);	/* advice: EINVAL where THP is built out */
	return start;
}

/* The huge page a buffer of @len page-rounded bytes comes in, or 0: small pages. */
static size_t huge_for(size_t len)
{
	size_t huge = huge_size();

	if (huge <= pc_page_size() || len < huge / 2 || len > SIZE_MAX - 2 * huge)
		return 0;
	return huge;
}

/* The bytes pc_buf_alloc() maps for @size: pages, or huge pages. */
static size_t mapped_size(size_t size)
{
	size_t len = pc_align_up(size ? size : 1, pc_page_size());
	size_t huge = huge_for(len);

	return huge ? pc_align_up(len, huge) : len;
}

void *pc_buf_alloc(size_t size)
{
	size_t len = mapped_size(size), huge = huge_for(len);
	void *p;

	if (!len)
		return NULL;	/* @size within a page of SIZE_MAX */
	if (huge)
		return map_huge(len, huge);
	p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	return p == MAP_FAILED ? NULL : p;
}

void pc_buf_free(void *buf, size_t size)
{
	if (buf)
		munmap(buf, mapped_size(size));
}
