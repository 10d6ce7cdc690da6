/* SPDX-License-Identifier: MIT */
/*
 * Whether `pagecliff run`'s shim can act on a program: the checks of its
 * file that run makes before it chooses the shim or the watcher.
 */
#ifndef PC_CLI_RUN_EXE_H
#define PC_CLI_RUN_EXE_H

#include <stddef.h>

/*
 * Why the shim cannot act on @cmd, found as execvp() would (static, 32-bit,
 * setuid, setgid, file capabilities, Go, io_uring or AIO), or NULL; the
 * program looked at (a script's interpreter) goes into @exe_buf (@size
 * bytes).
 */
const char *run_exe_refusal(const char *cmd, char *exe_buf, size_t size);

#endif
