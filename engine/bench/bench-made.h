/* SPDX-License-Identifier: MIT */
/*
 * bench.made, the journal of what pagecliff bench made in a data folder
 * (the folder itself, its lock, each data file, and the journal itself):
 * each thing by its name and an identity that a file put in its place does
 * not share.  bench-layout.c uses it, and testbed.c its identities for the
 * outputs a run made; it calls only util.c.
 */
#ifndef PC_CLI_BENCH_MADE_H
#define PC_CLI_BENCH_MADE_H

#include <stddef.h>
#include <stdint.h>

#include "bench.h"

#define MADE_NAME "bench.made"
/* The folder ("."), the lock and one file per job. */
#define MADE_MAX (BENCH_MAX_JOBS + 2)

/* What the file system gave beside the device and inode numbers. */
#define MADE_BTIME 1u			/* statx's birth time */
#define MADE_GEN 2u			/* the inode's generation (FS_IOC_GETVERSION) */

/*
 * Which inode a thing is.  An inode number is reused once freed (ext4 gives
 * a file made just after a removal the removed one's), so the birth time and
 * the generation go with it; a journal of format v1 had neither (has = 0),
 * and neither has a file system that gives neither: there the identity is
 * the device and inode alone, as it was.
 */
struct bench_made_id {
	uint64_t dev, ino;
	int64_t btime_sec;
	uint32_t btime_nsec;
	uint32_t gen;
	unsigned int has;		/* MADE_BTIME | MADE_GEN */
};

/* One thing bench made in a folder: "." is the folder itself. */
struct bench_made_entry {
	struct bench_made_id id;
	char name[32];
};

/* A folder's journal, as read and as this run keeps it. */
struct bench_made {
	struct bench_made_entry ent[MADE_MAX];
	unsigned int n;
	int exists;			/* bench.made exists (ours to rewrite) */
	int created;			/* this run created bench.made */
	int have_self;			/* bench.made named its own identity */
	struct bench_made_id self;
};

/* The identity of the open @fd; 0 or -errno. */
int bench_made_id_fd(int fd, struct bench_made_id *ret_id);
/* The identity of @name in @dir_fd (not followed) as far as @want (MADE_*)
 * asks; 0 or -errno (-ENOENT: nothing there). */
int bench_made_id_at(int dir_fd, const char *name, unsigned int want,
		     struct bench_made_id *ret_id);
/* Whether @now is the thing recorded as @was: all that @was has must match,
 * and a part @now cannot give does not. */
int bench_made_id_same(const struct bench_made_id *was, const struct bench_made_id *now);
/* "DEV INO BTIME GEN" of @id into @buf, "-" for a part it lacks (as the
 * journal writes it); the length snprintf gives. */
int bench_made_id_print(char *buf, size_t len, const struct bench_made_id *id);
/* Parse "DEV INO BTIME GEN" at the start of @s into @ret_id: how many
 * characters it took, or -1 (@ret_id untouched). */
int bench_made_id_parse(const char *s, struct bench_made_id *ret_id);

/* Read @dir_fd's bench.made into @m: 0 (also when absent), -1 when it is
 * not bench's. */
int bench_made_read(struct bench_made *m, int dir_fd);
/* Rewrite bench.made from @m, without the entry named @skip ("" none). */
int bench_made_write(struct bench_made *m, int dir_fd, const char *skip);
/* Record that this run made @name in @dir_fd, open as @fd; 0 or -errno. */
int bench_made_add(struct bench_made *m, int dir_fd, const char *name, int fd);
/* The index of the entry that @name in @dir_fd is now, or -1. */
int bench_made_find(const struct bench_made *m, int dir_fd, const char *name);
/* Forget entry @i and rewrite bench.made; 0 or -errno. */
int bench_made_drop(struct bench_made *m, int dir_fd, unsigned int i);
/* Whether bench.made in @dir_fd is the one it names as itself (a journal
 * that names no self: whether it is there). */
int bench_made_is_self(const struct bench_made *m, int dir_fd);

#endif
