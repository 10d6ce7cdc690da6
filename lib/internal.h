/* SPDX-License-Identifier: MIT */
/*
 * Library-internal state of a stream and the small system-call helpers the
 * strategies share.  Nothing here is exported from the shared library;
 * the static one carries these symbols too, so they are named pcl_ (the
 * API is pc_) and cannot collide with a program's own pc_ names.
 */
#ifndef PCL_INTERNAL_H
#define PCL_INTERNAL_H

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <sys/types.h>
#include <unistd.h>

#include "pagecliff.h"
#include "strategy.h"

#ifndef RWF_DONTCACHE
#define RWF_DONTCACHE 0x00000080
#endif

/*
 * The page size the system reports.  glibc answers sysconf(_SC_PAGESIZE) from
 * a value the loader set once, so this costs no system call and keeps no state
 * of ours; it is never 4096 by assumption.
 */
static inline uint64_t pcl_page_size(void)
{
	return (uint64_t)sysconf(_SC_PAGESIZE);
}

/* For the preload shim's callers of the dropper. */
#define PCL_PAGE_SIZE pcl_page_size()
#define PCL_MIB (1024u * 1024u)
/* pc_opts.inflight and pc_wopts.inflight at most. */
#define PCL_INFLIGHT_MAX 4096
/* pc_opts' and pc_wopts' chunk_size and inflight by default. */
#define PCL_CHUNK_DEFAULT PCL_MIB
#define PCL_INFLIGHT_DEFAULT 8

struct pc_stream {
	int fd;				/* what buffered strategies read */
	int own_fd;			/* the stream opened fd and closes it */
	int regular;			/* fd is a regular file */
	uint64_t pos;			/* the cursor */
	struct pc_opts opts;
	const struct pcl_strategy_ops *ops;
	unsigned int caps;		/* the strategy's PCL_CAP_* (registry.h) */
	void *priv;			/* the strategy's state */
	void *lend_buf;			/* pc_stream_next() for strategies without next() */
	char *rbuf;			/* reads under a page are served from here */
	size_t rbuf_size;
	uint64_t rbuf_off;		/* file offset of rbuf[0] */
	size_t rbuf_len;		/* bytes valid in rbuf */
	struct pc_stats stats;
};

/*
 * read() for a strategy whose read at the cursor is its pread() at s->pos,
 * nothing more.  Here, not in stream.c: a strategy calls nothing above it
 * (tests/cli/no-circles.py).
 */
static inline ssize_t pcl_read_at_cursor(struct pc_stream *s, void *buf, size_t len)
{
	return s->ops->pread(s, buf, len, s->pos);
}

/* printf into s->stats.reason. */
void pcl_set_reason(struct pc_stream *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Append "; " and printf to s->stats.reason. */
void pcl_add_reason(struct pc_stream *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * pread2 until @len bytes or end of file, retrying EINTR and short reads.
 * Counts calls in *syscalls.  Returns bytes read or -errno; an error after
 * some bytes were read returns those bytes.
 */
ssize_t pcl_full_pread(int fd, void *buf, size_t len, uint64_t off, int rwf,
		      uint64_t *syscalls);

/* What cachestat(2) says of a range, in pages. */
struct pcl_cachestat {
	uint64_t nr_cache;
	uint64_t nr_dirty;
	uint64_t nr_writeback;
	uint64_t nr_evicted;
	uint64_t nr_recently_evicted;
};

/* cachestat(2) of [@off, @off + @len) (0: to the end); -ENOSYS before 6.5. */
int pcl_cachestat(int fd, uint64_t off, uint64_t len, struct pcl_cachestat *ret);

/*
 * How the residency of one open file can be told truthfully.  cachestat(2)
 * refuses (EPERM) and mincore(2) reports every page resident for a file the
 * caller may not write; on overlayfs the file's own mapping is empty and
 * cachestat counts nothing, while a mapping (and fadvise) reach the real
 * file.  A read with RWF_NOWAIT is no way out: on Linux 6.18 it starts
 * readahead of the page it asks for, so probing adds what it counts.
 */
enum pcl_res_how {
	PCL_RES_CACHESTAT,		/* cachestat(2): pages, dirty, writeback */
	PCL_RES_MINCORE,			/* mincore(2) of a mapping: pages only */
	PCL_RES_UNKNOWN,			/* no truthful way: see err */
};

struct pcl_residency {
	enum pcl_res_how how;
	int err;			/* PCL_RES_UNKNOWN: why (-EPERM, ...) */
	int overlay;			/* the file is on overlayfs */
	uint64_t page;			/* the page size */
	unsigned int calls;		/* system calls pcl_residency_init() made */
};

/* Find how residency of @fd is told; never fails (unknown is an answer). */
void pcl_residency_init(struct pcl_residency *r, int fd);

/*
 * Count [@off, @off + @len) of @fd (page aligned @off; @len 0: to the end) as
 * cachestat(2) would.  With PCL_RES_MINCORE the dirty and writeback counts are
 * unknown and left 0; with PCL_RES_UNKNOWN returns r->err.
 */
int pcl_residency_count(const struct pcl_residency *r, int fd, uint64_t off,
		       uint64_t len, struct pcl_cachestat *ret);

/*
 * The system calls pcl_residency_count() makes for @len bytes (clipped to
 * the file, as it clips them), when each succeeds.
 */
uint64_t pcl_residency_count_calls(const struct pcl_residency *r, uint64_t len);

/*
 * pc_probe_fd(), counting in *calls the system calls it makes (auto adds
 * them to the stream's count).
 */
int pcl_probe_fd(int fd, struct pc_probe *ret_probe, uint64_t *calls);
/*
 * Its first part alone: the size and what is cached (file_size,
 * cached_bytes, cachestat), the rest zero; all the write side's auto reads,
 * without a ring set up and an O_DIRECT open per file written.
 */
int pcl_probe_cache(int fd, struct pc_probe *ret_probe, uint64_t *calls);

/*
 * Residency of the pages of [@off, @off + @len) (page aligned) in @vec, one
 * byte per page, bit 0 set when cached, through mincore(2) on a mapping.
 */
int pcl_mincore(int fd, uint64_t off, uint64_t len, unsigned char *vec);

/* Reopen @fd with O_DIRECT; returns the new fd or -errno. */
int pcl_reopen_direct(int fd);

/* STATX_DIOALIGN of @fd into the arguments; -EOPNOTSUPP when not reported. */
int pcl_dio_align(int fd, uint32_t *ret_mem, uint32_t *ret_off);

/* Size of the file on @fd, or -errno. */
int pcl_file_size(int fd, uint64_t *ret_size);
/*
 * The largest request the block device under @fd's file system takes
 * (its queue's max_sectors_kb, a partition's disk's), in bytes; -ENOENT
 * where the file system has no block device of its own (tmpfs, btrfs'
 * anonymous devices, network file systems).  Adds its system calls to
 * *@calls.
 */
int pcl_dev_max_request(int fd, uint64_t *ret_bytes, unsigned int *calls);

/* The transparent huge page's size (lib/buf.c). */
size_t pcl_huge_size(void);
/*
 * @size bytes page-aligned, or when @huge in whole huge pages marked
 * MADV_HUGEPAGE (pc_buf_alloc() is this with @huge from half a huge page
 * up); unmap with the same @size and @huge.
 */
void *pcl_buf_map(size_t size, int huge);
void pcl_buf_unmap(void *buf, size_t size, int huge);

struct io_uring;

/*
 * io_uring_queue_init() and io_uring_queue_exit() for the library's rings.
 * Besides, they tell ThreadSanitizer what it cannot see: a ring torn down by
 * one thread and one set up by another may be mapped at the same addresses,
 * and the kernel orders the two (no code without TSan).
 */
int pcl_ring_init(unsigned int entries, struct io_uring *ring);
void pcl_ring_exit(struct io_uring *ring);

/* The running kernel as 6 * 1000 + 12 (uname(2), asked once); 0 unknown. */
int pcl_kernel_version(void);

/*
 * auto (strategy/auto.c): the strategy for a read or a write stream from one
 * probe of its file (NULL: the probe failed), with why in @reason (@size
 * bytes).  Pure: it makes no system call.  @inflight is the direct reads a
 * stream would keep in flight; @append, the file is open with O_APPEND;
 * @kver, the kernel as pcl_kernel_version() gives it (uncached writes are
 * slow before PCL_DONTCACHE_WRITES_FAST).
 */
enum pc_strategy pcl_auto_read(const struct pc_probe *p, unsigned int inflight,
			       char *reason, size_t size);
enum pc_strategy pcl_auto_write(const struct pc_probe *p, int append, int kver,
				char *reason, size_t size);

/*
 * The kernel whose RWF_DONTCACHE writes kick the flusher instead of writing
 * their own range back inline (the series aimed at 7.2): before it they run
 * at about 35% of buffered (docs/MACHINES.md).
 */
#define PCL_DONTCACHE_WRITES_FAST 7002

/*
 * printf into @reason (@size bytes) at its start, or with @add after what it
 * holds and "; "; the stream cores' pcl_set_reason() and pcl_wset_reason()
 * (reason.c).
 */
void pcl_reason_vprintf(char *reason, size_t size, int add, const char *fmt,
			va_list ap);

/* The file on a stream's fd, as pcl_fd_take() finds it. */
struct pcl_fd {
	int fd;
	int own_fd;			/* the stream closes fd (pcl_stream_new()) */
	int regular;			/* a regular file */
	int append;			/* open with O_APPEND (writers only) */
	int readable;			/* open for reading (writers: O_RDWR) */
	uint64_t pos;			/* regular: the fd's offset; a writer's
					 * with O_APPEND, the end of the file */
};

/*
 * Look at the file on @fd for a read stream, or with @writer for a write
 * stream; 0, or -errno: -EISDIR for a directory, -EBADF for a writer's fd
 * not open for writing.
 */
int pcl_fd_take(int fd, int writer, struct pcl_fd *ret);

/*
 * Make a stream of the kind @how describes (a read or a write stream) on
 * @fd, which it closes when @own_fd: look at the file (pcl_fd_take()),
 * allocate the stream, let @how->take() fill it in from @opts (NULL: the
 * defaults), and set its strategy up (pcl_strategy_setup()).  Returns 0
 * with the stream in *@ret_stream, or -errno with nothing left behind (@fd
 * closed when @own_fd).
 */
int pcl_stream_new(const struct pcl_setup *how, int fd, int own_fd,
		   const void *opts, void **ret_stream);

/*
 * What a read's and a write's options share, checked (pc_opts, pc_wopts):
 * a known strategy, the @nresv reserved fields zero, chunk_size and inflight
 * 0 for their defaults (PCL_CHUNK_DEFAULT, PCL_INFLIGHT_DEFAULT), then
 * chunk_size at most @max_chunk and inflight at most PCL_INFLIGHT_MAX.
 * 0 or -EINVAL.
 */
int pcl_opts_check(enum pc_strategy strategy, size_t *chunk_size,
		   unsigned int *inflight, const uint64_t *resv, size_t nresv,
		   size_t max_chunk);

/*
 * An init() refusal that means "not supported here" (strategy.h), after which
 * a read or write stream tries the strategy's fallback.
 */
static inline int pcl_is_fallback_err(int err)
{
	return err == -EOPNOTSUPP || err == -EINVAL || err == -EPERM ||
	       err == -ENOSYS || err == -EACCES;
}

/* Whether the @n reserved fields of a caller's options are zero (pagecliff.h). */
static inline int pcl_resv_zero(const uint64_t *resv, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (resv[i])
			return 0;
	return 1;
}

static inline uint64_t pcl_align_down(uint64_t v, uint64_t a)
{
	return v - v % a;
}

static inline uint64_t pcl_align_up(uint64_t v, uint64_t a)
{
	return pcl_align_down(v + a - 1, a);
}

#endif
