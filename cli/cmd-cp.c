// SPDX-License-Identifier: MIT
/*
 * pagecliff cp: copy files and trees like cp(1) without leaving either side
 * in the page cache.  This file parses the command line, resolves where each
 * source goes and walks trees; cp-file.c copies one regular file.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd.h"
#include "cp.h"
#include "util.h"

enum { CP_PROGRESS = CMD_LONG };

static const struct cmd_option cp_options[] = {
	{ "mode", 'm', CMD_ARG_REQUIRED, "MODE",
	  "read and write strategy, default auto:\n" CMD_HELP_COPY_MODES },
	{ "bs", 'b', CMD_ARG_REQUIRED, "SIZE",
	  "bytes per request, fio units (4k, 1m); default 1m" },
	{ "recursive", 'r', CMD_ARG_NONE, NULL,
	  "\ncopy directories and their contents; symbolic links\n"
	  "are copied as links; hard links become separate files" },
	{ NULL, 'R', CMD_ARG_NONE, NULL, NULL },
	{ "preserve", 'p', CMD_ARG_NONE, NULL,
	  "keep owner and group, mode and times as cp(1) does;\n"
	  "no set-ID bits where the owner cannot be kept" },
	{ "stats", 's', CMD_ARG_NONE, NULL,
	  "per file on stderr: bytes moved and their GB/s, bytes\n"
	  "cloned and holes apart, strategy of each side and why,\n"
	  "page cache added and dropped on each side" },
	{ "progress", CP_PROGRESS, CMD_ARG_NONE, NULL,
	  "on a terminal: bytes, rate and time left on stderr" },
	{ 0 },
};

static int copy_entry(const char *src, const char *dst, const struct cp_opts *o);

/* The last component of @path, ignoring trailing slashes, into @buf. */
static const char *base_name(const char *path, char *buf, size_t size)
{
	size_t len = strlen(path);
	const char *start;

	while (len > 1 && path[len - 1] == '/')
		len--;
	start = path + len;
	while (start > path && start[-1] != '/')
		start--;
	snprintf(buf, size, "%.*s", (int)(path + len - start), start);
	return buf;
}

/* @dir/@name into @buf; -1 after a message when it does not fit. */
static int join(char *buf, size_t size, const char *dir, const char *name)
{
	size_t len = strlen(dir);
	const char *sep = len && dir[len - 1] == '/' ? "" : "/";

	if ((size_t)snprintf(buf, size, "%s%s%s", dir, sep, name) >= size)
		return error("'%s%s%s': file name too long", dir, sep, name);
	return 0;
}

/*
 * Is the directory @sst an ancestor of (or the same as) the directory that
 * will hold @dst?  Walks up from @dst's parent through "..".
 */
static int holds_itself(const struct stat *sst, const char *dst)
{
	char parent[PATH_MAX];
	struct stat st, up;
	char *slash;
	int fd, next, found = 0;

	snprintf(parent, sizeof(parent), "%s", dst);
	slash = strrchr(parent, '/');
	if (!slash)
		snprintf(parent, sizeof(parent), ".");
	else if (slash == parent)
		parent[1] = '\0';
	else
		*slash = '\0';
	fd = open(parent, O_PATH | O_DIRECTORY | O_CLOEXEC);
	while (fd >= 0 && !fstat(fd, &st)) {
		if (st.st_dev == sst->st_dev && st.st_ino == sst->st_ino) {
			found = 1;
			break;
		}
		next = openat(fd, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (next < 0 || fstat(next, &up) ||
		    (up.st_dev == st.st_dev && up.st_ino == st.st_ino)) {
			if (next >= 0)
				close(next);
			break;
		}
		close(fd);
		fd = next;
	}
	if (fd >= 0)
		close(fd);
	return found;
}

static int copy_link(const char *src, const char *dst, const struct stat *sst,
		     const struct cp_opts *o)
{
	char target[PATH_MAX];
	ssize_t n;

	n = readlink(src, target, sizeof(target) - 1);
	if (n < 0)
		return error("cannot read symbolic link '%s': %s", src, strerror(errno));
	target[n] = '\0';
	if (symlink(target, dst))
		return error("cannot create symbolic link '%s': %s", dst, strerror(errno));
	return o->preserve ? cp_keep(dst, -1, sst, 1) : 0;
}

/* Copy each entry of the open directory @d from @src into @dst. */
static int copy_children(DIR *d, const char *src, const char *dst,
			 const struct cp_opts *o)
{
	char s[PATH_MAX], t[PATH_MAX];
	struct dirent *de;
	int ret = 0;

	for (;;) {
		errno = 0;
		de = readdir(d);
		if (!de)
			break;
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (join(s, sizeof(s), src, de->d_name) ||
		    join(t, sizeof(t), dst, de->d_name) || copy_entry(s, t, o))
			ret = -1;
	}
	if (errno)
		ret = error("cannot read directory '%s': %s", src, strerror(errno));
	return ret;
}

/* Make @dst for the directory @src unless it is one already; 1 if made. */
static int make_dir(const char *src, const char *dst, const struct stat *sst)
{
	struct stat st;

	if (!stat(dst, &st)) {
		if (!S_ISDIR(st.st_mode))
			return error("cannot overwrite non-directory '%s' with directory '%s'",
				     dst, src);
		return 0;
	}
	/* Writable by us while the copy fills it; the mode is set after. */
	if (mkdir(dst, (sst->st_mode & 07777) | S_IRWXU))
		return error("cannot create directory '%s': %s", dst, strerror(errno));
	return 1;
}

/*
 * The directory's own attributes once its entries are copied (or could not
 * be read): with -p all of them, else its mode less the umask when it was
 * made writable for the copy.  cp(1) does this also after an error.
 */
static int finish_dir(const char *dst, const struct stat *sst, int made,
		      const struct cp_opts *o)
{
	mode_t mask;

	if (o->preserve)
		return cp_keep(dst, -1, sst, 0);
	mask = umask(0);
	umask(mask);
	if (made && ((sst->st_mode | S_IRWXU) & 07777 & ~mask) !=
		    (sst->st_mode & 07777 & ~mask) &&
	    chmod(dst, sst->st_mode & 07777 & ~mask))
		return error("setting permissions for '%s': %s", dst, strerror(errno));
	return 0;
}

static int copy_dir(const char *src, const char *dst, const struct stat *sst,
		    const struct cp_opts *o)
{
	int made, ret;
	DIR *d;

	if (holds_itself(sst, dst))
		return error("cannot copy a directory, '%s', into itself, '%s'", src, dst);
	made = make_dir(src, dst, sst);
	if (made < 0)
		return -1;
	d = opendir(src);
	if (d) {
		/* "just-created" is about operands, as in cp(1): not their trees. */
		struct cp_opts sub = *o;

		sub.made = NULL;
		ret = copy_children(d, src, dst, &sub);
		closedir(d);
	} else {
		ret = error("cannot access '%s': %s", src, strerror(errno));
	}
	return finish_dir(dst, sst, made, o) ? -1 : ret;
}

/*
 * Copy the data of @src: a regular file or, without -r (@follow), whatever
 * can be read as cp(1) reads it (a FIFO, a device, /dev/stdin).
 */
static int copy_regular(const char *src, const char *dst, int follow,
			const struct cp_opts *o)
{
	struct stat st;
	int fd, ret;

	fd = open(src, O_RDONLY | O_CLOEXEC | O_NOCTTY | (follow ? 0 : O_NOFOLLOW));
	if (fd < 0)
		return error("cannot open '%s' for reading: %s", src, strerror(errno));
	if (fstat(fd, &st)) {
		ret = error("cannot stat '%s': %s", src, strerror(errno));
	} else if (S_ISDIR(st.st_mode) || (!follow && !S_ISREG(st.st_mode))) {
		ret = error("'%s' is not a regular file, directory or symbolic link; not copied",
			    src);
	} else {
		ret = cp_file(src, fd, &st, dst, o);
	}
	close(fd);
	return ret;
}

/*
 * Copy @src to exactly @dst: a file, a link (with -r) or a tree (with -r).
 * Without -r symbolic links are followed, as cp(1) does.
 */
static int copy_entry(const char *src, const char *dst, const struct cp_opts *o)
{
	struct stat st;
	int r = o->recursive;

	if ((r ? lstat(src, &st) : stat(src, &st)))
		return error("cannot stat '%s': %s", src, strerror(errno));
	if (S_ISDIR(st.st_mode)) {
		if (!r)
			return error("-r not specified; omitting directory '%s'", src);
		return copy_dir(src, dst, &st, o);
	}
	if (S_ISLNK(st.st_mode))
		return copy_link(src, dst, &st, o);
	if (r && !S_ISREG(st.st_mode))
		return error("'%s' is not a regular file, directory or symbolic link; not copied",
			     src);
	return copy_regular(src, dst, !r, o);
}

static void cp_option(void *state, int key, const char *arg)
{
	struct cp_opts *o = state;

	switch (key) {
	case 'm':
		o->lib.strategy = cmd_mode_arg(arg);
		break;
	case 'b':
		o->lib.chunk_size = cmd_bs_arg(arg, 64u << 20, "64m");
		break;
	case 'r':
		o->recursive = 1;
		break;
	case 'p':
		o->preserve = 1;
		break;
	case 's':
		o->stats = 1;
		break;
	case CP_PROGRESS:
		o->want_progress = 1;
		break;
	}
}

static int cmd_cp(int argc, char **argv)
{
	struct cp_made made = { 0 };
	struct cp_opts o = { 0 };
	struct progress progress;
	uint64_t total = 0;
	char path[PATH_MAX], name[NAME_MAX + 1];
	const char *dst;
	struct stat st;
	int first, nsrc, into, failed = 0;

	pc_opts_init(&o.lib);
	first = cmd_parse(&cmd_cp_entry, argc, argv, &o);
	o.wmode = o.lib.strategy;
	o.bs = o.lib.chunk_size;
	nsrc = argc - first - 1;
	if (nsrc == 0)
		usage_error_exit(cmd_cp_entry.missing_exit,
				 "missing destination file operand after '%s'", argv[argc - 1]);
	dst = argv[argc - 1];
	if (stat(dst, &st))
		into = -errno;
	else
		into = S_ISDIR(st.st_mode) ? 1 : -ENOTDIR;
	if (nsrc > 1 && into < 0)
		die("target '%s': %s", dst, strerror(-into));
	into = into > 0;
	if (nsrc > 1)
		o.made = &made;
	for (int i = first; o.want_progress && i < argc - 1; i++)
		total += progress_tree_bytes(argv[i], o.recursive);
	progress_start(&progress, o.want_progress, NULL, total);
	o.progress = &progress;
	for (int i = first; i < argc - 1; i++) {
		const char *to = dst;

		if (into) {
			if (join(path, sizeof(path), dst,
				 base_name(argv[i], name, sizeof(name)))) {
				failed = 1;
				continue;
			}
			to = path;
		}
		if (copy_entry(argv[i], to, &o))
			failed = 1;
	}
	cp_made_free(&made);
	progress_end(&progress);
	return failed;
}

const struct cmd_entry cmd_cp_entry = {
	.name = "cp",
	.summary = "copy files and trees without leaving them in the page cache",
	.usage = "[--mode MODE] [--bs SIZE] [--stats] [--progress] [-r] [-p] SRC... DST",
	.about = "Copy SRC to DST, or SRCs into the directory DST, like cp(1), reading and\n"
		 "writing so that neither file is left in the page cache.  Blocks are shared\n"
		 "instead (FICLONE) where the file system can; sparse files stay sparse.",
	.options = cp_options,
	.width = 15,
	.operands = { 1, -1 },
	.missing = "missing file operand",
	.missing_exit = 1,
	.option = cp_option,
	.exec = cmd_cp,
};
