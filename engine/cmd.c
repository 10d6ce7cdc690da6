// SPDX-License-Identifier: MIT
/*
 * The command table's machinery (cmd.h): getopt_long's tables and the --help
 * text made from a command's option rows, the parse, and the one line and
 * exit 2 for a bad command line, the same for every command.
 */
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "util.h"

/* Rows in one table: bench's, the longest, has 28. */
#define CMD_MAX_OPTIONS 48

/* -h, --help: a table of its own, ended like the others. */
static const struct cmd_option help_table[] = {
	{ "help", 'h', CMD_ARG_NONE, NULL, "this text" },
	{ 0 },
};
static const struct cmd_option *const help_option = help_table;

/* The row of @e whose help names modes (CMD_HELP_MODES, ...), or NULL. */
static const struct cmd_option *mode_row(const struct cmd_entry *e)
{
	for (const struct cmd_option *o = e->options; o->key; o++)
		if (cmd_help_modes(o->help))
			return o;
	return NULL;
}

/* --list-modes, for a command with a --mode row (cmd_list_option()). */
static const struct cmd_option list_table[] = {
	{ "list-modes", CMD_LONG + 1000, CMD_ARG_NONE, NULL, "the names --mode takes, one a line" },
	{ 0 },
};

/* getopt_long's tables for one entry: the rows, then -h, --help. */
struct getopt_tables {
	struct option longopts[CMD_MAX_OPTIONS + 2];
	char shorts[3 * (CMD_MAX_OPTIONS + 1) + 3];
	size_t nrows, nlong, nshort;
};

static void add_short(struct getopt_tables *t, int key, enum cmd_arg arg)
{
	t->shorts[t->nshort++] = (char)key;
	if (arg != CMD_ARG_NONE)
		t->shorts[t->nshort++] = ':';
	if (arg == CMD_ARG_OPTIONAL)
		t->shorts[t->nshort++] = ':';
}

static void add_option(struct getopt_tables *t, const char *cmd, const struct cmd_option *o)
{
	static const int has_arg[] = {
		[CMD_ARG_NONE] = no_argument,
		[CMD_ARG_REQUIRED] = required_argument,
		[CMD_ARG_OPTIONAL] = optional_argument,
	};

	if (t->nrows++ == CMD_MAX_OPTIONS + 1)
		die("the table of '%s' has more than %d options", cmd, CMD_MAX_OPTIONS);
	if (o->name)
		t->longopts[t->nlong++] = (struct option){ o->name, has_arg[o->arg], NULL, o->key };
	if (o->key < CMD_LONG)
		add_short(t, o->key, o->arg);
}

static void make_tables(const struct cmd_entry *e, struct getopt_tables *t)
{
	t->nrows = t->nlong = t->nshort = 0;
	if (e->flags & CMD_IN_ORDER)
		t->shorts[t->nshort++] = '+';
	t->shorts[t->nshort++] = ':';	/* we say what is wrong, not getopt */
	for (const struct cmd_option *o = e->options; o->key; o++)
		add_option(t, e->name, o);
	if (cmd_list_option(e))
		add_option(t, e->name, list_table);
	add_option(t, e->name, help_option);
	t->longopts[t->nlong] = (struct option){ NULL, 0, NULL, 0 };
	t->shorts[t->nshort] = '\0';
}

/* The row of @key: for an alias, the row with help above it. */
static const struct cmd_option *find_key(const struct cmd_entry *e, int key)
{
	for (const struct cmd_option *o = e->options; o->key; o++) {
		if (o->key != key)
			continue;
		while (!o->help && o > e->options)
			o--;
		return o;
	}
	if (key == list_table->key && cmd_list_option(e))
		return list_table;
	return key == help_option->key ? help_option : NULL;
}

/*
 * What getopt_long refused (@c is '?' or ':'), in one line.  A long option
 * is named as written, up to any '='; a short one by optopt, because in a
 * group ("-qZ") argv[optind - 1] need not be the word it came from.
 */
static noreturn void bad_option(const struct cmd_entry *e, char **argv, int c)
{
	const char *word = argv[optind - 1];
	int len = (int)strcspn(word, "=");
	int is_long = !strncmp(word, "--", 2);

	if (c == ':' && is_long)
		usage_error("option '%.*s' needs a value; see 'pagecliff %s --help'", len, word,
			    e->name);
	if (c == ':')
		usage_error("option '-%c' needs a value; see 'pagecliff %s --help'", optopt,
			    e->name);
	if (optopt && !find_key(e, optopt))
		usage_error("unknown option '-%c'; see 'pagecliff %s --help'", optopt, e->name);
	if (optopt)
		usage_error("option '%.*s' takes no value; see 'pagecliff %s --help'", len, word,
			    e->name);
	usage_error("unknown option '%.*s'; see 'pagecliff %s --help'", len, word, e->name);
}

static void check_operands(const struct cmd_entry *e, int argc, char **argv, int first)
{
	int n = argc - first, max = e->operands.max;

	if (n < e->operands.min)
		usage_error_exit(e->missing_exit ? e->missing_exit : EXIT_USAGE,
				 "%s; see 'pagecliff %s --help'",
				 e->missing ? e->missing : "missing operand", e->name);
	if (max < 0 || n <= max)
		return;
	if (e->extra)
		usage_error("unexpected argument '%s'; %s", argv[first + max], e->extra);
	usage_error("unexpected argument '%s'; see 'pagecliff %s --help'", argv[first + max],
		    e->name);
}

/* --list-modes: the words of the row of --mode, one a line. */
static void list_modes(const struct cmd_entry *e, FILE *out)
{
	char words[256];

	fprintf(out, "%s\n", cmd_value_words(mode_row(e), "\n", words, sizeof(words)));
}

int cmd_parse(const struct cmd_entry *e, int argc, char **argv, void *state)
{
	struct getopt_tables t;
	int c;

	make_tables(e, &t);
	opterr = 0;
	optind = 0;	/* glibc: start afresh, also for a second parse */
	while ((c = getopt_long(argc, argv, t.shorts, t.longopts, NULL)) != -1) {
		const struct cmd_option *o;

		if (c == '?' || c == ':')
			bad_option(e, argv, c);
		o = find_key(e, c);
		if (o == help_option) {
			cmd_help(e, stdout);
			exit(0);
		}
		if (o == list_table) {
			list_modes(e, stdout);
			exit(0);
		}
		e->option(state, o->key, optarg);
	}
	check_operands(e, argc, argv, optind);
	return optind;
}

/* "-m, " for a row, with its aliases' short options; four spaces if none. */
static const char *short_forms(const struct cmd_option *o, char *buf, size_t size)
{
	size_t n = 0;

	snprintf(buf, size, "    ");
	for (const struct cmd_option *a = o; a->key && (a == o || !a->help); a++)
		if (a->key < CMD_LONG && (a == o || !a->name) && n + 5 < size)
			n += (size_t)snprintf(buf + n, size - n, "-%c, ", a->key);
	return buf;
}

/* The marks an option's help may hold, and what the strategies they stand for serve. */
static const struct {
	const char *mark;
	unsigned int caps;	/* pc_strategy_caps() */
} marks[] = {
	{ CMD_HELP_MODES, PC_STRATEGY_READS },
	{ CMD_HELP_COPY_MODES, PC_STRATEGY_READS | PC_STRATEGY_WRITES },
	{ CMD_HELP_RUN_MODES, PC_STRATEGY_PRELOAD },
};

/* The index in marks[] of the mark in @help, its place in *@ret_at; -1: none. */
static int find_mark(const char *help, const char **ret_at)
{
	for (size_t i = 0; help && i < sizeof(marks) / sizeof(marks[0]); i++) {
		const char *at = strstr(help, marks[i].mark);

		if (at) {
			*ret_at = at;
			return (int)i;
		}
	}
	return -1;
}

unsigned int cmd_help_modes(const char *help)
{
	const char *at;
	int i = find_mark(help, &at);
	unsigned int mask = 0;

	for (unsigned int s = 0; i >= 0 && s < PC_STRATEGY_COUNT; s++)
		if ((pc_strategy_caps(s) & marks[i].caps) == marks[i].caps)
			mask |= 1u << s;
	return mask;
}

const char *cmd_help_text(const char *help, char *buf, size_t size)
{
	const char *at;
	int i = find_mark(help, &at);
	char names[128];

	if (i < 0)
		return help;
	snprintf(buf, size, "%.*s%s%s", (int)(at - help), help,
		 cmd_mode_names(cmd_help_modes(help), names, sizeof(names)),
		 at + strlen(marks[i].mark));
	return buf;
}

/*
 * One option's lines of --help: "  -m, --mode MODE  what it does", the text
 * in a column @e->width + 4 from the left; an option too wide for its
 * column is followed by two spaces (by one when one is all it lacks).
 */
static void put_option(FILE *out, const struct cmd_entry *e, const struct cmd_option *o)
{
	const int col = (int)e->width + 4;
	char text[512];
	const char *line = cmd_help_text(o->help, text, sizeof(text));
	const char *sep = o->arg == CMD_ARG_OPTIONAL || !o->value ? "" : " ";
	char shorts[32];
	int len;

	len = fprintf(out, "  %s--%s%s%s", short_forms(o, shorts, sizeof(shorts)), o->name,
		      sep, o->value ? o->value : "") - 2;
	if (line[0] == '\n')
		fprintf(out, "\n%*s", col, "");
	else
		fprintf(out, "%*s", len <= col - 3 ? col - 2 - len : 2, "");
	line += line[0] == '\n';
	for (;;) {
		int n = (int)strcspn(line, "\n");

		fprintf(out, "%.*s\n", n, line);
		if (!line[n])
			break;
		line += n + 1;
		fprintf(out, "%*s", col, "");
	}
}

void cmd_help(const struct cmd_entry *e, FILE *out)
{
	fprintf(out, "usage: pagecliff %s %s\n\n%s\n\n", e->name, e->usage, e->about);
	for (const struct cmd_option *o = e->options; o->key; o++)
		if (o->help)
			put_option(out, e, o);
	if (cmd_list_option(e))
		put_option(out, e, list_table);
	put_option(out, e, help_option);
	if (e->trailer)
		fprintf(out, "\n%s\n", e->trailer);
}

/*
 * Append @n bytes of @word at *@len of @buf (@size bytes), @sep before it
 * unless first: cut short, still a string.
 */
static void append(char *buf, size_t size, size_t *len, const char *sep, const char *word,
		   int n)
{
	int m = snprintf(buf + *len, size - *len, "%s%.*s", *len ? sep : "", n, word);

	if (m > 0)
		*len += (size_t)m < size - *len ? (size_t)m : size - *len - 1;
}

/* The names of @mask's strategies, @sep between them, appended at *@len. */
static void append_names(char *buf, size_t size, size_t *len, const char *sep,
			 unsigned int mask)
{
	for (unsigned int s = 0; s < PC_STRATEGY_COUNT; s++)
		if (mask & (1u << s))
			append(buf, size, len, sep, pc_strategy_name((enum pc_strategy)s), INT_MAX);
}

const char *cmd_mode_names(unsigned int mask, char *buf, size_t size)
{
	size_t len = 0;

	buf[0] = '\0';
	append_names(buf, size, &len, ", ", mask);
	return buf;
}

const char *cmd_value_words(const struct cmd_option *o, const char *sep, char *buf,
			    size_t size)
{
	size_t len = 0;

	buf[0] = '\0';
	for (const char *v = o->value; v && *v; ) {
		int n = (int)strcspn(v, "|");

		if (n == 4 && (!strncmp(v, "MODE", 4) || !strncmp(v, "LIST", 4)))
			append_names(buf, size, &len, sep, cmd_help_modes(o->help));
		else
			append(buf, size, &len, sep, v, n);
		v += n + (v[n] == '|');
	}
	return buf;
}

const struct cmd_option *cmd_list_option(const struct cmd_entry *e)
{
	return mode_row(e) ? list_table : NULL;
}

enum pc_strategy cmd_mode_arg(const char *arg)
{
	enum pc_strategy s;
	char names[128];

	if (pc_strategy_parse(arg, &s))
		usage_error("unknown mode '%s' (%s)", arg,
			    cmd_mode_names(CMD_ALL_MODES, names, sizeof(names)));
	return s;
}

size_t cmd_bs_arg(const char *arg, uint64_t max, const char *max_text)
{
	uint64_t bs;

	if (parse_size(arg, &bs) || !bs || bs > max)
		usage_error("bad --bs '%s': a size from 1 byte to %s", arg, max_text);
	return bs;
}
