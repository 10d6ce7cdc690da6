// SPDX-License-Identifier: MIT
/*
 * Reads the shim cannot follow: it says so in the stats and keeps its hands
 * off.  POSIX AIO names the fd, which the shim then leaves alone; libaio and
 * io_uring (liburing) submit through the kernel where no libc read is made,
 * so their set-up is said once for the process.
 */
#include "interpose.h"

#include <aio.h>

/* A POSIX AIO read of @fd: said in its stats line, hands off it from now on. */
static inline void aio_reads(int fd)
{
	if (fd >= 0 && watching())
		pl_note_unseen(fd, "read with POSIX AIO (aio_read, lio_listio): "
			       "not tracked, the shim did not act");
}

/* glibc declares these nonnull; a program may still pass NULL to libc. */
#define UNCHECKED(p) ({ __typeof__(p) volatile p_ = (p); p_; })

/* A name and its 64-bit twin share one body, each calling its own libc name. */
#define HOOK_AIO_READ(name, cb_type)					\
	PL_EXPORT int name(cb_type *cb)					\
	{								\
		if (UNCHECKED(cb))					\
			aio_reads(cb->aio_fildes);			\
		return CALL(int, name, cb);				\
	}

#define HOOK_LIO_LISTIO(name, cb_type)					\
	PL_EXPORT int name(int mode, cb_type *const list[], int n, struct sigevent *sev) \
	{								\
		for (int i = 0; UNCHECKED(list) && i < n; i++)		\
			if (list[i] && list[i]->aio_lio_opcode == LIO_READ) \
				aio_reads(list[i]->aio_fildes);		\
		return CALL(int, name, mode, list, n, sev);		\
	}

HOOK_AIO_READ(aio_read, struct aiocb)
HOOK_AIO_READ(aio_read64, struct aiocb64)
HOOK_LIO_LISTIO(lio_listio, struct aiocb)
HOOK_LIO_LISTIO(lio_listio64, struct aiocb64)

static const char no_ring[] =
	"io_uring in use (liburing): its reads are not seen, the shim did not act on them";
static const char no_libaio[] =
	"libaio in use (io_setup): its reads are not seen, the shim did not act on them";

struct io_uring;
struct io_uring_params;
int io_uring_queue_init(unsigned entries, struct io_uring *ring, unsigned flags);
int io_uring_queue_init_params(unsigned entries, struct io_uring *ring,
			       struct io_uring_params *p);
int io_setup(unsigned nr, void **ctx);

PL_EXPORT int io_uring_queue_init(unsigned entries, struct io_uring *ring, unsigned flags)
{
	if (watching())
		pl_note_process(no_ring);
	return CALL(int, io_uring_queue_init, entries, ring, flags);
}

PL_EXPORT int io_uring_queue_init_params(unsigned entries, struct io_uring *ring,
					 struct io_uring_params *p)
{
	if (watching())
		pl_note_process(no_ring);
	return CALL(int, io_uring_queue_init_params, entries, ring, p);
}

PL_EXPORT int io_setup(unsigned nr, void **ctx)
{
	if (watching())
		pl_note_process(no_libaio);
	return CALL(int, io_setup, nr, ctx);
}
