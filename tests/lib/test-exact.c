// SPDX-License-Identifier: MIT
/*
 * Every strategy returns exactly the bytes of the file, for sizes around
 * block and chunk edges, read lengths from 1 byte to MiBs, the zero-copy API
 * and random positioned reads, on the file system named by argv[1]:
 * "tmpfs" (/dev/shm), "builddir" (the build folder's), "xfs" or "ext4" (made
 * on a loop device, as root).  PAGECLIFF_TEST_QUICK=1 (the sanitized builds'
 * runs) reads with every other length.
 */
#include <string.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "exact.h"
#include "helpers.h"

static const char *pick_dir(const char *what)
{

	if (!strcmp(what, "tmpfs")) {
		struct statfs sf;

		if (statfs("/dev/shm", &sf) || sf.f_type != 0x01021994)
			t_skip("/dev/shm is not a tmpfs");
		return "/dev/shm";
	}
	if (!strcmp(what, "builddir"))
		return t_workdir();
	return t_loopfs(what, 512ull << 20);
}

int main(int argc, char **argv)
{
	char dir[4096];

	if (argc < 2)
		t_fail("usage: test-exact tmpfs|builddir|xfs|ext4");
	t_tmpdir(dir, sizeof(dir), pick_dir(argv[1]));
	exact_suite(dir, t_quick());
	t_rmtree(dir);
	printf("every strategy exact on %s\n", argv[1]);
	return T_EXIT_PASS;
}
