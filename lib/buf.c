// SPDX-License-Identifier: MIT
/*
 * The library's buffers: anonymous mappings, page-aligned, and where asked
 * for, whole transparent huge pages, aligned to one and marked
 * MADV_HUGEPAGE.
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
 * buffer is first touched, it is small pages as before.
 *
 * Why not always: the first touch of a huge page can be slow.  On a VM
 * whose balloon reports free memory to the host (this project's machines),
 * free 2 MiB blocks are the ones given back, and a fresh huge page costs
 * the host's faults for all of it: 256 MiB touched in 1.2-2.7 s from huge
 * pages against 0.10-0.12 s from small ones (memory just freed by the
 * process is fast again).  So pc_buf_alloc() gives huge pages from half a
 * huge page up (a caller's buffer, made once), and the direct pipeline asks
 * for them only for a file long enough to win back that cost (direct-open.c).
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
size_t pcl_huge_size(void)
{
	uint64_t page = pcl_page_size();

	return (size_t)(page * (page / sizeof(uint64_t)));
}

/* The huge page a buffer of @size comes in when @huge, or 0: small pages. */
static size_t huge_for(size_t size, int huge)
{
	size_t h = pcl_huge_size();

	if (!huge || h <= pcl_page_size() || size > SIZE_MAX - 2 * h)
		return 0;
	return h;
}

/* The bytes mapped for @size: whole pages, or whole huge pages @h. */
static size_t mapped_size(size_t size, size_t h)
{
	size_t len = pcl_align_up(size ? size : 1, pcl_page_size());

	return h ? pcl_align_up(len, h) : len;
}

/* @len bytes on a huge page boundary @h: over-map by one, trim both ends. */
static void *map_huge(size_t len, size_t h)
{
	uint8_t *p, *start;
	size_t head;

	p = mmap(NULL, len + h, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	start = (uint8_t *)(((uintptr_t)p + h - 1) & ~(uintptr_t)(h - 1));
	head = (size_t)(start - p);	/* under h: something is over at the end */
	if (head)
		munmap(p, head);
	munmap(start + len, h - head);
	madvise(start, len, MADV_HUGEPAGE);	/* advice: EINVAL where THP is built out */
	return start;
}

void *pcl_buf_map(size_t size, int huge)
{
	size_t h = huge_for(size, huge), len = mapped_size(size, h);
	void *p;

	if (!len)
		return NULL;	/* @size within a page of SIZE_MAX */
	if (h)
		return map_huge(len, h);
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	return p == MAP_FAILED ? NULL : p;
}

void pcl_buf_unmap(void *buf, size_t size, int huge)
{
	if (buf)
		munmap(buf, mapped_size(size, huge_for(size, huge)));
}

/*
 * Whether pc_buf_alloc() gives @size bytes in huge pages: from half a huge
 * page, so that the 1 MiB a caller reads into at a time is in one.  A
 * caller's buffer is made once and read into many times; its first touch
 * costs a huge page once (a stream's own slots, made per file, follow the
 * file's length instead: direct-open.c).
 */
static int huge_by_size(size_t size)
{
	return pcl_align_up(size ? size : 1, pcl_page_size()) >= pcl_huge_size() / 2;
}

void *pc_buf_alloc(size_t size)
{
	return pcl_buf_map(size, huge_by_size(size));
}

void pc_buf_free(void *buf, size_t size)
{
	pcl_buf_unmap(buf, size, huge_by_size(size));
}
