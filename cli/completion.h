/* SPDX-License-Identifier: MIT */
/*
 * Shell completion printed from the command table (completion.c), for the
 * hidden `pagecliff __completion bash` that the build installs.
 */
#ifndef PC_CLI_COMPLETION_H
#define PC_CLI_COMPLETION_H

#include <stddef.h>
#include <stdio.h>

#include "cmd.h"

/* The completion script for @shell ("bash") of the @n commands; -1 for another shell. */
int completion_print(const char *shell, const struct cmd_entry *const *cmds, size_t n,
		     FILE *out);

#endif
