// SPDX-License-Identifier: MIT
/*
 * A huge RLIMIT_NOFILE does not matter to the shim (nocache allocated per
 * possible fd and crashed, its #38): with the limit at 1048576 (or the hard
 * limit, where the test may not raise it) a file is read through an fd just
 * below the limit, correctly, dropped behind, and the process stays small.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "helpers.h"

#define SIZE (32ull << 20)
#define NOFILE 1048576

static long rss_kib(void)
{
	char line[256];
	long kib = -1;
	FILE *f = fopen("/proc/self/status", "r");

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "VmRSS:", 6))
			kib = strtol(line + 6, NULL, 10);
	if (f)
		fclose(f);
	return kib;
}

int main(int argc, char **argv)
{
	struct rlimit rl = { NOFILE, NOFILE };
	char path[300], *buf;
	int high;
	uint64_t off = 0;
	ssize_t n;
	int fd;

	if (!t_shimmed()) {
		if (setrlimit(RLIMIT_NOFILE, &rl)) {
			getrlimit(RLIMIT_NOFILE, &rl);
			printf("cannot raise RLIMIT_NOFILE to %d (%s): using the hard limit %llu\n",
			       NOFILE, strerror(errno), (unsigned long long)rl.rlim_max);
			rl.rlim_cur = rl.rlim_max;
			if (rl.rlim_max < 4096 || setrlimit(RLIMIT_NOFILE, &rl))
				t_skip("RLIMIT_NOFILE cannot be raised to 4096");
		}
		t_reexec_with_shim(argv);
	}
	getrlimit(RLIMIT_NOFILE, &rl);
	high = rl.rlim_cur > NOFILE ? NOFILE - 1 : (int)rl.rlim_cur - 1;
	snprintf(path, sizeof(path), "%s/f", t_testdir());
	t_make_file(path, SIZE, 9);
	t_evict(path);
	fd = open(path, O_RDONLY);
	T_CHECK(fd >= 0 && dup2(fd, high) == high, "dup2: %s", strerror(errno));
	close(fd);
	buf = malloc(1 << 20);
	while ((n = read(high, buf, 1 << 20)) > 0) {
		T_CHECK(t_pattern_check(buf, off, n, 9) < 0, "wrong bytes at %llu", (unsigned long long)off);
		off += n;
	}
	T_CHECK(n == 0 && off == SIZE, "read %llu bytes", (unsigned long long)off);
	close(high);
	T_CHECK(t_cached(path) <= (8ull << 20), "%llu bytes left cached",
		 (unsigned long long)t_cached(path));
	T_CHECK(rss_kib() < 64 * 1024, "RSS %ld KiB", rss_kib());
	printf("PASS: RLIMIT_NOFILE %llu, read through fd %d, RSS %ld KiB\n",
	       (unsigned long long)rl.rlim_cur, high, rss_kib());
	return 0;
}
