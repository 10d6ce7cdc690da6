// SPDX-License-Identifier: MIT
/*
 * bash completion for pagecliff, printed from the command table so that it
 * cannot drift from --help: the commands, each one's options (every
 * spelling), what an option's value is (its value text in the table: FILE,
 * PATH, DIR, MODE or LIST, words between '|'), and what the operands are
 * (files, pids, none, or another program's command line).  The build runs
 * `pagecliff __completion bash` and installs what it prints.
 */
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "completion.h"

/* What follows an option or stands as an operand, in the script's words. */
static const char *const kind_file = "@file", *const kind_dir = "@dir";
static const char *const kind_pid = "@pid";

/*
 * The words a value may be, from its text: "read|write" lists them; MODE
 * (one) and LIST (a comma-separated list) stand for the registry's names
 * that the option's help names (cmd_value_words()).
 */
static void put_words(FILE *out, const struct cmd_option *o)
{
	char words[512];

	fprintf(out, "%s %s", strcmp(o->value, "LIST") ? "@words" : "@list",
		cmd_value_words(o, " ", words, sizeof(words)));
}

/* What to offer for @o's value: nothing, files, directories, or words. */
static void put_value_kind(FILE *out, const struct cmd_option *o)
{
	const char *v = o->value;

	if (o->arg == CMD_ARG_OPTIONAL)
		fputs("@attached ", out);	/* getopt: only as --name=VALUE */
	if (strstr(v, "FILE") || strstr(v, "PATH"))
		fputs(kind_file, out);
	else if (!strncmp(v, "DIR", 3))
		fputs(kind_dir, out);
	else if (strchr(v, '|') || !strcmp(v, "MODE") || !strcmp(v, "LIST"))
		put_words(out, o);
	else
		fputs("@none", out);	/* a number, a size, a time: no guess */
}

/* One option's spellings as a case pattern: "--mode|-m". */
static void put_spellings(FILE *out, const struct cmd_option *o)
{
	if (o->name)
		fprintf(out, "--%s", o->name);
	if (o->key < CMD_LONG)
		fprintf(out, "%s-%c", o->name ? "|" : "", o->key);
}

/*
 * The row with help that @o spells (itself, or the nearest above it): an
 * alias row has no value text of its own.
 */
static const struct cmd_option *main_row(const struct cmd_entry *e, const struct cmd_option *o)
{
	while (!o->help && o > e->options)
		o--;
	return o;
}

/* _pagecliff_cmd_NAME WORD: sets _pc_w to what WORD wants (see below). */
static void put_command(FILE *out, const struct cmd_entry *e)
{
	fprintf(out, "_pagecliff_cmd_%s() {\n\tcase $1 in\n\topts) _pc_w='", e->name);
	for (const struct cmd_option *o = e->options; o->key; o++) {
		fprintf(out, "%s", o == e->options ? "" : " ");
		if (o->name)
			fprintf(out, "--%s%s", o->name, o->arg == CMD_ARG_REQUIRED ? "=" : "");
		if (o->key < CMD_LONG)
			fprintf(out, "%s-%c", o->name ? " " : "", o->key);
	}
	if (cmd_list_option(e))
		fprintf(out, " --%s", cmd_list_option(e)->name);
	fprintf(out, " --help -h';;\n\toperands) _pc_w='%s';;\n",
		e->operands.max == 0 ? "@none" :
		e->flags & CMD_IN_ORDER ? "@command" :
		e->flags & CMD_PIDS ? kind_pid : kind_file);
	for (const struct cmd_option *o = e->options; o->key; o++) {
		const struct cmd_option *m = main_row(e, o);

		if (o->arg == CMD_ARG_NONE)
			continue;
		fputs("\t", out);
		put_spellings(out, o);
		fputs(") _pc_w='", out);
		put_value_kind(out, m);
		fputs("';;\n", out);
	}
	fputs("\t*) _pc_w='';;\n\tesac\n}\n\n", out);
}

/*
 * The driver, the same for every command.  _pagecliff_cmd_X answers, for
 * "opts", the options (a long one that takes a value ends in '='); for
 * "operands", what an operand is; for an option, what its value is:
 * '' (none), @none (a value, nothing to offer), @file, @dir, @pid (the
 * processes of /proc), @words W..., @list W... (comma-separated), each
 * after "@attached " when the value can only be given as --name=VALUE.  Words split at '=' (bash's
 * COMP_WORDBREAKS) or not are both understood.
 */
static const char driver[] =
	"# _pagecliff_value KIND CUR: fill COMPREPLY with values of KIND matching CUR.\n"
	"_pagecliff_value() {\n"
	"\tlocal kind=${1#@attached } cur=$2 head=\n"
	"\tcase $kind in\n"
	"\t@file) compopt -o filenames 2>/dev/null; COMPREPLY=($(compgen -f -- \"$cur\"));;\n"
	"\t@dir) compopt -o filenames 2>/dev/null; COMPREPLY=($(compgen -d -- \"$cur\"));;\n"
	"\t@pid) local pids=(/proc/[1-9]*); COMPREPLY=($(compgen -W \"${pids[*]#/proc/}\" -- \"$cur\"));;\n"
	"\t@words\\ *) COMPREPLY=($(compgen -W \"${kind#@words }\" -- \"$cur\"));;\n"
	"\t@list\\ *)\n"
	"\t\t[[ $cur == *,* ]] && head=${cur%,*},\n"
	"\t\tCOMPREPLY=($(compgen -P \"$head\" -W \"${kind#@list }\" -- \"${cur##*,}\"));;\n"
	"\t*) COMPREPLY=();;\n"
	"\tesac\n"
	"}\n"
	"\n"
	"_pagecliff() {\n"
	"\tlocal cur=${COMP_WORDS[COMP_CWORD]} cmd= fn w _pc_w i n=0 want=\n"
	"\tCOMPREPLY=()\n"
	"\tfor ((i = 1; i < COMP_CWORD; i++)); do\n"
	"\t\t[[ ${COMP_WORDS[i]} == -* ]] || { cmd=${COMP_WORDS[i]}; break; }\n"
	"\tdone\n"
	"\tif [[ -z $cmd ]]; then\n"
	"\t\tw=\"$_pagecliff_commands help\"\n"
	"\t\t[[ $cur == -* ]] && w='--help --version'\n"
	"\t\tCOMPREPLY=($(compgen -W \"$w\" -- \"$cur\"))\n"
	"\t\treturn\n"
	"\tfi\n"
	"\tif [[ $cmd == help ]]; then\n"
	"\t\t((COMP_CWORD == i + 1)) && COMPREPLY=($(compgen -W \"$_pagecliff_commands\" -- \"$cur\"))\n"
	"\t\treturn\n"
	"\tfi\n"
	"\tfn=_pagecliff_cmd_$cmd\n"
	"\tdeclare -F \"$fn\" >/dev/null || return\n"
	"\t# the words between the command and the cursor: values, operands, --\n"
	"\tfor ((i++; i < COMP_CWORD; i++)); do\n"
	"\t\tw=${COMP_WORDS[i]}\n"
	"\t\tif [[ -n $want ]]; then\n"
	"\t\t\t[[ $w == = ]] && continue\n"
	"\t\t\twant=; continue\n"
	"\t\tfi\n"
	"\t\tif [[ $w == -- ]]; then n=-1; ((i++)); break; fi\n"
	"\t\tif [[ $w == -?* ]]; then\n"
	"\t\t\t$fn \"${w%%=*}\"\n"
	"\t\t\tif [[ $w != *=* && ( $_pc_w == @* ) ]]; then\n"
	"\t\t\t\t[[ $_pc_w == @attached* ]] || want=1\n"
	"\t\t\t\t[[ $_pc_w == @attached* && ${COMP_WORDS[i+1]} == = ]] && want=1\n"
	"\t\t\tfi\n"
	"\t\t\tcontinue\n"
	"\t\tfi\n"
	"\t\t$fn operands\n"
	"\t\tif [[ $_pc_w == @command ]]; then n=-1; break; fi\n"
	"\t\t((n++))\n"
	"\tdone\n"
	"\t$fn operands\n"
	"\tif ((n < 0)) && [[ $_pc_w == @command ]]; then\n"
	"\t\tif ((i == COMP_CWORD)); then\n"
	"\t\t\tCOMPREPLY=($(compgen -c -- \"$cur\"))\n"
	"\t\telif declare -F _command_offset >/dev/null; then\n"
	"\t\t\t_command_offset \"$i\"\n"
	"\t\telse\n"
	"\t\t\t_pagecliff_value @file \"$cur\"\n"
	"\t\tfi\n"
	"\t\treturn\n"
	"\tfi\n"
	"\t# the value of an option: after it, after its '=', or in --name=VALUE\n"
	"\tif [[ -n $want ]]; then\n"
	"\t\tw=${COMP_WORDS[COMP_CWORD-1]}\n"
	"\t\t[[ $w == = ]] && w=${COMP_WORDS[COMP_CWORD-2]}\n"
	"\t\t[[ $cur == = ]] && cur=\n"
	"\t\t$fn \"$w\"\n"
	"\t\t_pagecliff_value \"$_pc_w\" \"$cur\"\n"
	"\t\treturn\n"
	"\tfi\n"
	"\tif [[ $cur == --*=* ]]; then\n"
	"\t\t$fn \"${cur%%=*}\"\n"
	"\t\t_pagecliff_value \"$_pc_w\" \"${cur#*=}\"\n"
	"\t\tCOMPREPLY=(\"${COMPREPLY[@]/#/${cur%%=*}=}\")\n"
	"\t\treturn\n"
	"\tfi\n"
	"\tif [[ $cur == -* ]]; then\n"
	"\t\t$fn opts\n"
	"\t\tCOMPREPLY=($(compgen -W \"$_pc_w\" -- \"$cur\"))\n"
	"\t\t[[ ${COMPREPLY[*]} == *= ]] && compopt -o nospace 2>/dev/null\n"
	"\t\treturn\n"
	"\tfi\n"
	"\t$fn operands\n"
	"\t_pagecliff_value \"$_pc_w\" \"$cur\"\n"
	"}\n"
	"complete -F _pagecliff pagecliff\n";

int completion_print(const char *shell, const struct cmd_entry *const *cmds, size_t n,
		     FILE *out)
{
	if (strcmp(shell, "bash"))
		return -1;
	fputs("# bash completion for pagecliff(1), printed by `pagecliff __completion bash`\n"
	      "# from the command's own table of commands and options.\n\n"
	      "_pagecliff_commands='", out);
	for (size_t i = 0; i < n; i++)
		fprintf(out, "%s%s", i ? " " : "", cmds[i]->name);
	fputs("'\n\n", out);
	for (size_t i = 0; i < n; i++)
		put_command(out, cmds[i]);
	fputs(driver, out);
	return 0;
}
