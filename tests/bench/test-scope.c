// SPDX-License-Identifier: MIT
/*
 * The command line bench runs itself again with on a systemd host (case (a)
 * of cgroup v2 as hosts have it, docs/RELIABILITY.md), word for word, and
 * sd_booted(3)'s test of /run/systemd/system under a root prefix.  The run
 * through a systemd-run stand-in is tests/bench/v2-hosts.sh (VM suite).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "helpers.h"
#include "scope.h"

int main(void)
{
	static const char *const want[] = {
		"/usr/bin/systemd-run", "--scope", "--quiet", "--collect",
		"--unit=pagecliff-bench-4242.scope",
		"--description=pagecliff: a memory cgroup of its own", "-p", "Delegate=yes", "--",
		"/opt/pagecliff", "bench", "--mem-limit", "1g", "-d", "/data", NULL,
	};
	char *argv[] = { "bench", "--mem-limit", "1g", "-d", "/data" };
	const char *cmd[16];
	char unit[64], root[4096], dir[4200];
	size_t i;
	int ret;

	ret = scope_command(cmd, 16, unit, sizeof(unit), "/usr/bin/systemd-run", "/opt/pagecliff",
			    "bench", 4242, 5, argv);
	T_CHECK(!ret, "scope_command: %s", strerror(-ret));
	for (i = 0; want[i]; i++) {
		T_CHECK(cmd[i], "word %zu missing, want '%s'", i, want[i]);
		T_CHECK(!strcmp(cmd[i], want[i]), "word %zu is '%s', want '%s'", i, cmd[i], want[i]);
	}
	T_CHECK(!cmd[i], "word %zu is '%s', want the end", i, cmd[i]);
	T_CHECK(scope_command(cmd, 15, unit, sizeof(unit), "s", "e", "bench", 1, 5, argv) == -E2BIG,
		"15 words hold a command of 15 and its NULL");
	T_CHECK(scope_command(cmd, 16, unit, 20, "s", "e", "bench", 4242, 5, argv) == -E2BIG,
		"a unit cut short is refused");

	snprintf(root, sizeof(root), "%s", t_testdir());
	T_CHECK(!scope_systemd_booted(root), "%s has no /run/systemd/system", root);
	snprintf(dir, sizeof(dir), "%s/run", root);
	T_CHECK(!mkdir(dir, 0755), "mkdir %s", dir);
	snprintf(dir, sizeof(dir), "%s/run/systemd", root);
	T_CHECK(!mkdir(dir, 0755), "mkdir %s", dir);
	T_CHECK(!scope_systemd_booted(root), "/run/systemd alone is no systemd host");
	snprintf(dir, sizeof(dir), "%s/run/systemd/system", root);
	T_CHECK(!mkdir(dir, 0755), "mkdir %s", dir);
	T_CHECK(scope_systemd_booted(root), "%s/run/systemd/system exists", root);
	puts("scope: ok");
	return 0;
}
