/* SPDX-License-Identifier: MIT */
/*
 * The command table.  Each subcommand declares, once, in a struct cmd_entry
 * (tmux's cmd_entry, git's builtin table): its name and usage, its options
 * (the same rows give getopt_long its tables and --help its text) and how
 * many operands it takes.  cmd_parse() parses a command line against the
 * entry, answers -h and --help, and refuses a bad command line with one
 * line and exit 2; the command's option function only stores the values.
 *
 *	enum { CAT_COPY = CMD_LONG };
 *	static const struct cmd_option cat_options[] = {
 *		{ "bs", 'b', CMD_ARG_REQUIRED, "SIZE", "bytes per read" },
 *		{ "copy", CAT_COPY, CMD_ARG_NONE, NULL, "copy into a buffer\nof cat's own" },
 *		{ 0 },
 *	};
 *	...
 *	int n = cmd_parse(&cmd_cat_entry, argc, argv, &opts);	// argv[n...]: operands
 */
#ifndef PC_CLI_CMD_H
#define PC_CLI_CMD_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "pagecliff.h"

/* Keys of options that have no short form start here. */
#define CMD_LONG 256

enum cmd_arg { CMD_ARG_NONE, CMD_ARG_REQUIRED, CMD_ARG_OPTIONAL };

/*
 * One option; a table of them ends with a row of zeros.  A row without help
 * is another spelling of the nearest row above it that has help: a long
 * name, or (name NULL) a short option that --help lists beside the row's.
 */
struct cmd_option {
	const char *name;	/* --name, or NULL for an alias by short option */
	int key;		/* the short option ('m'), or CMD_LONG + n */
	enum cmd_arg arg;
	const char *value;	/* the value in --help: "SIZE"; "[=FILE]" when optional */
	const char *help;	/* lines split by '\n' (a first '\n': all below the
				 * option); NULL: an alias, not listed */
};

/*
 * In an option's help, stands for the names of the library's strategies
 * that read (that read and write), from the library's registry.
 */
#define CMD_HELP_MODES "{modes}"
#define CMD_HELP_COPY_MODES "{copy modes}"
/* ... the names of the strategies the preload shim acts with. */
#define CMD_HELP_RUN_MODES "{run modes}"

/*
 * The strategies (1u << strategy each) that the mark in @help stands for;
 * 0 for help without one.
 */
unsigned int cmd_help_modes(const char *help);

/*
 * @help as --help prints it: its mark (CMD_HELP_MODES, ...) replaced by the
 * names it stands for, into @buf (@size bytes); @help itself without one.
 */
const char *cmd_help_text(const char *help, char *buf, size_t size);

/* Options end at the first operand: what follows is another program's. */
#define CMD_IN_ORDER 1u
/* The operands are process ids (completion offers pids, not files). */
#define CMD_PIDS 2u

struct cmd_entry {
	const char *name;
	const char *summary;	/* its line in 'pagecliff --help' */
	const char *usage;	/* after "usage: pagecliff NAME " */
	const char *about;	/* the paragraphs between usage and options */
	const struct cmd_option *options;	/* -h, --help is implied */
	unsigned int width;	/* of the option column in --help */
	const char *trailer;	/* after the options, or NULL */
	struct {
		int min, max;	/* max -1: no limit; { 0, 0 }: none */
	} operands;
	const char *missing;	/* too few operands: "missing file operand" */
	int missing_exit;	/* too few operands: this exit status (cp: 1, as
				 * cp(1)); 0: 2, as any bad command line */
	const char *extra;	/* after "unexpected argument 'x'; ", or NULL for
				 * "see 'pagecliff NAME --help'" */
	unsigned int flags;	/* CMD_IN_ORDER, CMD_PIDS */
	/* Store one option's value; a bad value is a usage_error(). */
	void (*option)(void *state, int key, const char *arg);
	/* The command, from main(): argv[0] is its name. */
	int (*exec)(int argc, char **argv);
};

extern const struct cmd_entry cmd_attach_entry;
extern const struct cmd_entry cmd_bench_entry;
extern const struct cmd_entry cmd_cat_entry;
extern const struct cmd_entry cmd_cp_entry;
extern const struct cmd_entry cmd_doctor_entry;
extern const struct cmd_entry cmd_watch_entry;
extern const struct cmd_entry cmd_run_entry;

/*
 * Parse @argv's options (argv[0] is the command's name) with @e's option
 * function and @state; -h or --help prints the help and exits 0, an unknown
 * option, a missing or unwanted value, or too few or too many operands is
 * one line on stderr and exit 2.  Returns the index of the first operand.
 */
int cmd_parse(const struct cmd_entry *e, int argc, char **argv, void *state);

/* The command's --help text. */
void cmd_help(const struct cmd_entry *e, FILE *out);

/*
 * The names of the library's strategies (pc_strategy_name) whose bit
 * (1u << strategy) is set in @mask, in the library's order, ", " between
 * them, into @buf; returns @buf.  For --mode's words in messages.
 */
#define CMD_ALL_MODES ((1u << PC_STRATEGY_COUNT) - 1)
const char *cmd_mode_names(unsigned int mask, char *buf, size_t size);

/*
 * The words option @o's value may be, @sep between them, into @buf: those
 * of its value text ("preload|outside|both"), where MODE and LIST stand for
 * the names its help's mark names (cmd_help_modes()).  For --list-modes,
 * completion and the messages of a value that is none of them.
 */
const char *cmd_value_words(const struct cmd_option *o, const char *sep, char *buf,
			    size_t size);

/*
 * --list-modes, the row cmd_parse() adds to a command that has an option
 * whose help names modes (it prints that option's words, one a line), or
 * NULL for a command without one.
 */
const struct cmd_option *cmd_list_option(const struct cmd_entry *e);

/* --mode MODE: the strategy, or a usage error that lists them all. */
enum pc_strategy cmd_mode_arg(const char *arg);

/* --bs SIZE: 1 byte to @max (@max_text: "1g"), or a usage error. */
size_t cmd_bs_arg(const char *arg, uint64_t max, const char *max_text);

#endif
