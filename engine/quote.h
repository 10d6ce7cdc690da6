/* SPDX-License-Identifier: MIT */
/*
 * File names in messages, quoted as GNU tools do (shell-escape-always): a
 * name with a newline or another control character stays on one line and
 * can be pasted back into a shell.
 */
#ifndef PC_CLI_QUOTE_H
#define PC_CLI_QUOTE_H

/*
 * @name in single quotes, each control byte as $'\n' or $'\ooo' outside
 * them and each ' as \': "a\nb" becomes 'a'$'\n''b'.  The result lives in
 * one of two static buffers (two names per message), cut with "..." past
 * about 4 KiB; for messages only, never for opening files.
 */
const char *quote_name(const char *name);

#endif
