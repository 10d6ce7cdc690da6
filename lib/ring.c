// SPDX-License-Identifier: MIT
/*
 * Setting up and tearing down the library's io_uring rings, in one place so
 * that ThreadSanitizer can be told what it cannot see (see internal.h).
 */
#include <liburing.h>

#include "internal.h"

#if defined(__SANITIZE_THREAD__)
void __tsan_acquire(void *addr);
void __tsan_release(void *addr);
#define ring_sync(fn, ring)						\
	do {								\
		fn((ring)->sq.sqes);					\
		fn((ring)->sq.ring_ptr);				\
		fn((ring)->cq.ring_ptr);				\
	} while (0)
#else
#define ring_sync(fn, ring) ((void)(ring))
#endif

int pcl_ring_init(unsigned int entries, struct io_uring *ring)
{
	int ret = io_uring_queue_init(entries, ring, 0);

	if (!ret)
		ring_sync(__tsan_acquire, ring);
	return ret;
}

void pcl_ring_exit(struct io_uring *ring)
{
	ring_sync(__tsan_release, ring);
	io_uring_queue_exit(ring);
}
