// SPDX-License-Identifier: MIT
/* The JSON writer of json.h. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "json.h"

void json_init(struct json *j, FILE *out)
{
	j->out = out;
	j->depth = 0;
}

void json_quote(FILE *out, const char *s)
{
	fputc('"', out);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(out, "\\%c", *p);
		else if (*p == '\n')
			fputs("\\n", out);
		else if (*p == '\t')
			fputs("\\t", out);
		else if (*p < 0x20 || *p == 0x7f)
			fprintf(out, "\\u%04x", *p);
		else
			fputc(*p, out);
	}
	fputc('"', out);
}

static void indent(const struct json *j)
{
	fputc('\n', j->out);
	for (unsigned int i = 0; i < j->depth; i++)
		fputs("  ", j->out);
}

/* The separator before a member, and its key. */
static void member(struct json *j, const char *key)
{
	if (j->depth) {
		struct json_level *l = &j->level[j->depth - 1];

		if (l->members++)
			fputs(l->lines ? "," : ", ", j->out);
		if (l->lines)
			indent(j);
	}
	if (key) {
		json_quote(j->out, key);
		fputs(": ", j->out);
	}
}

static void container(struct json *j, const char *key, int lines, char open, char close)
{
	member(j, key);
	fputc(open, j->out);
	if (j->depth == JSON_MAX_DEPTH)
		abort();	/* no report nests so deep: a bug in its writer */
	j->level[j->depth].members = 0;
	j->level[j->depth].lines = lines != 0;
	j->level[j->depth].close = close;
	j->depth++;
}

void json_object(struct json *j, const char *key, int lines)
{
	container(j, key, lines, '{', '}');
}

void json_array(struct json *j, const char *key, int lines)
{
	container(j, key, lines, '[', ']');
}

void json_end(struct json *j)
{
	if (!j->depth)
		return;
	j->depth--;
	if (j->level[j->depth].lines && j->level[j->depth].members)
		indent(j);
	fputc(j->level[j->depth].close, j->out);
	if (!j->depth)
		fputc('\n', j->out);
}

void json_string(struct json *j, const char *key, const char *s)
{
	member(j, key);
	json_quote(j->out, s ? s : "");
}

void json_number(struct json *j, const char *key, double v)
{
	member(j, key);
	if (!isfinite(v))
		fputs("null", j->out);
	else if (v == floor(v) && fabs(v) < 1e18)
		fprintf(j->out, "%.0f", v);
	else
		fprintf(j->out, "%.6g", v);
}

void json_fixed(struct json *j, const char *key, double v, int decimals)
{
	member(j, key);
	if (!isfinite(v))
		fputs("null", j->out);
	else
		fprintf(j->out, "%.*f", decimals, v);
}

void json_uint(struct json *j, const char *key, uint64_t v)
{
	member(j, key);
	fprintf(j->out, "%" PRIu64, v);
}

void json_bool(struct json *j, const char *key, int v)
{
	member(j, key);
	fputs(v ? "true" : "false", j->out);
}

void json_null(struct json *j, const char *key)
{
	member(j, key);
	fputs("null", j->out);
}
