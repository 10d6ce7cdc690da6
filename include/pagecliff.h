/* SPDX-License-Identifier: MIT */
/*
 * libpagecliff: stream files at device speed without flooding the page cache.
 *
 * A stream reads one file front to back (or at given offsets) through one of
 * several strategies that differ only in what they leave in the page cache and
 * what they cost in CPU.  Every function returns 0 (or a byte count) on
 * success and a negative errno on failure; the library never prints, logs or
 * exits, and keeps no global state: two streams in two threads never interact.
 */
#ifndef PAGECLIFF_H
#define PAGECLIFF_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * How a stream reads.
 *
 * PC_AUTO        probe the file and kernel, pick one of the below, say why.
 * PC_BUFFERED    plain pread(2); the baseline that fills the page cache.
 * PC_DONTCACHE   preadv2(2) with RWF_DONTCACHE (Linux >= 6.14 and a file
 *                system that opted in): pages it instantiates are dropped
 *                after the copy, pages already cached stay.
 * PC_DROPBEHIND  buffered reads, POSIX_FADV_DONTNEED in batches behind the
 *                cursor and POSIX_FADV_WILLNEED ahead of it; pages cached
 *                before the stream touched them are kept.
 * PC_DIRECT      O_DIRECT through io_uring with several reads in flight;
 *                never enters the page cache.
 */
enum pc_strategy {
	PC_AUTO = 0,
	PC_BUFFERED,
	PC_DONTCACHE,
	PC_DROPBEHIND,
	PC_DIRECT,
	PC_STRATEGY_COUNT,
};

/*
 * Name of @strategy ("auto", "buffered", ...), or NULL when out of range.
 * The names of all, in the library's order, are those of 0 to
 * PC_STRATEGY_COUNT - 1.
 */
const char *pc_strategy_name(enum pc_strategy strategy);

/*
 * Parse a strategy name into *ret_strategy.
 * Returns 0, or -EINVAL for a name that is not a strategy.
 */
int pc_strategy_parse(const char *name, enum pc_strategy *ret_strategy);

/* What a strategy serves: read streams, write streams (pc_strategy_caps()). */
#define PC_STRATEGY_READS (1u << 0)
#define PC_STRATEGY_WRITES (1u << 1)
/*
 * The preload shim (`pagecliff run --mode`, PAGECLIFF_MODE) acts with it on
 * a program's own files: its name is one of the shim's modes.
 */
#define PC_STRATEGY_PRELOAD (1u << 2)

/*
 * The shim's one mode that is no strategy: it leaves the program's files to
 * the kernel, as buffered would (so buffered is not one of its modes).
 */
#define PC_PRELOAD_OFF "off"

/*
 * The PC_STRATEGY_* bits of @strategy (reads and writes for PC_AUTO), or 0
 * when out of range: which of its names a command offers for reading, for
 * writing, to the preload shim.  A stream asked for a strategy that does
 * not serve its kind falls back as when the kernel refuses one.
 */
unsigned int pc_strategy_caps(enum pc_strategy strategy);

/*
 * Room to grow (as liburing's io_uring_params): the public structs end in
 * reserved fields, so that a later version adds fields without changing
 * their size.  In the structs a caller fills (pc_opts, pc_wopts) they must
 * be zero, as pc_opts_init() and pc_wopts_init() or "= { 0 }" leave them
 * (-EINVAL otherwise); a field made of them later means "as before" at 0.
 * In the structs the library fills (pc_probe, pc_stats, pc_wstats) they are
 * zero.
 */

/*
 * Options of a stream.  Initialise with pc_opts_init() and change only the
 * fields you need; zero in a size field means "the default".
 */
struct pc_opts {
	enum pc_strategy strategy;	/* default PC_AUTO */
	size_t chunk_size;		/* bytes per read request, default 1 MiB */
	unsigned int inflight;		/* PC_DIRECT: reads in flight, default 8;
					 * see PC_DIRECT_INFLIGHT_MAX */
	uint64_t drop_lag;		/* PC_DROPBEHIND: bytes kept behind the cursor,
					 * default 0, at most 4 * drop_batch */
	uint64_t drop_batch;		/* PC_DROPBEHIND: bytes per fadvise call, default 8 MiB */
	int keep_cached;		/* keep pages cached before the stream read them, default 1 */
	uint64_t resv[4];		/* zero */
};

/*
 * PC_DIRECT never has more than this many bytes of buffers (inflight x
 * chunk): a larger chunk is cut to it, and fewer reads are kept in flight;
 * nor more than the file needs when the stream opens (a 300 MB file gets
 * no 1 GiB chunk).  The buffers are pinned, so this is resident memory.
 */
#define PC_DIRECT_INFLIGHT_MAX (64ull << 20)

/* Fill @opts with the defaults. */
void pc_opts_init(struct pc_opts *opts);

/*
 * What the kernel and file system behind an open file support.
 * Filled by pc_probe_fd(); each field is 1, 0, or for the alignments 0 when
 * unknown.  @dontcache_err, @direct_err and @uring_err hold the negative
 * errno that ruled a feature out (0 when supported).
 */
struct pc_probe {
	int dontcache;			/* preadv2(RWF_DONTCACHE) accepted */
	int direct;			/* O_DIRECT open accepted */
	int uring;			/* io_uring rings can be created */
	int cachestat;			/* cachestat(2) available */
	int dioalign_known;		/* alignments below come from STATX_DIOALIGN */
	uint32_t dio_mem_align;		/* buffer alignment O_DIRECT needs */
	uint32_t dio_offset_align;	/* offset/length alignment O_DIRECT needs */
	int dontcache_err;
	int direct_err;
	int uring_err;
	uint64_t file_size;
	uint64_t cached_bytes;		/* bytes of the file in the page cache when
					 * probed, or PC_BYTES_UNKNOWN */
	uint64_t resv[4];		/* zero */
};

/*
 * A count the kernel will not tell: cachestat(2) refuses and mincore(2) lies
 * for a file the caller may not write (neither owner nor writer nor
 * CAP_FOWNER).  Never a guess in its place.
 */
#define PC_BYTES_UNKNOWN UINT64_MAX

/*
 * Probe what can be used to read the regular file open on @fd.  Reads at most
 * one byte of it.  Returns 0, or -errno when @fd cannot be inspected
 * (-EINVAL for a file that is not regular).
 */
int pc_probe_fd(int fd, struct pc_probe *ret_probe);

/*
 * Count the bytes of [@offset, @offset + @length) of @fd that are in the page
 * cache, through cachestat(2) where the kernel has it and mincore(2)
 * otherwise; on overlayfs through a mapping, which reaches the real (lower
 * or upper) file that holds the pages.  @length 0 means to the end of the
 * file.  Returns 0 and sets *ret_bytes, or -errno: -EPERM when the kernel
 * hides the count from this caller (a file it may not write), never a guess.
 */
int pc_cached_bytes(int fd, uint64_t offset, uint64_t length, uint64_t *ret_bytes);

struct pc_stream;

/*
 * Open @path read-only as a stream with @opts (NULL for the defaults).
 * Returns 0 and sets *ret_stream, or -errno: the open(2) error, -EISDIR for a
 * directory, -EINVAL for bad options, -ENOMEM.
 */
int pc_stream_open(struct pc_stream **ret_stream, const char *path,
		   const struct pc_opts *opts);

/*
 * As pc_stream_open() on an fd the caller keeps owning: the stream never
 * closes @fd, never changes its flags and never moves its file offset.
 * Non-regular files (pipes, terminals, sockets) are read with read(2) and no
 * strategy.
 */
int pc_stream_fdopen(struct pc_stream **ret_stream, int fd,
		     const struct pc_opts *opts);

/*
 * Read up to @len bytes at the stream's cursor into @buf and advance it.
 * Returns the bytes read (fewer than @len only at end of file), 0 at end of
 * file, or -errno.  EINTR is retried inside.
 */
ssize_t pc_stream_read(struct pc_stream *stream, void *buf, size_t len);

/*
 * Read up to @len bytes at @offset into @buf; the cursor does not move.
 * Returns as pc_stream_read().
 */
ssize_t pc_stream_pread(struct pc_stream *stream, void *buf, size_t len,
			uint64_t offset);

/*
 * Lend the next chunk at the cursor without copying it into a caller buffer:
 * *ret_data points into a page-aligned buffer the stream owns, valid until the
 * next call on the stream.  Returns the chunk's length, 0 at end of file, or
 * -errno (then *ret_data is untouched).
 */
ssize_t pc_stream_next(struct pc_stream *stream, const void **ret_data);

/* Figures of a stream so far. */
struct pc_stats {
	uint64_t bytes_read;		/* bytes handed to the caller */
	uint64_t syscalls;		/* read, fadvise, io_uring and probe calls */
	uint64_t bytes_dropped;		/* bytes the stream asked the kernel to evict */
	uint64_t bytes_kept;		/* bytes left cached because they were cached before */
	enum pc_strategy strategy;	/* the strategy in use (never PC_AUTO) */
	enum pc_strategy requested;	/* the strategy asked for */
	char reason[160];		/* why this strategy: auto's choice or a fallback */
	uint64_t resv[4];		/* zero */
};

/* Copy the stream's figures into *ret_stats. */
void pc_stream_stats(const struct pc_stream *stream, struct pc_stats *ret_stats);

/*
 * Allocate @size bytes aligned to a page (from half a huge page up, whole
 * huge pages marked MADV_HUGEPAGE), or NULL; free with pc_buf_free() and @size.
 */
void *pc_buf_alloc(size_t size);
void pc_buf_free(void *buf, size_t size);

/* Close @stream and free everything it holds; NULL is accepted. */
void pc_stream_close(struct pc_stream *stream);

/*
 * Write streams
 *
 * A write stream writes one file, sequentially at its cursor or at given
 * offsets, through one of the same strategies (enum pc_strategy), which
 * differ in what they leave in the page cache:
 *
 * PC_BUFFERED    plain pwrite(2): dirty pages stay until the kernel's own
 *                writeback; the baseline.
 * PC_DONTCACHE   pwritev2(2) with RWF_DONTCACHE (Linux >= 6.14; XFS, ext4,
 *                NFS): the kernel starts writeback at once and drops the
 *                pages when it completes.
 * PC_DROPBEHIND  buffered writes; behind the cursor writeback is started in
 *                batches and, a few batches later, waited for and the batch
 *                evicted, so a few batches stay cached.  Every kernel.  This
 *                follows sequential runs: a write that does not continue the
 *                last one starts a new run, and a run shorter than a batch
 *                (a small file, scattered positioned writes) is left to the
 *                kernel's writeback and stays cached.
 * PC_DIRECT      O_DIRECT through io_uring with several writes in flight from
 *                aligned buffers; bytes before the first and after the last
 *                aligned block of a write go through the page cache and are
 *                written back and evicted (at the latest at close).
 * PC_AUTO        chooses per file, says why in pc_wstats.reason.
 *
 * What the caller can rely on, with every strategy:
 * - The file ends up byte for byte as plain write(2)/pwrite(2) would leave
 *   it, for any sizes, offsets and chunk sizes, O_APPEND included.
 * - A successful pc_wstream_write(), pc_wstream_pwrite() or
 *   pc_wstream_commit() means every byte was handed to the kernel (copied
 *   into the page cache or submitted as direct I/O), never that it sits in a
 *   buffer of the stream.  Like write(2) it does not mean "on disk": only a
 *   successful pc_wstream_sync() means that.
 * - An I/O error the stream sees (a direct write that failed, a writeback
 *   error seen while waiting to evict) is returned by the next call on the
 *   stream, or by pc_wstream_close(), once; it is never swallowed, and the
 *   stream waits through a file description of its own, so the caller's own
 *   fsync(2) on a descriptor of the file still reports it too (PC_DIRECT:
 *   a failed direct write is reported to its submitter only, the stream).
 *   With PC_DIRECT, writes already in flight when one fails may still land,
 *   so after an error the file can hold a hole where the failed write was.
 * - Pages of the file that were cached before the stream wrote them, or dirty
 *   from someone else, are not evicted (PC_DIRECT excepted: the kernel
 *   invalidates cached pages under a direct write, writing dirty ones back
 *   first, so auto never picks direct for a file with cached pages).
 * - No fsync(2) the caller did not ask for; a stream only waits for
 *   writeback it started itself, to evict it.
 * - A file that shrinks under the stream (another process truncates it) is
 *   not an error: writes land where they were asked to, as with pwrite(2).
 */

/*
 * Options of a write stream.  Initialise with pc_wopts_init() and change
 * only the fields you need; zero in a size field means "the default".
 */
struct pc_wopts {
	enum pc_strategy strategy;	/* default PC_AUTO */
	size_t chunk_size;		/* bytes per direct write and lent buffer, default 1 MiB */
	unsigned int inflight;		/* PC_DIRECT: writes in flight, default 8; at most
					 * 16 MiB in flight in all */
	uint64_t flush_batch;		/* PC_DROPBEHIND: bytes per writeback batch, default 8 MiB */
	uint64_t resv[4];		/* zero */
};

/* Fill @opts with the defaults. */
void pc_wopts_init(struct pc_wopts *opts);

struct pc_wstream;

/*
 * Open @path for writing with open(2)'s @flags and @mode (O_WRONLY or O_RDWR
 * required; O_CREAT, O_TRUNC, O_EXCL, O_APPEND as open(2); O_DIRECT is not
 * accepted, ask for PC_DIRECT).  The cursor starts at 0, or at the end of
 * the file with O_APPEND.  Returns 0 and sets *ret_stream, or -errno: the
 * open(2) error, -EISDIR, -EINVAL for bad flags or options, -ENOMEM.
 */
int pc_wstream_open(struct pc_wstream **ret_stream, const char *path, int flags,
		    mode_t mode, const struct pc_wopts *opts);

/*
 * As pc_wstream_open() on an fd open for writing that the caller keeps
 * owning: the stream never closes @fd and never changes its flags.  The
 * cursor starts at @fd's file offset, which the stream does not move (it
 * writes with pwrite), except with O_APPEND, where every write moves it to
 * the end as write(2) does.  Non-regular files (pipes, sockets) are written
 * with write(2) and no strategy.
 */
int pc_wstream_fdopen(struct pc_wstream **ret_stream, int fd,
		      const struct pc_wopts *opts);

/*
 * Write @len bytes of @buf at the cursor and advance it (with O_APPEND at
 * the end of the file).  Returns @len, fewer when an error stopped it after
 * some bytes (the error comes again at the next call), or -errno: the
 * write(2) error (ENOSPC, EDQUOT, EFBIG, EIO ...) or an earlier I/O error not
 * returned yet.  EINTR is retried inside.
 */
ssize_t pc_wstream_write(struct pc_wstream *stream, const void *buf, size_t len);

/*
 * Write @len bytes of @buf at @offset; the cursor does not move.  With
 * O_APPEND the bytes go to the end of the file, as pwrite(2) does on Linux.
 * Returns as pc_wstream_write(); -ESPIPE on a pipe.
 */
ssize_t pc_wstream_pwrite(struct pc_wstream *stream, const void *buf,
			  size_t len, uint64_t offset);

/*
 * Zero-copy writing: lend the caller a page-aligned buffer of the stream's
 * to fill; *ret_buf is set and the buffer's size (the chunk size) returned,
 * or -errno (then *ret_buf is untouched).  The buffer is valid until the next
 * call on the stream; pc_wstream_commit() writes what was filled.
 */
ssize_t pc_wstream_lend(struct pc_wstream *stream, void **ret_buf);

/*
 * Write the first @len bytes of the buffer pc_wstream_lend() lent at the
 * cursor, as pc_wstream_write() would; with PC_DIRECT and an aligned cursor
 * and length the buffer itself is submitted, without a copy.  Returns as
 * pc_wstream_write(); -EINVAL without a lent buffer or for @len over its size.
 */
ssize_t pc_wstream_commit(struct pc_wstream *stream, size_t len);

/*
 * fdatasync(2) semantics: every byte written so far is on stable storage
 * when this returns 0.  Waits for writes in flight first.  Returns 0 or
 * -errno, including an earlier I/O error not returned yet.
 */
int pc_wstream_sync(struct pc_wstream *stream);

/* Figures of a write stream so far. */
struct pc_wstats {
	uint64_t bytes_written;		/* bytes handed to the kernel */
	uint64_t syscalls;		/* write, sync_file_range, fadvise, io_uring, probe calls */
	uint64_t bytes_dropped;		/* bytes that left the cache when the stream
					 * evicted them, counted before and after
					 * (the reason says when that is unknown) */
	uint64_t bytes_kept;		/* bytes left cached: cached before, or someone else's */
	enum pc_strategy strategy;	/* the strategy in use (never PC_AUTO) */
	enum pc_strategy requested;	/* the strategy asked for */
	char reason[160];		/* why this strategy: auto's choice or a fallback */
	uint64_t resv[4];		/* zero */
};

/* Copy the stream's figures into *ret_stats. */
void pc_wstream_stats(const struct pc_wstream *stream, struct pc_wstats *ret_stats);

/*
 * Finish and free @stream: waits for writes in flight, starts writeback of
 * and evicts what it can (never fsync), closes the fd when the stream opened
 * it.  Returns 0, or the first I/O error not returned before (the stream is
 * freed either way).  NULL is accepted and returns 0.
 */
int pc_wstream_close(struct pc_wstream *stream);

/*
 * As pc_wstream_close(), and first fill *ret_stats with the stream's final
 * figures (what close evicted included).  @ret_stats may be NULL.
 */
int pc_wstream_close_stats(struct pc_wstream *stream, struct pc_wstats *ret_stats);

#ifdef __cplusplus
}
#endif

#endif /* PAGECLIFF_H */
