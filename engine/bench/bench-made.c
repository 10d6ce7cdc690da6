// SPDX-License-Identifier: MIT
/*
 * bench.made, the journal of what pagecliff bench made in its data folder
 * (bench-made.h).  Its first line is MADE_MAGIC, then one line a thing:
 *
 *	DEV INO BTIME GEN NAME
 *
 * BTIME is statx's birth time as SEC.NSEC and GEN the inode's generation,
 * each "-" where the file system gave none; the journal's own line (NAME
 * bench.made) comes first.  A thing is bench's only while everything its
 * line records still matches.  ext4 gives a file made right after a removal
 * the removed file's inode number, and the birth time too when both fall in
 * one clock tick, but a new generation (ext4 and xfs draw one for each inode
 * they make; btrfs and tmpfs do not reuse inode numbers, and tmpfs gives no
 * generation).  A journal of format v1 ("DEV INO NAME") is still read; its
 * things are known by device and inode alone, as are those of a file system
 * that gives neither.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "bench-made.h"
#include "util.h"

#define MADE_MAGIC "pagecliff-bench made v2\n"
#define MADE_MAGIC_V1 "pagecliff-bench made v1\n"
#define MADE_LINE 128

/* Fill @id from @stx and, with @fd >= 0, the generation from @fd. */
static void id_from(const struct statx *stx, int fd, struct bench_made_id *id)
{
	unsigned int gen = 0;

	memset(id, 0, sizeof(*id));
	id->dev = makedev(stx->stx_dev_major, stx->stx_dev_minor);
	id->ino = stx->stx_ino;
	if (stx->stx_mask & STATX_BTIME) {
		id->btime_sec = stx->stx_btime.tv_sec;
		id->btime_nsec = stx->stx_btime.tv_nsec;
		id->has |= MADE_BTIME;
	}
	/* the kernel writes an int, whatever the request's size says */
	if (fd >= 0 && !ioctl(fd, FS_IOC_GETVERSION, &gen)) {
		id->gen = gen;
		id->has |= MADE_GEN;
	}
}

int bench_made_id_fd(int fd, struct bench_made_id *ret_id)
{
	struct statx stx;

	if (statx(fd, "", AT_EMPTY_PATH, STATX_TYPE | STATX_INO | STATX_BTIME, &stx))
		return -errno;
	id_from(&stx, fd, ret_id);
	return 0;
}

/*
 * The generation needs a descriptor: only a regular file or a folder is
 * opened (never a device or a FIFO put there), and what was opened must be
 * what was looked at; else the identity lacks it, and so matches no record
 * that has one.
 */
int bench_made_id_at(int dir_fd, const char *name, unsigned int want,
		     struct bench_made_id *ret_id)
{
	struct statx stx, now;
	int fd;

	if (statx(dir_fd, name, AT_SYMLINK_NOFOLLOW, STATX_TYPE | STATX_INO | STATX_BTIME, &stx))
		return -errno;
	fd = -1;
	if ((want & MADE_GEN) && (S_ISREG(stx.stx_mode) || S_ISDIR(stx.stx_mode)))
		fd = openat(dir_fd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY |
			    O_CLOEXEC);
	if (fd >= 0 && (statx(fd, "", AT_EMPTY_PATH, STATX_INO, &now) ||
			now.stx_ino != stx.stx_ino || now.stx_dev_major != stx.stx_dev_major ||
			now.stx_dev_minor != stx.stx_dev_minor)) {
		close(fd);
		fd = -1;
	}
	id_from(&stx, fd, ret_id);
	if (fd >= 0)
		close(fd);
	return 0;
}

int bench_made_id_same(const struct bench_made_id *was, const struct bench_made_id *now)
{
	if (was->dev != now->dev || was->ino != now->ino || (was->has & ~now->has))
		return 0;
	if ((was->has & MADE_BTIME) &&
	    (was->btime_sec != now->btime_sec || was->btime_nsec != now->btime_nsec))
		return 0;
	return !(was->has & MADE_GEN) || was->gen == now->gen;
}

int bench_made_id_print(char *buf, size_t len, const struct bench_made_id *id)
{
	char bt[32] = "-", gen[16] = "-";

	if (id->has & MADE_BTIME)
		snprintf(bt, sizeof(bt), "%lld.%09u", (long long)id->btime_sec, id->btime_nsec);
	if (id->has & MADE_GEN)
		snprintf(gen, sizeof(gen), "%u", id->gen);
	return snprintf(buf, len, "%llu %llu %s %s", (unsigned long long)id->dev,
			(unsigned long long)id->ino, bt, gen);
}

/*
 * A field cut short (a token longer than its buffer) ends the identity
 * anywhere but at a space or the end: refused, never read as a shorter one.
 */
int bench_made_id_parse(const char *s, struct bench_made_id *ret_id)
{
	struct bench_made_id id = { 0 };
	unsigned long long dev, ino;
	char bt[32], gen[16];
	long long sec;
	unsigned int nsec, g;
	int len = 0, n = 0;

	if (sscanf(s, "%llu %llu %31s %15s%n", &dev, &ino, bt, gen, &len) != 4 || !len ||
	    (s[len] && !isspace((unsigned char)s[len])))
		return -1;
	if (strcmp(bt, "-")) {
		if (sscanf(bt, "%lld.%9u%n", &sec, &nsec, &n) != 2 || bt[n] || nsec >= 1000000000u)
			return -1;
		id.btime_sec = sec;
		id.btime_nsec = nsec;
		id.has |= MADE_BTIME;
	}
	if (strcmp(gen, "-")) {
		if (sscanf(gen, "%u%n", &g, &n) != 1 || gen[n])
			return -1;
		id.gen = g;
		id.has |= MADE_GEN;
	}
	id.dev = dev;
	id.ino = ino;
	*ret_id = id;
	return len;
}

/* One journal line for @id and @name into @buf; its length. */
static int id_line(char *buf, size_t len, const struct bench_made_id *id, const char *name)
{
	int n = bench_made_id_print(buf, len, id);

	if (n < 0 || (size_t)n >= len)
		return n;
	return n + snprintf(buf + n, len - (size_t)n, " %s\n", name);
}

/* Parse a v2 line (or with @v1 a v1 line) into @id and @name: 0 or -1. */
static int id_parse(const char *line, int v1, struct bench_made_id *id, char *name)
{
	unsigned long long dev, ino;
	int n;

	memset(id, 0, sizeof(*id));
	if (!v1) {
		n = bench_made_id_parse(line, id);
		return n < 0 || sscanf(line + n, "%31s", name) != 1 ? -1 : 0;
	}
	if (sscanf(line, "%llu %llu %31s", &dev, &ino, name) != 3)
		return -1;
	id->dev = dev;
	id->ino = ino;
	return 0;
}

/* The whole journal in one write, so that a kill leaves no half of it
 * beyond what O_TRUNC took. */
int bench_made_write(struct bench_made *m, int dir_fd, const char *skip)
{
	char buf[(MADE_MAX + 2) * MADE_LINE];
	struct bench_made_id self;
	size_t len;
	int fd, ret;

	fd = openat(dir_fd, MADE_NAME, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC,
		    0644);
	if (fd < 0)
		return -errno;
	m->created |= !m->exists;
	m->exists = 1;
	ret = bench_made_id_fd(fd, &self);
	if (!ret) {
		/* its own identity: one put in its place is not bench's */
		m->self = self;
		m->have_self = 1;
		len = (size_t)snprintf(buf, sizeof(buf), "%s", MADE_MAGIC);
		len += (size_t)id_line(buf + len, sizeof(buf) - len, &self, MADE_NAME);
		for (unsigned int i = 0; i < m->n; i++)
			if (strcmp(m->ent[i].name, skip))
				len += (size_t)id_line(buf + len, sizeof(buf) - len,
						       &m->ent[i].id, m->ent[i].name);
		ret = write_all(fd, buf, len);
	}
	if (close(fd) && !ret)
		ret = -errno;
	return ret;
}

int bench_made_add(struct bench_made *m, int dir_fd, const char *name, int fd)
{
	struct bench_made_id id;
	int ret = bench_made_id_fd(fd, &id);

	if (ret)
		return ret;
	for (unsigned int i = 0; i < m->n; i++)
		if (!strcmp(m->ent[i].name, name) && bench_made_id_same(&m->ent[i].id, &id))
			return 0;
	if (m->n == MADE_MAX)
		return -ENOSPC;
	m->ent[m->n].id = id;
	snprintf(m->ent[m->n].name, sizeof(m->ent[0].name), "%s", name);
	m->n++;
	return bench_made_write(m, dir_fd, "");
}

/* Read the lines after the first into @m. */
static void made_lines(struct bench_made *m, FILE *f, int v1)
{
	char line[MADE_LINE];

	while (m->n < MADE_MAX && fgets(line, sizeof(line), f)) {
		struct bench_made_entry *e = &m->ent[m->n];

		if (id_parse(line, v1, &e->id, e->name))
			continue;	/* not a record: nothing is trusted from it */
		if (!strcmp(e->name, MADE_NAME)) {
			m->have_self = 1;
			m->self = e->id;
			continue;
		}
		m->n++;
	}
}

int bench_made_read(struct bench_made *m, int dir_fd)
{
	char line[MADE_LINE];
	FILE *f;
	int fd, v1, ret = -1;

	fd = openat(dir_fd, MADE_NAME, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? 0 : -1;
	if (!(f = fdopen(fd, "r"))) {
		close(fd);
		return -1;
	}
	if (fgets(line, sizeof(line), f)) {
		v1 = !strcmp(line, MADE_MAGIC_V1);
		if (v1 || !strcmp(line, MADE_MAGIC)) {
			ret = 0;
			m->exists = 1;
			made_lines(m, f, v1);
			/* v2 always names itself; v1 did only from a later version on */
			if (!v1 && !m->have_self)
				ret = -1;
		}
	}
	if (ret) {
		m->n = 0;		/* nothing in it is trusted */
		m->have_self = 0;
	}
	fclose(f);
	return ret;
}

int bench_made_find(const struct bench_made *m, int dir_fd, const char *name)
{
	struct bench_made_id now;
	unsigned int want = 0;
	int named = 0;

	for (unsigned int i = 0; i < m->n; i++)
		if (!strcmp(m->ent[i].name, name)) {
			want |= m->ent[i].id.has;
			named = 1;
		}
	if (!named || bench_made_id_at(dir_fd, name, want, &now))
		return -1;
	for (unsigned int i = 0; i < m->n; i++)
		if (!strcmp(m->ent[i].name, name) && bench_made_id_same(&m->ent[i].id, &now))
			return (int)i;
	return -1;
}

int bench_made_drop(struct bench_made *m, int dir_fd, unsigned int i)
{
	m->ent[i] = m->ent[--m->n];
	return bench_made_write(m, dir_fd, "");
}

int bench_made_is_self(const struct bench_made *m, int dir_fd)
{
	struct bench_made_id now;

	if (bench_made_id_at(dir_fd, MADE_NAME, m->self.has, &now))
		return 0;
	return !m->have_self || bench_made_id_same(&m->self, &now);
}
