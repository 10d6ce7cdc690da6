/* SPDX-License-Identifier: MIT */
/*
 * The supervisor `pagecliff run` and `pagecliff attach` share: the signals
 * that stop a watcher or go on to a child, the child forked and waited for,
 * its exit status passed on as ours, and where the watcher's stats go.
 * One child at a time: the signal handlers read it from this file's state.
 */
#ifndef PC_CLI_SUPERVISE_H
#define PC_CLI_SUPERVISE_H

#include <signal.h>
#include <stdnoreturn.h>
#include <sys/types.h>

/* Have SIGINT, SIGTERM and SIGHUP set *@stop to their number (attach's end). */
void sup_catch_stop(volatile sig_atomic_t *stop);

/*
 * The watcher's stats: -1 for @file NULL (none), 2 for "" (stderr), else
 * @file opened to append (created); -2 after one line saying why it cannot.
 */
int sup_stats_fd(const char *file);

/* Exec @argv in this process; on failure one line and exit 127 (not found) or 126. */
noreturn void sup_exec(char **argv);

/*
 * Fork @argv's program as the child and return once it executed it (or
 * failed to): a watcher's first look must see the program, not our copy
 * before the exec.  From then on SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1
 * and SIGUSR2 sent to us go on to it (those a terminal sent reached it
 * already), through its pidfd where one was had.  Returns its pid, or -1
 * with errno when the fork failed.
 */
pid_t sup_spawn(char **argv);

/* The child's pidfd, or -1 when there is none (descriptors exhausted). */
int sup_pidfd(void);

/* Wait for the child and return its exit status as sup_exit_as() does. */
int sup_wait(void);

/*
 * The status to exit with as the child did: its exit status, or its
 * signal raised here (no core of ours); 128 + the signal if we survive it.
 */
int sup_exit_as(int status);

/* Close the child's pidfd once it is reaped. */
void sup_release(void);

#endif
