// SPDX-License-Identifier: MIT
/*
 * Write errors from the fault rig (faultfs, writable "rw" files): a write
 * request covering one byte fails with EIO, or with EDQUOT as a user over
 * quota would see it (this kernel has no quota for XFS or ext4).  Every
 * strategy returns that errno by a write or close; the bytes acknowledged
 * before it are in the file; with "direct" the error comes back as an
 * io_uring completion.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "helpers.h"
#include "rig.h"
#include "wtest.h"

#define MIB (1024ull * 1024)
#define BAD_BYTE (3 * MIB + 4000)

static char src[MIB + 7];

static void check_one(enum pc_strategy st, const char *fault, int want)
{
	const char *name = pc_strategy_name(st);
	struct pc_wstream *s;
	struct pc_wstats stats;
	struct pc_wopts o;
	uint64_t acked = 0;
	char path[512];
	int err = 0, cerr;
	struct stat sb;

	fr_path(path, sizeof(path), "size=0,rw,%s=%llu,tag=%s", fault,
		(unsigned long long)BAD_BYTE, name);
	pc_wopts_init(&o);
	o.strategy = st;
	err = pc_wstream_open(&s, path, O_WRONLY | O_TRUNC, 0, &o);
	T_CHECK(!err, "%s: open: %s", name, strerror(-err));
	while (acked < 8 * MIB) {
		ssize_t n;

		t_pattern_fill(src, acked, sizeof(src), FR_SEED);
		n = pc_wstream_write(s, src, sizeof(src));
		if (n < 0) {
			err = (int)n;
			break;
		}
		acked += n;
	}
	pc_wstream_stats(s, &stats);
	cerr = pc_wstream_close(s);
	printf("%-10s %s: %llu bytes acknowledged, write %d, close %d (%s: %s)\n", name,
	       fault, (unsigned long long)acked, err, cerr,
	       pc_strategy_name(stats.strategy), stats.reason);
	T_CHECK((err ? err : cerr) == -want, "%s: error %d, not %d", name, err ? err : cerr, -want);
	T_CHECK(acked <= BAD_BYTE, "%s: %llu bytes acknowledged past the bad byte", name,
		(unsigned long long)acked);
	T_CHECK(stat(path, &sb) == 0, "stat: %s", strerror(errno));
	if (stats.strategy != PC_DIRECT)
		T_CHECK((uint64_t)sb.st_size >= acked, "%s: %lld bytes on disk, %llu acknowledged",
			name, (long long)sb.st_size, (unsigned long long)acked);
	if (st == PC_DIRECT)
		T_CHECK(stats.strategy == PC_DIRECT, "direct fell back: %s", stats.reason);
	wt_check_file(path, sb.st_size, FR_SEED);
}

int main(void)
{
	fr_mount();
	fr_watchdog(120);
	for (unsigned int i = 0; i < fr_nstrategies; i++) {
		check_one(fr_strategies[i], "weio", EIO);
		check_one(fr_strategies[i], "wdquot", EDQUOT);
	}
	printf("every strategy returns the write error, the bytes before stay\n");
	return T_EXIT_PASS;
}
