// SPDX-License-Identifier: MIT
/*
 * The JSON writer (common/json.c), byte for byte: string escapes, commas
 * between members at every depth, keys and bare values, null for numbers
 * that are not finite, number formats, and the one-member-per-line layout.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"
#include "json.h"

struct capture {
	FILE *f;
	char *buf;
	size_t len;
};

static FILE *capture_open(struct capture *c)
{
	c->buf = NULL;
	c->f = open_memstream(&c->buf, &c->len);
	if (!c->f)
		t_fail("open_memstream: out of memory");
	return c->f;
}

/* @s with control characters shown as \xNN, for a failure message. */
static void show(const char *label, const char *s, size_t len)
{
	fprintf(stderr, "%s (%zu bytes): ", label, len);
	for (size_t i = 0; i < len; i++) {
		unsigned char ch = (unsigned char)s[i];

		if (ch < 0x20 || ch >= 0x7f)
			fprintf(stderr, "\\x%02x", ch);
		else
			fputc(ch, stderr);
	}
	fputc('\n', stderr);
}

static void expect(struct capture *c, const char *want, const char *what)
{
	fclose(c->f);
	if (c->len != strlen(want) || memcmp(c->buf, want, c->len)) {
		show("wrote", c->buf, c->len);
		show("want ", want, strlen(want));
		t_fail("%s: the bytes differ", what);
	}
	free(c->buf);
}

static void test_escapes(void)
{
	struct capture c;

	json_quote(capture_open(&c), "a\"b\\c/d\ne\tf\r\x01\x1f\x7f \xc3\xa9!");
	expect(&c, "\"a\\\"b\\\\c/d\\ne\\tf\\u000d\\u0001\\u001f\\u007f \xc3\xa9!\"",
	       "escapes");
	json_quote(capture_open(&c), "");
	expect(&c, "\"\"", "empty string");
}

/* Nesting on one line: ", " between members, none before the first. */
static void test_nesting(void)
{
	struct capture c;
	struct json j;

	json_init(&j, capture_open(&c));
	json_object(&j, NULL, 0);
	json_number(&j, "a", 1);
	json_array(&j, "b", 0);
	json_number(&j, NULL, 1.5);
	json_string(&j, NULL, "x");
	json_object(&j, NULL, 0);
	json_end(&j);
	json_array(&j, NULL, 0);
	json_uint(&j, NULL, 7);
	json_end(&j);
	json_end(&j);
	json_object(&j, "c", 0);
	json_bool(&j, "t", 1);
	json_bool(&j, "f", 0);
	json_null(&j, "n");
	json_end(&j);
	json_string(&j, "k\"ey", NULL);
	json_end(&j);
	expect(&c, "{\"a\": 1, \"b\": [1.5, \"x\", {}, [7]], "
	       "\"c\": {\"t\": true, \"f\": false, \"n\": null}, \"k\\\"ey\": \"\"}\n",
	       "nesting and commas");

	/* a second document on the same stream starts afresh, as watch's lines do */
	json_init(&j, capture_open(&c));
	for (int i = 0; i < 2; i++) {
		json_object(&j, NULL, 0);
		json_number(&j, "i", i);
		json_end(&j);
	}
	json_array(&j, NULL, 0);
	json_end(&j);
	json_end(&j);	/* one too many: writes nothing */
	expect(&c, "{\"i\": 0}\n{\"i\": 1}\n[]\n", "documents in a row");
}

/* Unknown figures are null, never nan or inf, in every number writer. */
static void test_numbers(void)
{
	struct capture c;
	struct json j;

	json_init(&j, capture_open(&c));
	json_array(&j, NULL, 0);
	json_number(&j, NULL, NAN);
	json_number(&j, NULL, INFINITY);
	json_number(&j, NULL, -INFINITY);
	json_fixed(&j, NULL, NAN, 2);
	json_fixed(&j, NULL, INFINITY, 3);
	json_fixed(&j, NULL, -INFINITY, 0);
	json_end(&j);
	expect(&c, "[null, null, null, null, null, null]\n", "non-finite numbers");

	json_init(&j, capture_open(&c));
	json_array(&j, NULL, 0);
	json_number(&j, NULL, 0);
	json_number(&j, NULL, -3);
	json_number(&j, NULL, 1e17);
	json_number(&j, NULL, 1e18);
	json_number(&j, NULL, 0.1);
	json_number(&j, NULL, 123456.7);
	json_number(&j, NULL, -2.5e-7);
	json_fixed(&j, NULL, 3.14159, 3);
	json_fixed(&j, NULL, 1048576, 0);
	json_fixed(&j, NULL, -0.004, 2);
	json_uint(&j, NULL, UINT64_MAX);
	json_uint(&j, NULL, 0);
	json_end(&j);
	expect(&c, "[0, -3, 100000000000000000, 1e+18, 0.1, 123457, -2.5e-07, 3.142, "
	       "1048576, -0.00, 18446744073709551615, 0]\n", "number formats");
}

/* One member per line, indented two spaces a level; empty stays "[]". */
static void test_lines(void)
{
	struct capture c;
	struct json j;

	json_init(&j, capture_open(&c));
	json_object(&j, NULL, 1);
	json_string(&j, "name", "x");
	json_array(&j, "list", 1);
	json_number(&j, NULL, 1);
	json_object(&j, NULL, 1);
	json_bool(&j, "deep", 1);
	json_end(&j);
	json_end(&j);
	json_array(&j, "empty", 1);
	json_end(&j);
	json_object(&j, "inline", 0);
	json_number(&j, "k", 1);
	json_number(&j, "v", NAN);
	json_end(&j);
	json_end(&j);
	expect(&c, "{\n"
	       "  \"name\": \"x\",\n"
	       "  \"list\": [\n"
	       "    1,\n"
	       "    {\n"
	       "      \"deep\": true\n"
	       "    }\n"
	       "  ],\n"
	       "  \"empty\": [],\n"
	       "  \"inline\": {\"k\": 1, \"v\": null}\n"
	       "}\n", "lines mode");
}

int main(void)
{
	test_escapes();
	test_nesting();
	test_numbers();
	test_lines();
	printf("PASS: json writer: escapes, nesting, commas, null for NAN and INF, "
	       "numbers, lines mode\n");
	return 0;
}
