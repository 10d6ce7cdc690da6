// SPDX-License-Identifier: MIT
/*
 * pagecliff cp: one regular file.  Shares the source's blocks where the file
 * system can (FICLONE; copy_file_range on network file systems that copy on
 * the server), otherwise reads through the read stream and writes through the
 * write stream, only the data extents of a sparse file.  Counts what each side
 * left in the page cache for --stats.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "cp.h"
#include "util.h"
#include "clock.h"
#include "fsmagic.h"

/* How the data got there, for --stats. */
enum cp_how {
	CP_STREAM,		/* read stream -> write stream */
	CP_CLONE,		/* FICLONE: blocks shared */
	CP_OFFLOAD,		/* copy_file_range on the server */
};

struct cp_job {
	const char *src, *dst;
	int sfd, dfd;
	const struct stat *sst;
	const struct cp_opts *o;
	int created;		/* cp made @dst (else it truncated one) */
	int dst_regular;	/* holes can be skipped, a size set */
	uint64_t size;		/* the copy's size: the source's, or where it ended */
	enum cp_how how;
	char clone_why[96];	/* why no clone, when streamed */
	uint64_t copied;	/* bytes of data moved: read and written, or on the server */
	uint64_t cloned;	/* bytes shared by FICLONE: nothing moved */
	uint64_t holes;		/* bytes of holes skipped */
	uint64_t src_before, dst_before;
	struct pc_stats rstats;
	struct pc_wstats wstats;
	int have_rstats, have_wstats;
};

static uint64_t page_size(void)
{
	return (uint64_t)sysconf(_SC_PAGESIZE);
}

/* Cached bytes of @fd, or UINT64_MAX when it cannot be told. */
static uint64_t cached_now(int fd)
{
	uint64_t bytes;

	return pc_cached_bytes(fd, 0, 0, &bytes) ? UINT64_MAX : bytes;
}

/*
 * A name ending in '/' that open(2) calls a directory but is none: cp(1)
 * says "Not a directory", naming the stat for an existing file.
 */
static int slash_not_dir(const struct cp_job *j)
{
	size_t len = strlen(j->dst);
	struct stat st;

	if (!len || j->dst[len - 1] != '/' || (!stat(j->dst, &st) && S_ISDIR(st.st_mode)))
		return 0;
	if (errno == ENOTDIR)
		return error("cannot stat '%s': %s", j->dst, strerror(ENOTDIR));
	return error("cannot create regular file '%s': %s", j->dst, strerror(ENOTDIR));
}

/* Is @path a symbolic link to nothing?  errno is kept. */
static int dangling_link(const char *path)
{
	int err = errno, ret;
	struct stat st;

	ret = !lstat(path, &st) && S_ISLNK(st.st_mode);
	errno = err;
	return ret;
}

/*
 * Open @dst for writing: create it (mode of the source, less the umask) or
 * open an existing one, refuse it when it is the source or a file this run
 * made (cp(1)'s "just-created"), truncate it.  A symbolic link to nothing is
 * refused as cp(1) refuses it (outside POSIXLY_CORRECT): the file it names
 * is not made.
 */
static int open_dst(struct cp_job *j)
{
	struct stat st;

	j->dfd = open(j->dst, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOCTTY,
		      j->sst->st_mode & 0777);
	if (j->dfd >= 0) {
		j->created = 1;
		j->dst_regular = 1;
		if (!fstat(j->dfd, &st))
			cp_made_add(j->o->made, &st);
		return 0;
	}
	if (errno == EEXIST)
		j->dfd = open(j->dst, O_WRONLY | O_CLOEXEC | O_NOCTTY);
	if (j->dfd < 0 && errno == ENOENT && dangling_link(j->dst))
		return error("not writing through dangling symlink '%s'", j->dst);
	if (j->dfd < 0 && errno == EISDIR && slash_not_dir(j))
		return -1;
	if (j->dfd < 0 && errno == EISDIR)
		return error("cannot overwrite directory '%s' with non-directory", j->dst);
	if (j->dfd < 0)
		return error("cannot create regular file '%s': %s", j->dst, strerror(errno));
	if (fstat(j->dfd, &st))
		return error("cannot stat '%s': %s", j->dst, strerror(errno));
	if (st.st_dev == j->sst->st_dev && st.st_ino == j->sst->st_ino)
		return error("'%s' and '%s' are the same file", j->src, j->dst);
	if (cp_made_has(j->o->made, &st))
		return error("will not overwrite just-created '%s' with '%s'", j->dst, j->src);
	j->dst_regular = S_ISREG(st.st_mode);
	if (j->dst_regular && ftruncate(j->dfd, 0))
		return error("cannot truncate '%s': %s", j->dst, strerror(errno));
	return 0;
}

/* Share all blocks of the source; 1 done, 0 not possible (why noted). */
static int try_clone(struct cp_job *j)
{
	if (!j->sst->st_size) {
		snprintf(j->clone_why, sizeof(j->clone_why), "empty file");
		return 0;
	}
	if (!ioctl(j->dfd, FICLONE, j->sfd)) {
		j->how = CP_CLONE;
		j->cloned = j->sst->st_size;
		return 1;
	}
	snprintf(j->clone_why, sizeof(j->clone_why), "FICLONE: %s", strerror(errno));
	return 0;
}

/* Network file systems whose copy_file_range copies on the server. */
static int offloads(int fd)
{
	struct statfs sf;

	if (fstatfs(fd, &sf))
		return 0;
	switch ((unsigned long)sf.f_type) {
	case NFS_SUPER_MAGIC:
	case SMB2_SUPER_MAGIC:
	case CIFS_SUPER_MAGIC:
	case CEPH_SUPER_MAGIC:
		return 1;
	}
	return 0;
}

/*
 * copy_file_range where it runs on the server; 1 done, 0 not possible, -1
 * failed (reported).  On local file systems without shared blocks it would
 * copy through the page cache, so it is not tried there.
 */
static int try_offload(struct cp_job *j)
{
	loff_t in = 0, out = 0;
	ssize_t n;

	if (!j->sst->st_size || !offloads(j->sfd) || !offloads(j->dfd))
		return 0;
	while ((n = copy_file_range(j->sfd, &in, j->dfd, &out, 1 << 30, 0)) > 0)
		j->copied += n;
	if (n == 0) {
		j->how = CP_OFFLOAD;
		return 1;
	}
	if (!j->copied && (errno == EXDEV || errno == EOPNOTSUPP ||
			   errno == EINVAL || errno == ENOSYS))
		return 0;
	return error("cannot copy '%s' to '%s': %s", j->src, j->dst, strerror(errno));
}

/*
 * No data after @off: a hole to the end, or a source truncated since it was
 * opened, which then ends where it ends now (never before @off, copied).
 */
static void ended_at(struct cp_job *j, uint64_t off)
{
	struct stat st;

	if (!fstat(j->sfd, &st) && (uint64_t)st.st_size < j->size)
		j->size = (uint64_t)st.st_size > off ? (uint64_t)st.st_size : off;
}

/* Find the next data extent at or after @off: [*ret_start, *ret_end). */
static int next_extent(struct cp_job *j, uint64_t off, uint64_t size,
		       uint64_t *ret_start, uint64_t *ret_end)
{
	off_t d, h;

	d = lseek(j->sfd, off, SEEK_DATA);
	if (d < 0 && errno == ENXIO) {
		d = size;
		ended_at(j, off);
	}
	if (d < 0)
		return -errno;
	h = d >= (off_t)size ? (off_t)size : lseek(j->sfd, d, SEEK_HOLE);
	if (h < 0)
		return -errno;
	*ret_start = d;
	*ret_end = (uint64_t)h > size ? size : (uint64_t)h;
	return 0;
}

/* Which side an error came from, for the message. */
struct cp_err {
	int err;
	int on_write;
};

/*
 * Copy [@start, @end) by positioned reads and writes.  1 when the source
 * ended before @end (shorter than it said, or truncated meanwhile): as
 * cp(1), the copy is what was there, and j->size says where it ended.
 */
static int copy_range(struct cp_job *j, struct pc_stream *in, struct pc_wstream *out,
		      void *buf, uint64_t start, uint64_t end, struct cp_err *e)
{
	for (uint64_t off = start; off < end;) {
		size_t want = end - off < j->o->bs ? end - off : j->o->bs;
		ssize_t n = pc_stream_pread(in, buf, want, off);

		if (n == 0) {
			j->size = off;
			return 1;
		}
		if (n < 0) {
			*e = (struct cp_err){ (int)-n, 0 };
			return -1;
		}
		for (ssize_t done = 0; done < n;) {
			ssize_t w = pc_wstream_pwrite(out, (char *)buf + done, n - done,
						      off + done);

			if (w <= 0) {
				*e = (struct cp_err){ w ? (int)-w : EIO, 1 };
				return -1;
			}
			done += w;
			j->copied += w;
			progress_add(j->o->progress, (uint64_t)w);
		}
		off += n;
	}
	return 0;
}

/* A sparse source: only its data extents, then the size. */
static int copy_sparse(struct cp_job *j, struct pc_stream *in, struct pc_wstream *out,
		       struct cp_err *e)
{
	uint64_t size = j->sst->st_size, off = 0, start = 0, end = 0;
	void *buf = pc_buf_alloc(j->o->bs);
	int ret = 0;

	if (!buf) {
		*e = (struct cp_err){ ENOMEM, 0 };
		return -1;
	}
	while (off < size) {
		ret = next_extent(j, off, size, &start, &end);
		if (ret) {
			*e = (struct cp_err){ -ret, 0 };
			ret = -1;
			break;
		}
		if (start >= size) {
			j->holes += j->size - off;
			break;
		}
		j->holes += start - off;
		ret = copy_range(j, in, out, buf, start, end, e);
		if (ret)
			break;
		off = end;
	}
	pc_buf_free(buf, j->o->bs);
	return ret < 0 ? -1 : 0;
}

/*
 * A dense source front to back: read into the buffer the write stream lends
 * and commit it, so that direct reads land in it and direct writes submit it
 * without a copy.  A short commit means an error the next call returns.
 */
static int copy_dense(struct cp_job *j, struct pc_stream *in, struct pc_wstream *out,
		      struct cp_err *e)
{
	for (;;) {
		void *buf;
		ssize_t size = pc_wstream_lend(out, &buf), n, c;

		if (size <= 0) {
			*e = (struct cp_err){ size ? (int)-size : EINVAL, 1 };
			return -1;
		}
		n = pc_stream_read(in, buf, (size_t)size < j->o->bs ? (size_t)size : j->o->bs);
		if (n == 0)
			return 0;
		if (n < 0) {
			*e = (struct cp_err){ (int)-n, 0 };
			return -1;
		}
		c = pc_wstream_commit(out, n);
		if (c > 0)
			j->copied += c;
		progress_add(j->o->progress, c > 0 ? (uint64_t)c : 0);
		if (c != n) {
			/* A short commit: the stream keeps the kernel's errno for the next call. */
			int err = c < 0 ? (int)-c : -pc_wstream_sync(out);

			*e = (struct cp_err){ err > 0 ? err : EIO, 1 };
			return -1;
		}
	}
}

static int is_sparse(const struct stat *st)
{
	return (uint64_t)st->st_blocks * 512 < (uint64_t)st->st_size;
}

/*
 * Name the error in cp(1)'s words, and what it left of a regular destination:
 * its size now, after the write stream has waited for all its writes, which
 * is what is on disk (not what was handed to the kernel).
 */
static int report_copy_error(struct cp_job *j, const struct cp_err *e)
{
	struct stat st;

	if (e->on_write)
		error("writing '%s': %s", j->dst, strerror(e->err));
	else
		error("reading '%s': %s", j->src, strerror(e->err));
	if (!j->dst_regular)
		return -1;
	if (fstat(j->dfd, &st))
		return error("cannot stat '%s': %s", j->dst, strerror(errno));
	warning("'%s' is partial: %llu of %llu bytes copied%s", j->dst,
		(unsigned long long)st.st_size, (unsigned long long)j->sst->st_size,
		j->created ? "" : " (it existed before and was truncated)");
	return -1;
}

/* Read stream into write stream; 0, or -1 reported. */
static int copy_streams(struct cp_job *j)
{
	struct pc_wopts wo;
	struct pc_stream *in;
	struct pc_wstream *out;
	struct cp_err e = { 0 };
	int ret, cret;

	ret = pc_stream_fdopen(&in, j->sfd, &j->o->lib);
	if (ret)
		return error("cannot read '%s': %s", j->src, strerror(-ret));
	pc_wopts_init(&wo);
	wo.strategy = j->o->wmode;
	wo.chunk_size = j->o->bs;
	ret = pc_wstream_fdopen(&out, j->dfd, &wo);
	if (ret) {
		pc_stream_close(in);
		return report_copy_error(j, &(struct cp_err){ -ret, 1 });
	}
	/* Holes are skipped only where the destination can seek; else zeros. */
	if (is_sparse(j->sst) && j->dst_regular)
		ret = copy_sparse(j, in, out, &e);
	else
		ret = copy_dense(j, in, out, &e);
	pc_stream_stats(in, &j->rstats);
	j->have_rstats = 1;
	pc_stream_close(in);
	pc_wstream_stats(out, &j->wstats);
	cret = pc_wstream_close(out);
	j->have_wstats = 1;
	if (!ret && cret) {
		e = (struct cp_err){ -cret, 1 };
		ret = -1;
	}
	if (!ret && j->holes && ftruncate(j->dfd, j->size)) {
		e = (struct cp_err){ errno, 1 };
		ret = -1;
	}
	return ret ? report_copy_error(j, &e) : 0;
}

static int chown_dst(const char *dst, int dfd, int flags, uid_t uid, gid_t gid)
{
	return dfd >= 0 ? fchown(dfd, uid, gid) : fchownat(AT_FDCWD, dst, uid, gid, flags);
}

/*
 * The owner and group as cp(1) keeps them: both, or for a user who may not
 * give a file away, the group alone where it can.  1 kept (or already so),
 * 0 not kept, -1 reported: root is refused only by the file system.
 */
static int keep_owner(const char *dst, int dfd, int flags, const struct stat *sst)
{
	struct stat st;

	if (dfd >= 0 ? fstat(dfd, &st) : fstatat(AT_FDCWD, dst, &st, flags))
		return error("cannot stat '%s': %s", dst, strerror(errno));
	if (st.st_uid == sst->st_uid && st.st_gid == sst->st_gid)
		return 1;
	if (!chown_dst(dst, dfd, flags, sst->st_uid, sst->st_gid))
		return 1;
	if ((errno != EPERM && errno != EINVAL) || !geteuid())
		return error("failed to preserve ownership for '%s': %s", dst, strerror(errno));
	chown_dst(dst, dfd, flags, (uid_t)-1, sst->st_gid);	/* may fail: cp(1) ignores it */
	return 0;
}

/*
 * In cp(1)'s order and words: the times first (a user who does not own the
 * destination is refused there, and nothing else is tried), then the owner
 * (chown(2) clears set-ID bits), then the mode, less the set-ID and sticky
 * bits when the owner or group could not be kept: a set-user-ID file must
 * not become one of the user who copied it.
 */
int cp_keep(const char *dst, int dfd, const struct stat *sst, int is_link)
{
	struct timespec times[2] = { sst->st_atim, sst->st_mtim };
	int flags = is_link ? AT_SYMLINK_NOFOLLOW : 0;
	mode_t mode = sst->st_mode & 07777;
	int owner;

	if (dfd >= 0 ? futimens(dfd, times) : utimensat(AT_FDCWD, dst, times, flags))
		return error("preserving times for '%s': %s", dst, strerror(errno));
	owner = keep_owner(dst, dfd, flags, sst);
	if (owner < 0)
		return -1;
	if (!owner)
		mode &= ~(mode_t)(S_ISUID | S_ISGID | S_ISVTX);
	if (!is_link && (dfd >= 0 ? fchmod(dfd, mode) : chmod(dst, mode)))
		return error("preserving permissions for '%s': %s", dst, strerror(errno));
	return 0;
}

static const char *how_name(const struct cp_job *j)
{
	switch (j->how) {
	case CP_CLONE:
		return "cloned (FICLONE): blocks shared, no data read or written";
	case CP_OFFLOAD:
		return "copied on the server (copy_file_range)";
	default:
		return "streamed";
	}
}

/* One side's cache change in pages: "+N pages (B before, A after)". */
static void side_cache(char *buf, size_t size, uint64_t before, uint64_t after)
{
	uint64_t pg = page_size();

	if (before == UINT64_MAX || after == UINT64_MAX) {
		snprintf(buf, size, "page cache unknown (cannot count it)");
		return;
	}
	snprintf(buf, size, "page cache %+lld pages (%llu before, %llu after)",
		 ((long long)after - (long long)before) / (long long)pg,
		 (unsigned long long)(before / pg), (unsigned long long)(after / pg));
}

/*
 * What the copy did, measured: bytes moved and their rate, apart from bytes
 * cloned and holes skipped, which move nothing and have no rate.
 */
static void print_totals(const struct cp_job *j, double secs)
{
	uint64_t bytes = j->copied + j->cloned + j->holes;	/* as far as it got */

	fprintf(stderr, "%s -> %s: %llu bytes, %llu moved in %.3f s", j->src, j->dst,
		(unsigned long long)bytes, (unsigned long long)j->copied, secs);
	if (j->copied && secs > 0)
		fprintf(stderr, " (%.2f GB/s)", j->copied / secs / 1e9);
	if (j->cloned)
		fprintf(stderr, ", %llu cloned", (unsigned long long)j->cloned);
	if (j->holes)
		fprintf(stderr, ", %llu of holes skipped", (unsigned long long)j->holes);
	fprintf(stderr, ", %s", how_name(j));
	if (j->how == CP_STREAM)
		fprintf(stderr, " (no shared blocks: %s)", j->clone_why);
}

static void print_stats(const struct cp_job *j, double secs)
{
	char rc[96], wc[96];
	uint64_t pg = page_size();

	side_cache(rc, sizeof(rc), j->src_before, cached_now(j->sfd));
	side_cache(wc, sizeof(wc), j->dst_before, cached_now(j->dfd));
	print_totals(j, secs);
	fprintf(stderr, "\n  read:  ");
	if (j->have_rstats)
		fprintf(stderr, "strategy %s (%s), %llu pages dropped, ",
			pc_strategy_name(j->rstats.strategy), j->rstats.reason,
			(unsigned long long)(j->rstats.bytes_dropped / pg));
	fprintf(stderr, "%s\n  write: ", rc);
	if (j->have_wstats)
		fprintf(stderr, "strategy %s (%s), %llu pages dropped, ",
			pc_strategy_name(j->wstats.strategy), j->wstats.reason,
			(unsigned long long)(j->wstats.bytes_dropped / pg));
	fprintf(stderr, "%s\n", wc);
}

int cp_file(const char *src, int sfd, const struct stat *sst, const char *dst,
	    const struct cp_opts *o)
{
	struct cp_job j = { .src = src, .dst = dst, .sfd = sfd, .sst = sst, .o = o,
			     .size = sst->st_size };
	double t0;
	int ret;

	ret = open_dst(&j);
	if (ret)
		goto out_close;
	j.src_before = o->stats ? cached_now(sfd) : 0;
	j.dst_before = o->stats ? cached_now(j.dfd) : 0;
	t0 = pcc_now_sec();
	if (!try_clone(&j))
		ret = try_offload(&j) < 0 ? -1 : 0;
	if (!ret && j.how == CP_STREAM)
		ret = copy_streams(&j);
	if (!ret && o->preserve)
		ret = cp_keep(dst, j.dfd, sst, 0);
	progress_file_done(o->progress, ret ? j.copied : (uint64_t)sst->st_size);
	if (o->stats) {
		progress_end(o->progress);	/* the line is the stats' */
		print_stats(&j, pcc_now_sec() - t0);
	}
	if (!ret && close(j.dfd)) {
		j.dfd = -1;
		ret = error("cannot close '%s': %s", dst, strerror(errno));
	}
	if (!ret)
		return 0;
out_close:
	if (j.dfd >= 0)
		close(j.dfd);
	return -1;
}
