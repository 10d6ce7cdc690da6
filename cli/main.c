// SPDX-License-Identifier: MIT
/*
 * pagecliff: the command.  Dispatches to one subcommand per file, from an
 * explicit table (compare git.c and tmux's cmd_table).
 */
#include <stdio.h>
#include <string.h>

#include "cmds.h"
#include "util.h"

struct cmd {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
};

static const struct cmd commands[] = {
	{ "bench", cmd_bench, "reproduce the page-cache cliff and show where and why it falls" },
	{ "cat", cmd_cat, "stream files to stdout without flooding the page cache" },
	{ "cp", cmd_cp, "copy files and trees without leaving them in the page cache" },
	{ "doctor", cmd_doctor, "diagnose this host for the page-cache cliff" },
	{ "watch", cmd_watch, "show page cache and reclaim per interval, like vmstat" },
	{ "run", cmd_run, "run a program with the page-cache shim preloaded" },
};

static void usage(FILE *out)
{
	fprintf(out, "usage: pagecliff <command> [options] [args]\n\ncommands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(out, "  %-8s %s\n", commands[i].name, commands[i].summary);
	fprintf(out, "\n'pagecliff <command> --help' describes a command; see pagecliff(1).\n");
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
	    !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("pagecliff %s\n", PAGECLIFF_VERSION);
		return 0;
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].fn(argc - 1, argv + 1);
	}
	usage_error("unknown command '%s'; see 'pagecliff --help'", argv[1]);
}
