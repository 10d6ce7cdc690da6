// SPDX-License-Identifier: MIT
/*
 * Memory-cgroup discovery: which hierarchy has the memory controller, where
 * it is mounted as this process sees it, and which cgroup a process is in.
 * bench (through cgroup.c), doctor and watch all ask here, so they agree.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sample.h"
#include "sample-internal.h"
#include "mount-escape.h"

/* Copy the @len bytes at @s into @buf as a string; -ENAMETOOLONG when too long. */
static int copy_out(const char *s, size_t len, char *buf, size_t size)
{
	if (len >= size)
		return -ENAMETOOLONG;
	memcpy(buf, s, len);
	buf[len] = '\0';
	return 0;
}

/*
 * Run @match on each line of @text (without its newline) until it finds
 * what it looks for in hierarchy @version: 0 with it in @buf, -ENAMETOOLONG,
 * or -ENOENT to go on.
 */
static int scan_lines(const char *text, int version, char *buf, size_t size,
		      int (*match)(const char *line, size_t len, int version,
				   char *buf, size_t size))
{
	if (version != 1 && version != 2)
		return -EINVAL;
	for (const char *line = text; line && *line; line = sample_next_line(line)) {
		const char *end = strchr(line, '\n');
		int ret = match(line, end ? (size_t)(end - line) : strlen(line), version,
				buf, size);

		if (ret != -ENOENT)
			return ret;
	}
	return -ENOENT;
}

/*
 * An "ID:CONTROLLERS:PATH" line of /proc/PID/cgroup: v2's is "0::PATH",
 * v1's memory one names "memory" among its controllers.
 */
static int proc_cgroup_line(const char *line, size_t len, int version,
			    char *buf, size_t size)
{
	const char *c1 = memchr(line, ':', len);
	const char *c2 = c1 ? memchr(c1 + 1, ':', len - (size_t)(c1 + 1 - line)) : NULL;
	char ctl[256];
	int match;

	if (!c2 || c2[1] != '/')
		return -ENOENT;
	if (version == 2)
		match = c1 - line == 1 && line[0] == '0' && c2 == c1 + 1;
	else
		match = !copy_out(c1 + 1, (size_t)(c2 - c1 - 1), ctl, sizeof(ctl)) &&
			sample_has_word(ctl, "memory");
	return match ? copy_out(c2 + 1, len - (size_t)(c2 + 1 - line), buf, size) : -ENOENT;
}

int sample_parse_proc_cgroup(const char *text, int version, char *ret_path,
			     size_t size)
{
	return scan_lines(text, version, ret_path, size, proc_cgroup_line);
}

/* A /proc/mounts line of a cgroup2 mount (v2) or a v1 one with the memory controller. */
static int mount_line(const char *line, size_t len, int version, char *buf, size_t size)
{
	char text[8192], dev[256], dir[PATH_MAX], type[64], opts[1024];

	if (copy_out(line, len, text, sizeof(text)) ||
	    sscanf(text, "%255s %4095s %63s %1023s", dev, dir, type, opts) != 4)
		return -ENOENT;
	pc_mount_unescape(dir);
	if (version == 2 ? strcmp(type, "cgroup2") :
	    strcmp(type, "cgroup") || !sample_has_word(opts, "memory"))
		return -ENOENT;
	return copy_out(dir, strlen(dir), buf, size);
}

int sample_parse_cgroup_mount(const char *text, int version, char *ret_dir,
			      size_t size)
{
	return scan_lines(text, version, ret_dir, size, mount_line);
}

/* Whether the cgroup2 hierarchy mounted at @mnt (under @root) has the memory controller. */
static int v2_has_memory(const char *root, const char *mnt)
{
	char rel[PATH_MAX + 32], list[512];

	if (snprintf(rel, sizeof(rel), "%s/cgroup.controllers", mnt) >= (int)sizeof(rel))
		return 0;
	return !sample_read_text(root, rel, list, sizeof(list)) &&
	       sample_has_word(list, "memory");
}

/*
 * The first cgroup2 mount whose hierarchy has the memory controller: there
 * may be several (a hybrid host's empty "unified" one, a container's bind
 * mounts), and the first listed need not be it.
 */
static int v2_memory_mount(const char *root, const char *text, char *mnt, size_t size)
{
	for (const char *line = text; line && *line; line = sample_next_line(line)) {
		const char *end = strchr(line, '\n');
		size_t len = end ? (size_t)(end - line) : strlen(line);
		int err = mount_line(line, len, 2, mnt, size);

		if (err == -ENOENT)
			continue;
		if (err)
			return err;
		if (v2_has_memory(root, mnt))
			return 0;
	}
	return -ENOENT;
}

int sample_memcg_hierarchy(const char *root, int *ret_version, char *ret_mnt,
			   size_t size)
{
	char mnt[PATH_MAX];
	char *text;
	int version, err;

	err = sample_slurp(root, "/proc/mounts", &text);
	if (err)
		return err;
	version = 2;
	err = v2_memory_mount(root, text, mnt, sizeof(mnt));
	if (err) {
		version = 1;
		err = sample_parse_cgroup_mount(text, 1, mnt, sizeof(mnt));
	}
	free(text);
	if (!err)
		err = sample_path(root, mnt, ret_mnt, size);
	if (!err)
		*ret_version = version;
	return err;
}

/*
 * A mountinfo line's root and mount point (fields 4 and 5, decoded) when
 * its file system type is cgroup2; -ENOENT for other lines.
 */
static int mountinfo_v2(const char *line, size_t len, char *mroot, char *mpoint)
{
	char text[8192], type[64];
	const char *sep;

	if (copy_out(line, len, text, sizeof(text)) ||
	    sscanf(text, "%*s %*s %*s %4095s %4095s", mroot, mpoint) != 2 ||
	    !(sep = strstr(text, " - ")) || sscanf(sep + 3, "%63s", type) != 1 ||
	    strcmp(type, "cgroup2"))
		return -ENOENT;
	pc_mount_unescape(mroot);
	pc_mount_unescape(mpoint);
	return 0;
}

/*
 * Where the v2 cgroup @sub is seen in @pdir's mount namespace: the first
 * cgroup2 mount with the memory controller whose root (a bind mount's or a
 * cgroup namespace's may be below the hierarchy's) is @sub or above it.
 * Its mount point into @ret_mnt, @sub below that root rewritten in place.
 * -ENOENT without a mountinfo (the caller takes /proc/mounts) or a mount.
 */
static int v2_locate(const char *root, const char *pdir, char *sub, char *ret_mnt, size_t size)
{
	char rel[128], mroot[PATH_MAX], mpoint[PATH_MAX];
	int err = -ENOENT;
	char *text;

	snprintf(rel, sizeof(rel), "%s/mountinfo", pdir);
	if (sample_slurp(root, rel, &text))
		return -ENOENT;
	for (const char *line = text; line && *line && err; line = sample_next_line(line)) {
		const char *end = strchr(line, '\n');
		size_t n;

		if (mountinfo_v2(line, end ? (size_t)(end - line) : strlen(line), mroot, mpoint))
			continue;
		n = strcmp(mroot, "/") ? strlen(mroot) : 0;
		if (strncmp(sub, mroot, n) || (sub[n] && sub[n] != '/') ||
		    !v2_has_memory(root, mpoint))
			continue;
		memmove(sub, sub + n, strlen(sub + n) + 1);
		if (!sub[0])
			snprintf(sub, 2, "/");
		err = sample_path(root, mpoint, ret_mnt, size);
	}
	free(text);
	return err;
}

int sample_memcg_path(const char *root, pid_t pid, int *ret_version,
		      char *ret_dir, size_t size)
{
	char pdir[64], rel[128], mnt[PATH_MAX], sub[PATH_MAX], full[2 * PATH_MAX];
	char *text;
	int version, err;

	err = sample_memcg_hierarchy(root, &version, mnt, sizeof(mnt));
	if (err)
		return err;
	sample_proc_dir(pid, pdir, sizeof(pdir));
	snprintf(rel, sizeof(rel), "%s/cgroup", pdir);
	err = sample_slurp(root, rel, &text);
	if (err)
		return err;
	err = sample_parse_proc_cgroup(text, version, sub, sizeof(sub));
	free(text);
	if (err)
		return err;
	if (version == 2 && v2_locate(root, pdir, sub, mnt, sizeof(mnt)) == -ENAMETOOLONG)
		return -ENAMETOOLONG;
	/* the mount's root is the mount point itself */
	snprintf(full, sizeof(full), "%s%s", mnt, strcmp(sub, "/") ? sub : "");
	err = copy_out(full, strlen(full), ret_dir, size);
	if (!err)
		*ret_version = version;
	return err;
}

/* Whether @dir is a usable memory cgroup of @version. */
static int is_memcg(const char *dir, int version)
{
	char path[PATH_MAX];

	if (sample_path(dir, version == 1 ? "/memory.limit_in_bytes" :
			"/memory.stat", path, sizeof(path)))
		return 0;
	return access(path, F_OK) == 0;
}

int sample_find_cgroup(const char *root, pid_t pid, char *ret_dir, size_t size)
{
	char dir[PATH_MAX];
	int version, err;

	err = sample_memcg_path(root, pid, &version, dir, sizeof(dir));
	if (err)
		return err;
	if (!is_memcg(dir, version))
		return -ENOENT;
	return copy_out(dir, strlen(dir), ret_dir, size);
}
