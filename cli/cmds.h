/* SPDX-License-Identifier: MIT */
/* The subcommands; main.c dispatches to them. */
#ifndef PC_CLI_CMDS_H
#define PC_CLI_CMDS_H

int cmd_cat(int argc, char **argv);
int cmd_cp(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_doctor(int argc, char **argv);
int cmd_watch(int argc, char **argv);
int cmd_run(int argc, char **argv);

#endif
