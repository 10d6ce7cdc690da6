/* SPDX-License-Identifier: MIT */
/*
 * A transient systemd scope with delegation, for a command that needs a
 * cgroup v2 subtree of its own on a host where systemd owns the hierarchy
 * (a login shell's session scope holds the shell: no controller can be
 * delegated below it).  systemd-run --scope runs the command in a new scope
 * unit, which holds that command alone and which systemd removes when it
 * ends.  Returns 0 or -errno and never prints.
 */
#ifndef PC_CLI_SCOPE_H
#define PC_CLI_SCOPE_H

#include <stddef.h>
#include <sys/types.h>

/* Set in the environment of the command run again in its scope: the unit. */
#define SCOPE_ENV "PAGECLIFF_SCOPE"

/* Whether systemd manages this host, as sd_booted(3) tells: /run/systemd/system
 * exists below @root ("" or NULL: /). */
int scope_systemd_booted(const char *root);

/*
 * The systemd-run found in $PATH into @ret_path (PATH_MAX bytes); -ENOENT
 * when there is none.
 */
int scope_find_systemd_run(char *ret_path);

/*
 * The command line that runs @exe with @argv (@argc words) again in the
 * transient scope pagecliff-<@what>-<@pid>.scope with Delegate=yes:
 *   systemd-run --scope --quiet --collect --unit=pagecliff-WHAT-PID.scope
 *     --description=... -p Delegate=yes -- EXE ARGV...
 * into @ret (@max pointers, NULL-terminated), its --unit= word made in
 * @unit (@unit_size bytes).  The strings are @exe, @argv's and @unit's, and static
 * ones; -E2BIG when @max is too small.
 */
int scope_command(const char **ret, size_t max, char *unit, size_t unit_size,
		  const char *systemd_run, const char *exe, const char *what, pid_t pid,
		  int argc, char **argv);

#endif
