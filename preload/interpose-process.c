// SPDX-License-Identifier: MIT
/*
 * The process's start and end: the environment is read once, at load; at
 * exit, and in a process that leaves by _exit() or _Exit(), the files still
 * open get their final drops and stats lines.
 */
#include "interpose.h"

#include <sys/syscall.h>
#include <unistd.h>

__attribute__((constructor)) static void pl_init(void)
{
	int saved = errno;

	pl_table_hooks(pl_track_met, pl_track_forked, pl_direct_parent_forked);
	pl_config_load();
	errno = saved;
}

/*
 * exit() runs the destructors before it flushes stdio's buffers: stdout's
 * last buffer is written here, a moment early, so that it is counted and
 * dropped (an error there reaches no one either way: the status is set).
 */
__attribute__((destructor)) static void pl_at_exit(void)
{
	pl_flush_stdout();
	pl_track_exit();
}

/*
 * _exit() skips destructors: a child that reads and leaves with _exit() still
 * gets its final drops and stats lines (exit() reaches the destructor).
 */
#define HOOK_EXIT(name)							\
	PL_EXPORT void name(int status)					\
	{								\
		void (*fn)(int) = REAL(name);				\
									\
		pl_track_exit();					\
		if (fn)							\
			fn(status);					\
		syscall(SYS_exit_group, status);			\
		__builtin_unreachable();				\
	}

HOOK_EXIT(_exit)
HOOK_EXIT(_Exit)
