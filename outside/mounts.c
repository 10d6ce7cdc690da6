// SPDX-License-Identifier: MIT
/*
 * The watcher's table of mounts: /proc/PID/mountinfo parsed into a class
 * per mount (see mounts.h), so that no file is opened or stat'ed before its
 * file system is known to answer without a user's server or a network.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>

#include "mounts.h"

/* A mount read this long ago is read again before it is trusted: ids are reused. */
#define PCO_MOUNTS_FRESH 2.0
#define PCO_MOUNTS_SAID 64

/* A list of mounts, as one process's mountinfo gives them. */
struct mount_list {
	struct pco_mount *m;
	int n, cap;
};

struct pco_mounts {
	struct mount_list all;	/* every namespace's, by id */
	double read_at;
	struct pco_mount unlisted;
	uint64_t said[PCO_MOUNTS_SAID];
	int nsaid;
};

/*
 * Local file systems: their calls wait only on the kernel and a block
 * device; and the kernel's own (devices, /proc, /sys...), whose files are
 * no streams but are seen.  Anything not named here (fuse, fuseblk,
 * fuse.*, nfs, nfs4, cifs, smb3, 9p, virtiofs, ceph, afs, orangefs, gfs2,
 * ocfs2, ecryptfs, autofs...) is served: left alone.
 */
static const char *const local_types[] = {
	"ext2", "ext3", "ext4", "xfs", "btrfs", "f2fs", "tmpfs", "ramfs", "hugetlbfs",
	"vfat", "msdos", "exfat", "ntfs3", "iso9660", "udf", "squashfs", "erofs",
	"jfs", "nilfs2", "bcachefs", "hfsplus", "zonefs",
	"devtmpfs", "devpts", "proc", "sysfs", "cgroup", "cgroup2", "mqueue", "bpf",
	"tracefs", "debugfs", "securityfs", "configfs", "pstore", "efivarfs",
	"binfmt_misc", "fusectl", "nsfs", "pidfs",
};

enum pco_fs_class pco_fs_classify(const char *fstype)
{
	for (size_t i = 0; i < sizeof(local_types) / sizeof(local_types[0]); i++)
		if (!strcmp(fstype, local_types[i]))
			return PCO_FS_LOCAL;
	return PCO_FS_SERVED;
}

int pco_mounts_new(struct pco_mounts **ret_ms)
{
	struct pco_mounts *ms = calloc(1, sizeof(*ms));

	if (!ms)
		return -ENOMEM;
	ms->unlisted.class = PCO_FS_UNLISTED;
	snprintf(ms->unlisted.fstype, sizeof(ms->unlisted.fstype), "?");
	*ret_ms = ms;
	return 0;
}

void pco_mounts_free(struct pco_mounts *ms)
{
	if (!ms)
		return;
	free(ms->all.m);
	free(ms);
}

/* Undo mountinfo's octal escapes (\040 for a space) in place. */
static void unescape(char *s)
{
	char *o = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '7' && s[2] >= '0' && s[2] <= '7' &&
		    s[3] >= '0' && s[3] <= '7') {
			*o++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0'));
			s += 3;
		} else {
			*o++ = *s;
		}
	}
	*o = 0;
}

static int list_add(struct mount_list *l, const struct pco_mount *m)
{
	if (l->n == l->cap) {
		int cap = l->cap ? 2 * l->cap : 64;
		struct pco_mount *more = realloc(l->m, cap * sizeof(*more));

		if (!more)
			return -ENOMEM;
		l->m = more;
		l->cap = cap;
	}
	l->m[l->n++] = *m;
	return 0;
}

/* The mount whose point is the longest prefix of @path (a path component's end). */
static const struct pco_mount *mount_of_path(const struct mount_list *l, const char *path)
{
	const struct pco_mount *best = NULL;
	size_t best_len = 0;

	for (int i = 0; i < l->n; i++) {
		size_t len = strlen(l->m[i].point);

		if (len == 1 && l->m[i].point[0] == '/')
			len = 0;	/* "/" is every path's prefix */
		if (strncmp(path, l->m[i].point, len) || (path[len] && path[len] != '/'))
			continue;
		if (!best || len >= best_len) {
			best = &l->m[i];
			best_len = len;
		}
	}
	return best;
}

/*
 * Is every layer an overlay names in @opts (lowerdir=a:b, upperdir=,
 * lowerdir+=, datadir+=) on a local mount of @l (one namespace's)?  An
 * overlay's calls go to its layers' files: one served layer makes it served.
 */
static int layers_local(const struct mount_list *l, char *opts)
{
	int layers = 0;
	char *save;

	for (char *opt = strtok_r(opts, ",", &save); opt; opt = strtok_r(NULL, ",", &save)) {
		char *v = strchr(opt, '=');

		if (!v || (strncmp(opt, "lowerdir", 8) && strncmp(opt, "upperdir", 8) &&
			   strncmp(opt, "datadir", 7)))
			continue;
		for (char *dir = v + 1, *next; dir && *dir; dir = next) {
			const struct pco_mount *m;

			next = strchr(dir, ':');
			if (next)
				*next++ = 0;
			unescape(dir);
			m = mount_of_path(l, dir);
			if (!m || m->class != PCO_FS_LOCAL)
				return 0;
			layers++;
		}
	}
	return layers > 0;
}

/* One line of mountinfo into @m; 0, or -EINVAL for a line it does not parse. */
static int parse_line(char *line, struct pco_mount *m, char **ret_opts)
{
	unsigned int major, minor;
	unsigned long long id;
	char *dash;

	*m = (struct pco_mount){ 0 };
	if (sscanf(line, "%llu %*u %u:%u %*s %1023s", &id, &major, &minor, m->point) != 4)
		return -EINVAL;
	dash = strstr(line, " - ");
	if (!dash || sscanf(dash + 3, "%63s %*s", m->fstype) != 1)
		return -EINVAL;
	/* the super options: after the type and the source */
	*ret_opts = strchr(dash + 3, ' ');
	*ret_opts = *ret_opts ? strchr(*ret_opts + 1, ' ') : NULL;
	if (*ret_opts)
		(*ret_opts)++;
	unescape(m->point);
	m->mnt_id = id;
	m->dev = makedev(major, minor);
	m->class = pco_fs_classify(m->fstype);
	return 0;
}

/* @pid's mounts into @l, overlays classified by their layers; 0 or -errno. */
static int read_mountinfo(pid_t pid, struct mount_list *l)
{
	char path[64], line[8192], *opts[64];
	int ovl[64], novl = 0, err = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/mountinfo", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (!err && fgets(line, sizeof(line), f)) {
		struct pco_mount m;
		char *o;

		if (parse_line(line, &m, &o))
			continue;
		if (!strcmp(m.fstype, "overlay") && o && novl < 64 && (opts[novl] = strdup(o))) {
			opts[novl][strcspn(opts[novl], "\n")] = 0;
			ovl[novl++] = l->n;
		}
		err = list_add(l, &m);
	}
	fclose(f);
	/* Overlays once every mount is known: their layers may be listed after them. */
	for (int i = 0; i < novl; i++) {
		if (!err && layers_local(l, opts[i]))
			l->m[ovl[i]].class = PCO_FS_LOCAL;
		free(opts[i]);
	}
	return err;
}

/*
 * Read @pid's mountinfo into the table.  Mount ids are the system's, not a
 * namespace's: the table keeps every namespace's mounts, each updated by id.
 */
static int reread(struct pco_mounts *ms, pid_t pid, double now)
{
	struct mount_list l = { 0 };
	int err = read_mountinfo(pid, &l);

	for (int i = 0; !err && i < l.n; i++) {
		int j;

		for (j = 0; j < ms->all.n && ms->all.m[j].mnt_id != l.m[i].mnt_id; j++)
			;
		if (j < ms->all.n) {
			ms->all.m[j] = l.m[i];
			continue;
		}
		err = list_add(&ms->all, &l.m[i]);
	}
	free(l.m);
	if (!err)
		ms->read_at = now;
	return err;
}

static const struct pco_mount *find(const struct pco_mounts *ms, int by_dev, uint64_t key)
{
	for (int i = 0; i < ms->all.n; i++)
		if (by_dev ? ms->all.m[i].dev == key : ms->all.m[i].mnt_id == key)
			return &ms->all.m[i];
	return NULL;
}

static const struct pco_mount *lookup(struct pco_mounts *ms, pid_t pid, int by_dev,
				      uint64_t key, double now)
{
	const struct pco_mount *m = find(ms, by_dev, key);

	if ((!m || now - ms->read_at > PCO_MOUNTS_FRESH) && !reread(ms, pid, now))
		m = find(ms, by_dev, key);
	return m ? m : &ms->unlisted;
}

const struct pco_mount *pco_mount_by_id(struct pco_mounts *ms, pid_t pid, uint64_t mnt_id,
					double now)
{
	return lookup(ms, pid, 0, mnt_id, now);
}

const struct pco_mount *pco_mount_by_dev(struct pco_mounts *ms, pid_t pid, unsigned int dev,
					 double now)
{
	return lookup(ms, pid, 1, dev, now);
}

int pco_mount_said(struct pco_mounts *ms, const struct pco_mount *m)
{
	for (int i = 0; i < ms->nsaid; i++)
		if (ms->said[i] == m->mnt_id)
			return 1;
	if (ms->nsaid < PCO_MOUNTS_SAID)
		ms->said[ms->nsaid++] = m->mnt_id;
	return 0;
}
