// SPDX-License-Identifier: MIT
/*
 * faultfs: a FUSE file system that misbehaves on demand, so that the library
 * and the tools can be run against a failing disk, a slow one, and files that
 * change underneath them.
 *
 * Every file is named by what it does; any such name can be looked up and
 * nothing needs to be created first.  A name is a comma-separated list:
 *
 *   size=N          the file has N bytes of the tests' pattern (helpers.h)
 *   seed=N          the pattern's seed (default 7)
 *   eio=N           a read request covering byte N fails with EIO
 *   short=N         each read reply carries at most N bytes (implies dio,
 *                   since FUSE takes a short buffered reply for end of file)
 *   delay=N         each read request sleeps N milliseconds first
 *   shrink=A:B      once a read request has gone past offset A, the file
 *                   has B bytes
 *   grow=A:B        the same, for a file that gets longer
 *   nodirect        open(2) with O_DIRECT fails with EINVAL
 *   dio             the file is opened with FOPEN_DIRECT_IO (no page cache)
 *   tag=WORD        ignored: makes names unique, so state is not shared
 *   rw              the file can be written: it starts as size= pattern
 *                   bytes and holds what is written (in memory); O_TRUNC
 *                   and truncate(2) work
 *   weio=N          a write request covering byte N fails with EIO
 *   wnospc=N        ... with ENOSPC
 *   wdquot=N        ... with EDQUOT (no kernel quota needed)
 *
 * Folders whose names start with "dir-" exist wherever they are looked up,
 * so the same file name can be had fresh in dir-a/ and dir-b/ (a file's
 * state belongs to its whole path).
 * e.g. "size=4194304,eio=2621563".  Sizes take k, m, g suffixes (1024).
 * A name that is not such a list is served from the folder given with
 * --backing DIR, read-only, with no faults.  Attributes are never cached by
 * the kernel, so size changes are seen at the next stat(2).
 *
 * usage: faultfs [--backing DIR] MOUNTPOINT [FUSE options, e.g. -f]
 */
#define FUSE_USE_VERSION 31

#include <errno.h>
#include <fcntl.h>
#include <fuse.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "helpers.h"

#define SPEC_NAME_MAX 255
#define MAX_FILES 256

struct spec {
	uint64_t size;
	uint32_t seed;
	int64_t eio;			/* -1: none */
	uint64_t short_len;		/* 0: none */
	unsigned int delay_ms;
	int64_t change_at;		/* -1: no shrink or grow */
	uint64_t change_to;
	int nodirect;
	int dio;
	int rw;
	int64_t werr_at;		/* -1: none */
	int werr;			/* errno of a write covering werr_at */
};

/* What a file has become: only its size changes. */
struct file_state {
	char name[1024];		/* the whole path: state is per path */
	uint64_t size;
	int changed;
	int memfd;			/* rw files: the bytes, else -1 */
};

static struct {
	const char *backing;
	pthread_mutex_t lock;
	struct file_state files[MAX_FILES];
	unsigned int nfiles;
} fs = { .lock = PTHREAD_MUTEX_INITIALIZER };

/* A number with an optional k, m or g suffix; 0 or -1. */
static int parse_num(const char *s, const char *end, uint64_t *ret)
{
	char *e;
	uint64_t v;

	if (s == end || *s < '0' || *s > '9')
		return -1;
	v = strtoull(s, &e, 10);
	if (e < end && (*e == 'k' || *e == 'm' || *e == 'g')) {
		v <<= *e == 'k' ? 10 : *e == 'm' ? 20 : 30;
		e++;
	}
	if (e != end)
		return -1;
	*ret = v;
	return 0;
}

/* "A:B" */
static int parse_pair(const char *s, const char *end, int64_t *ret_a,
		      uint64_t *ret_b)
{
	const char *colon = memchr(s, ':', end - s);
	uint64_t a;

	if (!colon || parse_num(s, colon, &a) || parse_num(colon + 1, end, ret_b))
		return -1;
	*ret_a = a;
	return 0;
}

static int parse_item(struct spec *sp, const char *s, const char *end)
{
	const char *eq = memchr(s, '=', end - s);
	size_t klen = eq ? (size_t)(eq - s) : (size_t)(end - s);
	const char *v = eq ? eq + 1 : end;
	uint64_t n;

#define KEY(k) (klen == strlen(k) && !memcmp(s, k, klen))
	if (KEY("nodirect") && !eq)
		sp->nodirect = 1;
	else if (KEY("rw") && !eq)
		sp->rw = 1;
	else if (KEY("dio") && !eq)
		sp->dio = 1;
	else if (!eq)
		return -1;
	else if (KEY("tag"))
		;
	else if (KEY("shrink") || KEY("grow"))
		return parse_pair(v, end, &sp->change_at, &sp->change_to);
	else if (parse_num(v, end, &n))
		return -1;
	else if (KEY("size"))
		sp->size = n;
	else if (KEY("seed"))
		sp->seed = n;
	else if (KEY("eio"))
		sp->eio = n;
	else if (KEY("short"))
		sp->short_len = n, sp->dio = 1;
	else if (KEY("delay"))
		sp->delay_ms = n;
	else if (KEY("weio"))
		sp->werr_at = n, sp->werr = EIO;
	else if (KEY("wnospc"))
		sp->werr_at = n, sp->werr = ENOSPC;
	else if (KEY("wdquot"))
		sp->werr_at = n, sp->werr = EDQUOT;
	else
		return -1;
#undef KEY
	return 0;
}

/* Parse a file name (without the leading '/'); 0, or -1 when it is none. */
static int spec_parse(const char *name, struct spec *ret)
{
	struct spec sp = { .seed = 7, .eio = -1, .change_at = -1, .werr_at = -1 };
	const char *s = name;
	int have_size = 0;

	if (!*name || strlen(name) > SPEC_NAME_MAX)
		return -1;
	while (*s) {
		const char *end = strchrnul(s, ',');

		if (parse_item(&sp, s, end))
			return -1;
		have_size |= !strncmp(s, "size=", 5);
		s = *end ? end + 1 : end;
	}
	if (!have_size || (sp.short_len == 0 && strstr(name, "short=")))
		return -1;
	*ret = sp;
	return 0;
}

/* A chain of "dir-*" folders: "/dir-a" or "/dir-a/dir-b". */
static int is_dir_chain(const char *path)
{
	while (*path == '/') {
		const char *next = strchrnul(path + 1, '/');

		if (strncmp(path + 1, "dir-", 4) || next - path < 5)
			return 0;
		path = next;
	}
	return !*path;
}

/*
 * Parse the spec of the file at @path ("/dir-a/size=1m" or "/size=1m");
 * 0, or -1 when it is none.
 */
static int path_spec(const char *path, struct spec *ret)
{
	const char *name = strrchr(path, '/') + 1;
	char dirs[4096];

	if ((size_t)(name - path) >= sizeof(dirs))
		return -1;
	memcpy(dirs, path, name - path - 1);
	dirs[name - path - 1] = 0;
	if (!is_dir_chain(dirs))
		return -1;
	return spec_parse(name, ret);
}

/* A memfd holding the initial bytes of a rw file, or -1. */
static int memfd_fill(const struct spec *sp)
{
	char buf[65536];
	int fd = memfd_create("faultfs", MFD_CLOEXEC);

	for (uint64_t off = 0; fd >= 0 && off < sp->size; off += sizeof(buf)) {
		size_t n = sp->size - off < sizeof(buf) ? sp->size - off : sizeof(buf);

		t_pattern_fill(buf, off, n, sp->seed);
		if (pwrite(fd, buf, n, off) != (ssize_t)n) {
			close(fd);
			return -1;
		}
	}
	return fd;
}

/* The state of @name, created from @sp on first use; fs.lock held. */
static struct file_state *state_of(const char *name, const struct spec *sp)
{
	struct file_state *f;

	for (unsigned int i = 0; i < fs.nfiles; i++)
		if (!strcmp(fs.files[i].name, name))
			return &fs.files[i];
	if (fs.nfiles == MAX_FILES)
		return NULL;
	f = &fs.files[fs.nfiles++];
	snprintf(f->name, sizeof(f->name), "%s", name);
	f->size = sp->size;
	f->memfd = sp->rw ? memfd_fill(sp) : -1;
	return f;
}

static uint64_t current_size(const char *name, const struct spec *sp)
{
	struct file_state *f;
	uint64_t size;

	pthread_mutex_lock(&fs.lock);
	f = state_of(name, sp);
	size = f ? f->size : sp->size;
	pthread_mutex_unlock(&fs.lock);
	return size;
}

/* A read has gone up to @end: shrink or grow the file, once. */
static void maybe_change(const char *name, const struct spec *sp, uint64_t end)
{
	struct file_state *f;

	if (sp->change_at < 0 || end <= (uint64_t)sp->change_at)
		return;
	pthread_mutex_lock(&fs.lock);
	f = state_of(name, sp);
	if (f && !f->changed) {
		f->changed = 1;
		f->size = sp->change_to;
	}
	pthread_mutex_unlock(&fs.lock);
}

static int backing_path(const char *path, char *buf, size_t size)
{
	if (!fs.backing)
		return -ENOENT;
	if ((size_t)snprintf(buf, size, "%s%s", fs.backing, path) >= size)
		return -ENAMETOOLONG;
	return 0;
}

static void *ff_init(struct fuse_conn_info *conn, struct fuse_config *cfg)
{
	cfg->entry_timeout = 0;
	cfg->attr_timeout = 0;
	cfg->negative_timeout = 0;
	cfg->use_ino = 0;
	return NULL;
}

static int ff_getattr(const char *path, struct stat *st, struct fuse_file_info *fi)
{
	char real[4096];
	struct spec sp;
	int ret;

	memset(st, 0, sizeof(*st));
	if (!strcmp(path, "/")) {
		st->st_mode = S_IFDIR | 0755;
		st->st_nlink = 2;
		return 0;
	}
	if (is_dir_chain(path)) {
		st->st_mode = S_IFDIR | 0755;
		st->st_nlink = 2;
		return 0;
	}
	if (!path_spec(path, &sp)) {
		st->st_mode = S_IFREG | (sp.rw ? 0644 : 0444);
		st->st_nlink = 1;
		st->st_size = current_size(path + 1, &sp);
		st->st_blksize = 4096;
		st->st_blocks = (st->st_size + 511) / 512;
		return 0;
	}
	ret = backing_path(path, real, sizeof(real));
	if (ret)
		return ret;
	return lstat(real, st) < 0 ? -errno : 0;
}

static int ff_truncate(const char *path, off_t size, struct fuse_file_info *fi);

static int ff_open(const char *path, struct fuse_file_info *fi)
{
	char real[4096];
	struct spec sp;
	int fd, ret;

	if (!path_spec(path, &sp)) {
		if ((fi->flags & O_ACCMODE) != O_RDONLY && !sp.rw)
			return -EROFS;
		if (sp.rw && (fi->flags & O_TRUNC) && ff_truncate(path, 0, fi))
			return -EIO;
		if (sp.nodirect && (fi->flags & O_DIRECT))
			return -EINVAL;
		fi->direct_io = sp.dio;
		fi->keep_cache = 0;
		fi->fh = UINT64_MAX;
		return 0;
	}
	if ((fi->flags & O_ACCMODE) != O_RDONLY)
		return -EROFS;
	ret = backing_path(path, real, sizeof(real));
	if (ret)
		return ret;
	fd = open(real, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	fi->fh = fd;
	return 0;
}

static int ff_release(const char *path, struct fuse_file_info *fi)
{
	if (fi->fh != UINT64_MAX)
		close(fi->fh);
	return 0;
}

static void sleep_ms(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* The memfd of a rw file, or -1; its size in *ret_size. */
static int rw_fd(const char *name, const struct spec *sp, uint64_t *ret_size)
{
	struct file_state *f;
	int fd;

	pthread_mutex_lock(&fs.lock);
	f = state_of(name, sp);
	fd = f ? f->memfd : -1;
	*ret_size = f ? f->size : 0;
	pthread_mutex_unlock(&fs.lock);
	return fd;
}

static int rw_read(const char *name, const struct spec *sp, char *buf,
		   size_t len, off_t off)
{
	uint64_t size;
	int fd = rw_fd(name, sp, &size);
	ssize_t got;

	if (fd < 0)
		return -EIO;
	if ((uint64_t)off >= size)
		return 0;
	if (size - off < len)
		len = size - off;
	got = pread(fd, buf, len, off);
	return got < 0 ? -errno : got;
}

/* Writes of rw files; a request covering werr_at fails with werr. */
static int ff_write(const char *path, const char *buf, size_t len, off_t off,
		    struct fuse_file_info *fi)
{
	struct file_state *f;
	struct spec sp;
	uint64_t size;
	ssize_t put;
	int fd;

	if (path_spec(path, &sp) || !sp.rw)
		return -EROFS;
	if (sp.werr_at >= 0 && (uint64_t)sp.werr_at >= (uint64_t)off &&
	    (uint64_t)sp.werr_at - off < len)
		return -sp.werr;
	fd = rw_fd(path + 1, &sp, &size);
	if (fd < 0)
		return -EIO;
	put = pwrite(fd, buf, len, off);
	if (put < 0)
		return -errno;
	pthread_mutex_lock(&fs.lock);
	f = state_of(path + 1, &sp);
	if (f && f->size < (uint64_t)off + put)
		f->size = off + put;
	pthread_mutex_unlock(&fs.lock);
	return put;
}

static int ff_truncate(const char *path, off_t size, struct fuse_file_info *fi)
{
	struct file_state *f;
	struct spec sp;
	int ret = 0;

	if (path_spec(path, &sp) || !sp.rw)
		return -EROFS;
	pthread_mutex_lock(&fs.lock);
	f = state_of(path + 1, &sp);
	if (!f || f->memfd < 0 || ftruncate(f->memfd, size) < 0)
		ret = -EIO;
	else
		f->size = size;
	pthread_mutex_unlock(&fs.lock);
	return ret;
}

static int ff_read(const char *path, char *buf, size_t len, off_t off,
		   struct fuse_file_info *fi)
{
	uint64_t size, n;
	struct spec sp;
	ssize_t got;

	if (fi->fh != UINT64_MAX) {
		got = pread(fi->fh, buf, len, off);
		return got < 0 ? -errno : got;
	}
	if (path_spec(path, &sp))
		return -ENOENT;
	if (sp.rw)
		return rw_read(path + 1, &sp, buf, len, off);
	if (sp.delay_ms)
		sleep_ms(sp.delay_ms);
	if (sp.eio >= 0 && (uint64_t)sp.eio >= (uint64_t)off &&
	    (uint64_t)sp.eio - off < len)
		return -EIO;
	size = current_size(path + 1, &sp);
	if ((uint64_t)off >= size)
		return 0;
	n = size - off < len ? size - off : len;
	if (sp.short_len && n > sp.short_len)
		n = sp.short_len;
	t_pattern_fill(buf, off, n, sp.seed);
	maybe_change(path + 1, &sp, off + len);
	return n;
}

static int ff_readdir(const char *path, void *buf, fuse_fill_dir_t fill,
		      off_t off, struct fuse_file_info *fi,
		      enum fuse_readdir_flags flags)
{
	if (strcmp(path, "/") && !is_dir_chain(path))
		return -ENOTDIR;
	fill(buf, ".", NULL, 0, 0);
	fill(buf, "..", NULL, 0, 0);
	return 0;
}

static const struct fuse_operations ff_ops = {
	.init = ff_init,
	.getattr = ff_getattr,
	.open = ff_open,
	.release = ff_release,
	.read = ff_read,
	.write = ff_write,
	.truncate = ff_truncate,
	.readdir = ff_readdir,
};

int main(int argc, char **argv)
{
	if (argc > 2 && !strcmp(argv[1], "--backing")) {
		fs.backing = realpath(argv[2], NULL);
		if (!fs.backing) {
			fprintf(stderr, "faultfs: cannot use '%s' as backing folder\n",
				argv[2]);
			return 1;
		}
		argv[2] = argv[0];
		argv += 2;
		argc -= 2;
	}
	return fuse_main(argc, argv, &ff_ops, NULL);
}
