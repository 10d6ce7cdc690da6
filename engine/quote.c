// SPDX-License-Identifier: MIT
/*
 * Shell-escape quoting of file names for messages (quote.h).
 */
#include <stdio.h>
#include <string.h>

#include "quote.h"

#define QUOTE_MAX 4096

/* $'\n' for the usual escapes, $'\ooo' for the other control bytes. */
static size_t put_escape(char *out, unsigned char c)
{
	static const char named[] = "\aa\bb\tt\nn\vv\ff\rr";
	const char *p = c ? strchr(named, c) : NULL;

	if (p && (p - named) % 2 == 0)
		return (size_t)sprintf(out, "$'\\%c'", p[1]);
	return (size_t)sprintf(out, "$'\\%03o'", c);
}

const char *quote_name(const char *name)
{
	static char bufs[2][QUOTE_MAX + 16];
	static int which;
	char *out = bufs[which ^= 1];
	size_t n = 0;
	int open = 1;

	out[n++] = '\'';
	for (const unsigned char *p = (const unsigned char *)name; *p; p++) {
		if (n >= QUOTE_MAX) {
			n += (size_t)sprintf(out + n, "%s...", open ? "'" : "");
			return out;
		}
		if (*p < 0x20 || *p == 0x7f || *p == '\'') {
			if (open)
				out[n++] = '\'';
			open = 0;
			if (*p == '\'')
				n += (size_t)sprintf(out + n, "\\'");
			else
				n += put_escape(out + n, *p);
			continue;
		}
		if (!open)
			out[n++] = '\'';
		open = 1;
		out[n++] = (char)*p;
	}
	if (open)
		out[n++] = '\'';
	out[n] = '\0';
	return out;
}
