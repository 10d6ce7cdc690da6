/* SPDX-License-Identifier: MIT */
/*
 * /proc/PID/stat (and /proc/PID/task/TID/stat) parsed once for every reader
 * (procstat.c): the sampler, the cgroup mover and the watcher.
 */
#ifndef PC_PROCSTAT_H
#define PC_PROCSTAT_H

#include <stdint.h>

/* The fields the project reads, by their numbers in proc_pid_stat(5). */
struct pcc_procstat {
	char comm[64];			/* 2, without its parentheses */
	char state;			/* 3 */
	int ppid;			/* 4 */
	unsigned int flags;		/* 9: PF_* */
	uint64_t utime, stime;		/* 14, 15: clock ticks */
	unsigned int threads;		/* 20 */
	uint64_t start;			/* 22: clock ticks after boot */
	uint64_t code;			/* 26: startcode */
	uint64_t stack;			/* 28: startstack */
};

/* The last field a caller needs, for pcc_procstat_parse()'s @need. */
enum {
	PCC_STAT_PPID = 4,
	PCC_STAT_STIME = 15,
	PCC_STAT_THREADS = 20,
	PCC_STAT_START = 22,
	PCC_STAT_STACK = 28,
};

/*
 * Parse the text of a stat file, which holds fields 1 to @need at least, into
 * *@ret; 0, or -EINVAL (@ret untouched).  The name may hold blanks and
 * parentheses: the fields after it start after the last ')'.
 */
int pcc_procstat_parse(const char *text, int need, struct pcc_procstat *ret);

#endif
