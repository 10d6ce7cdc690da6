// SPDX-License-Identifier: MIT
/*
 * A transient systemd scope with delegation: whether systemd runs the host,
 * where systemd-run is, and the command line that runs a command again in a
 * scope of its own (scope.h).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "scope.h"

int scope_systemd_booted(const char *root)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/run/systemd/system/", root ? root : "");
	return !access(path, F_OK);
}

int scope_find_systemd_run(char *ret_path)
{
	const char *path = getenv("PATH");

	if (!path || !*path)
		path = "/usr/local/bin:/usr/bin:/bin";
	while (*path) {
		size_t len = strcspn(path, ":");
		int n = snprintf(ret_path, PATH_MAX, "%.*s/systemd-run", (int)len, path);

		if (len && n > 0 && n < PATH_MAX && !access(ret_path, X_OK))
			return 0;
		path += len + (path[len] == ':');
	}
	ret_path[0] = '\0';
	return -ENOENT;
}

int scope_command(const char **ret, size_t max, char *unit, size_t unit_size,
		  const char *systemd_run, const char *exe, const char *what, pid_t pid,
		  int argc, char **argv)
{
	static const char *const opts[] = {
		"--scope", "--quiet", "--collect", NULL /* --unit= */,
		"--description=pagecliff: a memory cgroup of its own",
		"-p", "Delegate=yes", "--",
	};
	size_t n = 0, need = 2 + sizeof(opts) / sizeof(opts[0]) + (size_t)argc;
	int len;

	if (max < need + 1)
		return -E2BIG;
	len = snprintf(unit, unit_size, "--unit=pagecliff-%s-%ld.scope", what, (long)pid);
	if (len < 0 || (size_t)len >= unit_size)
		return -E2BIG;
	ret[n++] = systemd_run;
	for (size_t i = 0; i < sizeof(opts) / sizeof(opts[0]); i++)
		ret[n++] = opts[i] ? opts[i] : unit;
	ret[n++] = exe;
	for (int i = 0; i < argc; i++)
		ret[n++] = argv[i];
	ret[n] = NULL;
	return 0;
}
