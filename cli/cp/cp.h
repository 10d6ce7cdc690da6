/* SPDX-License-Identifier: MIT */
/*
 * pagecliff cp: the tree walk (cmd-cp.c) and the copy of one regular file
 * (cp-file.c), which reads through the read stream and writes through the
 * write stream, or shares blocks where the file system can.
 */
#ifndef PC_CLI_CP_H
#define PC_CLI_CP_H

#include <sys/stat.h>

#include "pagecliff.h"
#include "progress.h"

/*
 * The files this run made, by device and inode, in an open-addressing table
 * that doubles when half full: a later SRC must not overwrite one (cp(1)'s
 * "will not overwrite just-created").
 */
struct cp_made {
	struct { dev_t dev; ino_t ino; } *slot;
	size_t size, used;	/* size: a power of two, or 0 */
};

struct cp_opts {
	struct pc_opts lib;	/* read side */
	enum pc_strategy wmode;	/* write side */
	size_t bs;		/* bytes per request on both sides */
	int recursive;
	int preserve;
	int stats;
	struct cp_made *made;	/* files made for SRC operands, when there are several */
	int want_progress;	/* --progress */
	struct progress *progress;	/* NULL when off */
};

/*
 * Copy the regular file @src (open on @sfd, described by @sst) to @dst,
 * creating it or truncating an existing regular file like cp(1).  Refuses a
 * destination that is the source.  Returns 0, or -1 after naming the file and
 * the reason (and saying when @dst is left partial).
 */
int cp_file(const char *src, int sfd, const struct stat *sst, const char *dst,
	    const struct cp_opts *o);

/*
 * -p on @dst, by its open @dfd or (@dfd < 0) by name, @is_link for a link
 * itself, in cp(1)'s order and words: the times, owner and group, the mode
 * (without set-ID bits when the owner or group could not be kept); 0 or -1
 * reported.
 */
int cp_keep(const char *dst, int dfd, const struct stat *sst, int is_link);

/* The files this run made (NULL @m: none kept), for "just-created"
 * (cp-made.c). */
void cp_made_add(struct cp_made *m, const struct stat *st);
int cp_made_has(const struct cp_made *m, const struct stat *st);
void cp_made_free(struct cp_made *m);

#endif
