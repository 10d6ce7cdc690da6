// SPDX-License-Identifier: MIT
/*
 * pagecliff: the command.  Dispatches to one subcommand per file through an
 * explicit table of their entries (cmd.h; compare git.c and tmux's
 * cmd_table); each entry declares its own options and usage.
 */
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "completion.h"
#include "util.h"

static const struct cmd_entry *const commands[] = {
	&cmd_bench_entry,
	&cmd_cat_entry,
	&cmd_cp_entry,
	&cmd_doctor_entry,
	&cmd_watch_entry,
	&cmd_run_entry,
	&cmd_attach_entry,
};

static void usage(FILE *out)
{
	fprintf(out, "usage: pagecliff <command> [options] [args]\n\ncommands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(out, "  %-8s %s\n", commands[i]->name, commands[i]->summary);
	fprintf(out, "\n'pagecliff <command> --help' describes a command; see pagecliff(1).\n");
}

static const struct cmd_entry *find_command(const char *name)
{
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(name, commands[i]->name))
			return commands[i];
	usage_error("unknown command '%s'; see 'pagecliff --help'", name);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "help") && argc > 2) {
		if (argc > 3)
			usage_error("unexpected argument '%s'; see 'pagecliff --help'", argv[3]);
		cmd_help(find_command(argv[2]), stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
	    !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "__completion") && argc == 3)	/* for the build, not listed */
		return completion_print(argv[2], commands, sizeof(commands) / sizeof(commands[0]),
					stdout) ? EXIT_USAGE : 0;
	if (!strcmp(argv[1], "--version")) {
		printf("pagecliff %s\n", PAGECLIFF_VERSION);
		return 0;
	}
	return find_command(argv[1])->exec(argc - 1, argv + 1);
}
