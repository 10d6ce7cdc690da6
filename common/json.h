/* SPDX-License-Identifier: MIT */
/*
 * A small streaming JSON writer for the reports of bench, doctor and watch:
 * it places the commas, escapes strings and writes numbers that are not
 * finite as null, so that a figure that is unknown says so.  Members go on
 * one line, or one per line in a container opened with lines set.
 *
 *	struct json j;
 *	json_init(&j, stdout);
 *	json_object(&j, NULL, 1);
 *	json_number(&j, "gbps", 2.5);
 *	json_array(&j, "notes", 0);
 *	json_string(&j, NULL, "capped");
 *	json_end(&j);
 *	json_end(&j);		// the outermost end writes the final newline
 */
#ifndef PC_COMMON_JSON_H
#define PC_COMMON_JSON_H

#include <stdint.h>
#include <stdio.h>

/* Deeper nesting is a bug of the caller: the writer aborts. */
#define JSON_MAX_DEPTH 16

struct json {
	FILE *out;
	unsigned int depth;
	struct json_level {
		unsigned int members;	/* written so far at this level */
		unsigned char lines;	/* one member per line */
		char close;		/* '}' or ']' */
	} level[JSON_MAX_DEPTH];
};

void json_init(struct json *j, FILE *out);
/* Open an object or array; @key is NULL at the top and inside arrays. */
void json_object(struct json *j, const char *key, int lines);
void json_array(struct json *j, const char *key, int lines);
void json_end(struct json *j);

void json_string(struct json *j, const char *key, const char *s);
/* Integers exactly below 1e18, others with 6 significant digits. */
void json_number(struct json *j, const char *key, double v);
/* With @decimals digits after the point. */
void json_fixed(struct json *j, const char *key, double v, int decimals);
void json_uint(struct json *j, const char *key, uint64_t v);
void json_bool(struct json *j, const char *key, int v);
void json_null(struct json *j, const char *key);

/* Just the escaped, quoted string, for writers of other formats. */
void json_quote(FILE *out, const char *s);

#endif
