// SPDX-License-Identifier: MIT
/*
 * A program that sets up io_uring through liburing: the shim cannot see the
 * reads made through the ring, and its stats say so in one exact line, once.
 */
#include <errno.h>
#include <liburing.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "helpers.h"

static char stats[300];

static void rm_stats(void)
{
	unlink(stats);
}

int main(int argc, char **argv)
{
	static const char want[] = "pagecliff: io_uring in use (liburing): its reads are not "
				   "seen, the shim did not act on them\n";
	struct io_uring ring;
	char line[300];
	int ret, found = 0;
	FILE *fp;

	if (!t_shimmed()) {
		snprintf(stats, sizeof(stats), "/var/tmp/pagecliff-shimtest-uring.%d", getpid());
		unlink(stats);
		setenv("PAGECLIFF_STATS", stats, 1);
		t_reexec_with_shim(argv);
	}
	snprintf(stats, sizeof(stats), "%s", getenv("PAGECLIFF_STATS"));
	atexit(rm_stats);
	for (int i = 0; i < 2; i++) {
		ret = io_uring_queue_init(8, &ring, 0);
		if (ret == -ENOSYS || ret == -EPERM)
			t_skip("io_uring: %s", strerror(-ret));
		T_CHECK(ret == 0, "io_uring_queue_init: %s", strerror(-ret));
		io_uring_queue_exit(&ring);
	}
	fp = fopen(stats, "r");
	while (fp && fgets(line, sizeof(line), fp))
		found += !strcmp(line, want);
	if (fp)
		fclose(fp);
	T_CHECK(found == 1, "%d lines '%s' for two rings", found, want);
	printf("PASS: io_uring through liburing: one stats line says the shim did not act\n");
	return 0;
}
