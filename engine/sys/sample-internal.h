/* SPDX-License-Identifier: MIT */
/*
 * What the sample-*.c files of engine/sys share and nobody else needs: line and
 * number scanning (sample-parse.c), the /proc/PID directory of a process
 * (sample-file.c), and a macro that reads a file and parses its text.
 */
#ifndef PC_CLI_SAMPLE_INTERNAL_H
#define PC_CLI_SAMPLE_INTERNAL_H

#include <stdint.h>
#include <stdlib.h>
#include <sys/types.h>

#include "sample.h"

/* The line after @line, NULL at the end of the text. */
const char *sample_next_line(const char *line);
/* Parse an unsigned decimal at *@p, skipping blanks; advances *@p.  0 or -errno. */
int sample_scan_u64(const char **p, uint64_t *ret);
/* Every field of @ret unknown, version 0. */
void sample_cgroup_unknown(struct sample_cgroup *ret);
/* The "/proc/PID" (or "/proc/self" for @pid 0) part of a path. */
void sample_proc_dir(pid_t pid, char *buf, size_t size);

/* Slurp @path under @root and run @parse on it; 0 or -errno. */
#define SAMPLE_READ_WITH(root, path, parse, ...)		\
	({							\
		char *text_;					\
		int ret_ = sample_slurp(root, path, &text_);	\
		if (!ret_) {					\
			ret_ = parse(text_, __VA_ARGS__);	\
			free(text_);				\
		}						\
		ret_;						\
	})

#endif
