/* SPDX-License-Identifier: MIT */
/*
 * libpagecliff-preload: what the parts of the LD_PRELOAD shim share.
 *
 * The hooks: the libc functions the shim replaces, one family a file; each
 * calls the real function and tells the rest of the shim what happened.
 *   interpose.h          what the hooks share: REAL(), CALL(), watching(),
 *                        PL_EXPORT, PL_VECTOR_HOOKS()
 *   interpose-open.c     open, openat, creat, fopen, freopen, close,
 *                        close_range, closefrom, dup, dup2, dup3, fcntl
 *   interpose-read.c     read, pread, readv, preadv, preadv2, lseek
 *   interpose-write.c    write, pwrite, writev, pwritev, pwritev2; ftruncate,
 *                        truncate, fallocate (they change what direct read ahead)
 *   interpose-stdio.c    fread, getc, getline, fgets; fwrite, fputs, putc,
 *                        printf, fflush; fclose
 *   interpose-copy.c     mmap, sendfile, splice, copy_file_range
 *   interpose-unseen.c   POSIX AIO, libaio, io_uring: said in stats, not followed
 *   interpose-process.c  the constructor (settings), the exit destructor,
 *                        _exit, _Exit
 * (and their 64-bit, _unlocked and fortified names)
 *
 * What they tell (each calls only those below it; table.c and below call
 * back only through function pointers: a file's release, the fork hook):
 *   track.c              a file's life: readers (where a file is read, when
 *                        to drop behind), closes, dups, the stats lines
 *   write.c              writers: write-behind through lib/flusher.c
 *   direct.c             cold files read O_DIRECT ahead of the program
 *                        (lib/strategy/direct-shim.h), copied into its reads
 *   submitter.c          the thread that makes direct.c's io_uring rings and
 *                        submits their reads
 *   table.c              open fds -> the file they read, one lock, fork handlers
 *   overlay.c            a writer's upper file on overlayfs; pl_dup_high()
 *   meter.c              what left the page cache during the shim's drops
 *   config.c             PAGECLIFF_MODE, PAGECLIFF_STATS; PAGECLIFF_MIN_SIZE and
 *                        PAGECLIFF_BUDGET through common/policy.h, which the
 *                        watcher shares (defaults, runs, the stats lines)
 *   preload-path.c.in    where `pagecliff run` finds the installed shim (the
 *                        command's, not the shim's)
 *   libpagecliff-preload.map  the version script
 *
 * Nothing here is exported: the version script exports only the libc names.
 * A new libc function is hooked in the file of its family (interpose.h says
 * how) and named in libpagecliff-preload.map.
 */
#ifndef PL_PRELOAD_H
#define PL_PRELOAD_H

#include <stdint.h>
#include <sys/types.h>
#include <sys/uio.h>

#include <pthread.h>

#include "dropper.h"
#include "flusher.h"
#include "pagecliff.h"

#define PL_HIDDEN __attribute__((visibility("hidden")))

/*
 * The shim's mode (PAGECLIFF_MODE): a strategy of the library's registry
 * that has PC_STRATEGY_PRELOAD, by its own value, or off (PC_PRELOAD_OFF).
 */
enum pl_mode {
	PL_MODE_AUTO = PC_AUTO,		/* RWF_DONTCACHE where it works, else drop-behind */
	PL_MODE_DROPBEHIND = PC_DROPBEHIND,
	PL_MODE_DONTCACHE = PC_DONTCACHE, /* as auto; named so that stats say what was asked */
	PL_MODE_DIRECT = PC_DIRECT,	/* O_DIRECT ahead of the program, else as auto */
	PL_MODE_OFF = PC_STRATEGY_COUNT,
};

struct pl_config {
	enum pl_mode mode;
	uint64_t min_size;	/* sequential bytes before acting */
	uint64_t batch;		/* bytes per POSIX_FADV_DONTNEED */
	uint64_t budget;	/* read but not yet dropped, all files together */
	int stats;		/* print a line per file */
	const char *stats_path;	/* NULL: stderr */
};

extern struct pl_config pl_cfg PL_HIDDEN;

/* Read the environment once; safe to call again. */
void pl_config_load(void) PL_HIDDEN;

/* Append one line to the stats destination (stderr or the file). */
void pl_stats_write(const char *line, size_t len) PL_HIDDEN;

/*
 * What left the page cache during the shim's drops (meter.c): the range's
 * cached bytes before and after each drop call, or unknown where residency
 * cannot be told.
 */
struct pl_meter {
	int ready;		/* res was found (a zeroed meter is ready to use) */
	struct pcl_residency res;
	uint64_t dropped;	/* bytes that left the cache during drops */
	int unknown;		/* a drop could not be counted */
	int armed;		/* a drop is being counted */
	uint64_t off, len;	/* its range (len 0: to the end of the file) */
	uint64_t before;	/* bytes of the range cached before it */
	uint64_t syscalls;	/* made to count */
};

/* Zero the counts (a fork child counts its own); keeps what res found. */
void pl_meter_reset(struct pl_meter *m) PL_HIDDEN;
/* About to drop within [@off, @off + @len) of @fd (@len 0: to the end). */
void pl_meter_begin(struct pl_meter *m, int fd, uint64_t off, uint64_t len) PL_HIDDEN;
/* The drop is done. */
void pl_meter_end(struct pl_meter *m, int fd) PL_HIDDEN;
/* The count for stats: the number in @buf, or "unknown". */
const char *pl_meter_str(const struct pl_meter *m, char *buf, size_t size) PL_HIDDEN;

/* One open file description that the program reads. */
struct pl_file {
	int refs;		/* fds in the table that point here */
	/* The last reference is gone (track.c's final drop and stats): set by
	 * whoever made the file, so that table.c and write.c, which only hold
	 * references, need not call back into track.c. */
	void (*release)(struct pl_file *file, int fd);
	int fd;			/* the last fd it was read through (budget drops) */
	int finished;		/* final drop done, stats printed */
	dev_t dev;
	ino_t ino;
	uint64_t size_at_open;
	char *path;		/* for stats; may be NULL */
	uint64_t fpos;		/* the fd's offset as the shim believes it */
	uint64_t cursor;	/* end of the last read */
	uint64_t run_start;	/* where the current sequential run began */
	uint64_t run_reads;	/* reads in the current run */
	int active;		/* the run passed min_size: dropping */
	int mapped;		/* mmap()ed: never drop again */
	const char *unseen_why;	/* read in ways the shim cannot follow */
	int stdio;		/* read through fread(): fpos lags the fd */
	int dontcache;		/* 1 usable, 0 refused, -1 not tried */
	int hidden;		/* residency hidden from this user: never dropped */
	int have_dropper;
	struct pcl_dropper drop;
	struct pl_meter meter;	/* what the dropper's drops took out of the cache */
	uint64_t bytes_read;
	uint64_t bytes_dontcache;	/* read with RWF_DONTCACHE */
	uint64_t runs;			/* sequential runs that reached min_size */
	uint64_t seeks;
	uint64_t inflight;	/* bytes asked of reads at the fd's offset running now */
	uint64_t behind;	/* what this file adds to the process-wide budget */
	int met;		/* met in the table, not opened through the shim */
	int direct_tried;	/* direct.c decided for this file once */
	struct pl_direct *direct;	/* its direct reader (or why none), or NULL */
	struct pl_file *prev, *next;	/* all files with a dropper */

	/* Writers (opened for writing): write-behind through lib/flusher.c. */
	int writer;
	int append;		/* O_APPEND: writes go to the end */
	pthread_mutex_t wlock;	/* the flusher's; never held while taking pl_lock() */
	int have_flusher;
	int wdone;		/* the flusher has finished */
	struct pcl_flusher fl;
	struct pl_meter wmeter;	/* what the flusher's drops took out of the cache */
	int have_real;		/* overlayfs: the upper file, read-only, for the flusher */
	uint64_t wsyscalls;	/* made to find and check it */
	int real_fd;
	dev_t real_dev;
	ino_t real_ino;
	uint64_t wrun_start;	/* where the current sequential write run began */
	uint64_t wcursor;	/* end of the last write */
	uint64_t winflight;	/* bytes of writes at the fd's offset running now */
	uint64_t bytes_written;
	uint64_t wb_errors;	/* writeback errors the flusher saw */
	uint64_t wruns;		/* write runs that got write-behind */
	uint64_t wact_snap;	/* a write ending past this makes the flusher snap */
	uint64_t wact_full;	/* ... one ending here or past it, start writeback */
	uint64_t wact_cont;	/* ... one not starting here, restart (UINT64_MAX: any) */
};

/*
 * 1 in a child made by vfork() (or clone() without fork handlers) that has
 * not exec'd yet: it shares the parent's memory, so the shim must change
 * nothing and goes straight to libc.
 */
int pl_foreign(void) PL_HIDDEN;
/* The fork handler's part for track.c: a forked child starts its own stats. */
void pl_track_forked(int fd) PL_HIDDEN;
/* The process ends (exit or _exit): final drops and stats of open files. */
void pl_track_exit(void) PL_HIDDEN;

/* The shim's one lock; held for table changes and file bookkeeping. */
void pl_lock(void) PL_HIDDEN;
void pl_unlock(void) PL_HIDDEN;

/* With the lock held: the file behind @fd; 1 and *ret_file (NULL when the fd
 * is known to be ignored), 0 when the fd is unknown. */
int pl_table_get(int fd, struct pl_file **ret_file) PL_HIDDEN;
/* With the lock held: map @fd to @file (NULL: ignored), taking a reference;
 * whatever @fd mapped to before is released. */
void pl_table_set(int fd, struct pl_file *file) PL_HIDDEN;
/* With the lock held: forget @fd, releasing its reference. */
void pl_table_del(int fd) PL_HIDDEN;
/* With the lock held: call @fn for every fd in [@lo, @hi] in the table. */
void pl_table_each(unsigned int lo, unsigned int hi, void (*fn)(int fd)) PL_HIDDEN;
/* With the lock held: as pl_table_get(), but an fd not met yet is met
 * first (an fd opened before exec, a stdout the shell redirected). */
void pl_table_meet(int fd, struct pl_file **ret_file) PL_HIDDEN;
/* Set at load: how an fd is met (pl_track_met), what a fork() child does to
 * each fd in the table (pl_track_forked) and what the parent does
 * (pl_direct_parent_forked); so table.c, which the other files call, calls
 * none of them back. */
void pl_table_hooks(void (*meet)(int fd, const char *path), void (*forked)(int fd),
		    void (*parent)(int fd)) PL_HIDDEN;

/* Start tracking @fd, just opened (or met) for reading; lock held.
 * @path may be NULL.  Ignores what is not a read-only regular file. */
void pl_track_fd(int fd, const char *path) PL_HIDDEN;
/* As pl_track_fd() for an fd the shim did not see opened (table.c's meet):
 * it may be shared with processes the shim is not in. */
void pl_track_met(int fd, const char *path) PL_HIDDEN;
/*
 * @fd is a file on overlayfs: open its upper (real) file read-only, at a
 * high fd number, close-on-exec, and return that fd with its stat in
 * *ret_st; -errno when it is not on overlayfs or cannot be found (overlay.c).
 * Adds the system calls it made to *@syscalls.
 */
struct stat;
/* A close-on-exec duplicate of @fd out of the way of the program's own fd
 * numbers (overlay.c), or -1; adds its system calls to *@syscalls. */
int pl_dup_high(int fd, uint64_t *syscalls) PL_HIDDEN;
int pl_overlay_real(int fd, struct stat *ret_st, uint64_t *syscalls) PL_HIDDEN;

/* 1 when @fd is open on @f's file (same device and inode): an fd closed
 * behind the shim's back may have been reused for another file (table.c). */
int pl_same_file(const struct pl_file *f, int fd) PL_HIDDEN;
/* With the lock held: drop a reference to @file (NULL: nothing); the last
 * one releases it (@fd is still open): final drop, stats (table.c). */
void pl_file_put(struct pl_file *file, int fd) PL_HIDDEN;

/* How a read is about to be done; filled by pl_read_begin(). */
struct pl_read {
	struct pl_file *file;	/* NULL: not tracked, just call libc */
	int fd;
	int positional;		/* the read names its offset */
	uint64_t off;
	uint64_t len;		/* asked for */
	int use_dontcache;
	int stdio;		/* through fread(): the fd's offset runs ahead */
	struct pl_direct *direct;	/* read through this direct reader, if it serves */
	int served;		/* it did: off is where the bytes came from */
};

/*
 * Before a read of up to @len bytes on @fd at @off (-1: at the fd's offset):
 * lock, look the fd up, decide.  Returns with the lock released.
 */
void pl_read_begin(struct pl_read *r, int fd, int64_t off, uint64_t len) PL_HIDDEN;
/* As pl_read_begin() for a read at the fd's offset into the program's own
 * buffers (read, readv, fread's bulk): r->direct may then serve it. */
void pl_read_begin_direct(struct pl_read *r, int fd, uint64_t len) PL_HIDDEN;
/* After it: @n bytes (or -1) came back.  Keeps errno. */
void pl_read_end(struct pl_read *r, int64_t n) PL_HIDDEN;
/* RWF_DONTCACHE was refused on this read's file: read the normal way. */
void pl_read_no_dontcache(struct pl_read *r) PL_HIDDEN;
/* The fd's offset is now @pos (lseek). */
void pl_note_seek(int fd, int64_t pos) PL_HIDDEN;
/* stdio refilled the buffer of a stream on @fd through libc's internal
 * read: the fd's offset says how far it read. */
void pl_note_stdio(int fd) PL_HIDDEN;
/* The file on @fd was mapped. */
void pl_note_mmap(int fd) PL_HIDDEN;
/* The file on @fd is read in a way the shim cannot follow (@why, for stats,
 * a constant): hands off from now on. */
void pl_note_unseen(int fd, const char *why) PL_HIDDEN;
/* Once per process, for stats: @why (a constant) the shim did not act. */
void pl_note_process(const char *why) PL_HIDDEN;
/* @fd (@path, may be NULL) was opened with O_DIRECT: a stats line. */
void pl_note_direct(int fd, const char *path) PL_HIDDEN;
/* @fd is about to be closed; @fd is still open. */
void pl_note_close(int fd) PL_HIDDEN;
/* @newfd now refers to what @oldfd refers to (dup). */
void pl_note_dup(int oldfd, int newfd) PL_HIDDEN;

/* How a write is about to be done; filled by pl_write_begin(). */
struct pl_write {
	struct pl_file *file;	/* NULL: not tracked */
	int fd;
	int positional;
	uint64_t off;
	uint64_t len;
	int changes;		/* a regular file: what direct read ahead of it goes */
	dev_t dev;
	ino_t ino;
};

/*
 * The most the flusher is told of in one write: it remembers a few batches,
 * so in-kernel copies (copy_file_range, sendfile) to a tracked writer are made
 * in pieces of this size, and longer writes are snapped this far.
 */
#define PL_WRITE_PIECE (32ull << 20)

/* 1 when @fd is a regular file the shim writes behind. */
int pl_is_writer(int fd) PL_HIDDEN;
/* Before a write of @len bytes on @fd at @off (-1: the fd's offset). */
void pl_write_begin(struct pl_write *w, int fd, int64_t off, uint64_t len) PL_HIDDEN;
/* After it: @n bytes (or -1) were written.  Keeps errno. */
void pl_write_end(struct pl_write *w, int64_t n) PL_HIDDEN;
/* stdio flushed @n bytes (-1: unknown) of a stream on @fd through libc's
 * internal write(). */
void pl_note_stdio_write(int fd, int64_t n) PL_HIDDEN;
/*
 * fclose() of a stream on @fd with data still buffered: before the real
 * fclose, a duplicate of @fd that keeps the writer tracked while the stream
 * flushes and closes; -1 when @fd is no writer.  After it,
 * pl_writer_unhold() with the bytes the flush wrote (-1: unknown) counts
 * them, then finishes the writer through the duplicate and closes it.
 */
int pl_writer_hold(int fd) PL_HIDDEN;
void pl_writer_unhold(int held, int64_t n) PL_HIDDEN;
/* The program exits (the destructor, interpose-process.c): stdout's buffered
 * data goes out now, so that the final drop and the stats include it. */
void pl_flush_stdout(void) PL_HIDDEN;
/* The writer @f is done (last close of @fd, still open, or exit): wait for
 * the writeback the flusher started, drop it.  Takes f->wlock. */
void pl_writer_finish(struct pl_file *f, int fd) PL_HIDDEN;
/* Set up @f, just tracked, as a writer of @fd opened with @flags. */
void pl_writer_init(struct pl_file *f, int fd, int flags) PL_HIDDEN;
/* The stats line of a writer into @line; its length (0: none). */
size_t pl_writer_stats(const struct pl_file *f, char *line, size_t size) PL_HIDDEN;
/* In a fork() child: hands off a writer whose lock another thread held. */
void pl_writer_forked(struct pl_file *f) PL_HIDDEN;

/*
 * Direct readers (direct.c).  A file the program opened read-only through
 * the shim and reads at its offset is, once decided (mode direct, or auto
 * for a cold file), read O_DIRECT ahead of the program into the shim's
 * buffers; each read is a copy from them and one lseek().  All but
 * pl_direct_read() run under pl_lock(); a reader's own lock is taken after
 * pl_lock(), never before it.
 */
struct pl_direct;
/* Decide, once, whether @f (read at @fd's offset now) gets a direct reader. */
void pl_direct_decide(struct pl_file *f, int fd) PL_HIDDEN;
/* @f's direct reader while it serves reads, else NULL. */
struct pl_direct *pl_direct_use(const struct pl_file *f) PL_HIDDEN;
/*
 * Without pl_lock(): serve a read of @len bytes (over @cnt buffers of @iov)
 * at @fd's offset.  1: served, *@ret is what read(2) returns (errno set when
 * -1) and r->off where the bytes came from; 0: read it plainly.
 */
int pl_direct_read(struct pl_read *r, const struct iovec *iov, int cnt, uint64_t len,
		   ssize_t *ret) PL_HIDDEN;
/* The program moved @f's offset to @pos (lseek). */
void pl_direct_seeked(struct pl_file *f, uint64_t pos) PL_HIDDEN;
/* The file @dev:@ino changed through the shim (write, truncate): what was
 * read ahead of it is forgotten. */
void pl_direct_changed(dev_t dev, ino_t ino) PL_HIDDEN;
/* The file @dev:@ino was mapped: its readers read plainly from now on. */
void pl_direct_mapped(dev_t dev, ino_t ino) PL_HIDDEN;
/* @f is read in ways the shim cannot follow: its reader stops. */
void pl_direct_stop(struct pl_file *f, const char *why) PL_HIDDEN;
/* fds [@lo, @hi] are about to be closed or replaced: a reader whose own
 * descriptor is among them stops first. */
void pl_direct_closing(unsigned int lo, unsigned int hi) PL_HIDDEN;
/* 1 while some direct reader is live (an atomic look, no lock). */
int pl_direct_live(void) PL_HIDDEN;
/* A fork() parent: a reader of @fd, which the child now shares (and keeps
 * across exec), stops. */
void pl_direct_parent_forked(int fd) PL_HIDDEN;
/* A fork() child: @f's reader is the parent's; let it go. */
void pl_direct_child_forked(struct pl_file *f) PL_HIDDEN;
/* @f's last fd is gone: close its reader. */
void pl_direct_release(struct pl_file *f) PL_HIDDEN;
/* The mode part of @f's stats line, or NULL when direct was never decided. */
const char *pl_direct_mode(const struct pl_file *f, const char *plain, char *buf,
			   size_t size) PL_HIDDEN;
/* Bytes @f's reader served, and the system calls it made. */
void pl_direct_figures(const struct pl_file *f, uint64_t *ret_bytes,
		       uint64_t *ret_syscalls) PL_HIDDEN;
/*
 * The direct readers' io_uring rings are made and submitted to by a thread
 * of the shim's (submitter.c), so that io_uring's task work never
 * interrupts the program's own system calls.  Start it (0 or -errno); run
 * @fn(@arg) on it and return its result; submit @ring's queued entries
 * through it (io_uring_submit()'s result).
 */
struct io_uring;
int pl_submitter_start(void) PL_HIDDEN;
int pl_io_call(int (*fn)(void *), void *arg) PL_HIDDEN;
int pl_submit(struct io_uring *ring) PL_HIDDEN;
/* Changes through @fd (ftruncate, fallocate) or @path (truncate). */
void pl_note_changed(int fd) PL_HIDDEN;
void pl_note_changed_path(const char *path) PL_HIDDEN;
/* The file on @fd was mapped: readers of it, on any fd, stop. */
void pl_note_mapped(int fd) PL_HIDDEN;

/*
 * Per-thread re-entrancy guard: set while the shim runs its own code, so that
 * libc calls made by the shim itself (or by a signal handler that interrupts
 * it) go straight to libc.
 */
extern __thread int pl_busy PL_HIDDEN __attribute__((tls_model("initial-exec")));

#endif
