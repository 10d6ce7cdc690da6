// SPDX-License-Identifier: MIT
/*
 * pagecliff doctor: diagnose this host for the page-cache cliff.  Reads
 * /proc and /sys (through sample.c), probes RWF_DONTCACHE and friends on a
 * temp file per file system and times the copy at two buffer alignments;
 * prints the answer to "is there any tuning?" (what to do, in order, each
 * with its finding), then the findings (ok, warn, info) with evidence.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd.h"
#include "doctor.h"
#include "quote.h"
#include "util.h"

struct doctor_args {
	const char **paths;
	size_t npaths;
	int json;
	int probe;
	unsigned int sample_ms;
	const char *root;
};

enum { OPT_NO_PROBE = CMD_LONG, OPT_SAMPLE_MS, OPT_ROOT };

static const struct cmd_option doctor_options[] = {
	{ "path", 'p', CMD_ARG_REQUIRED, "PATH",
	  "probe the file system of PATH (a directory gets a temp\n"
	  "file, a file is only read); repeatable; default: every\n"
	  "writable mounted file system" },
	{ "json", 'j', CMD_ARG_NONE, NULL, "one JSON object instead of text" },
	{ "no-probe", OPT_NO_PROBE, CMD_ARG_NONE, NULL,
	  "no temp files: skip the DONTCACHE probes and copy test" },
	{ "sample-ms", OPT_SAMPLE_MS, CMD_ARG_REQUIRED, "MS",
	  "watch reclaim and pressure for MS ms (default 1000)" },
	{ "root", OPT_ROOT, CMD_ARG_REQUIRED, "DIR",
	  "read /proc and /sys under DIR (tests); implies --no-probe" },
	{ 0 },
};

/*
 * A --path must exist and be readable: a file is probed read-only, a
 * directory listed for its file system; what cannot be read is an error
 * (exit 1), not a finding.
 */
static void add_path(struct doctor_args *a, const char *path)
{
	struct stat st;
	const char **n;
	int fd;

	if (stat(path, &st))
		die("cannot access %s: %s", quote_name(path), strerror(errno));
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK |
		  (S_ISDIR(st.st_mode) ? O_DIRECTORY : 0));
	if (fd < 0)
		die("cannot read %s: %s", quote_name(path), strerror(errno));
	close(fd);
	n = realloc(a->paths, (a->npaths + 1) * sizeof(*n));
	if (!n)
		die("out of memory");
	n[a->npaths++] = path;
	a->paths = n;
}

/* --root must be a directory: a typo would read nothing and look fine. */
static void check_root(const char *root)
{
	struct stat st;

	if (stat(root, &st))
		die("cannot access --root %s: %s", quote_name(root), strerror(errno));
	if (!S_ISDIR(st.st_mode))
		die("bad --root %s: not a directory", quote_name(root));
}

static void doctor_option(void *state, int key, const char *arg)
{
	struct doctor_args *a = state;
	uint64_t v;

	switch (key) {
	case 'p':
		add_path(a, arg);
		break;
	case 'j':
		a->json = 1;
		break;
	case OPT_NO_PROBE:
		a->probe = 0;
		break;
	case OPT_SAMPLE_MS:
		if (parse_uint(arg, 0, 60000, &v))
			usage_error("bad --sample-ms '%s': want 0 to 60000", arg);
		a->sample_ms = (unsigned int)v;
		break;
	case OPT_ROOT:
		a->root = arg;
		a->probe = 0;
		break;
	}
}

static int cmd_doctor(int argc, char **argv)
{
	struct doctor_args a = { .probe = 1, .sample_ms = 1000 };
	struct doctor d = { 0 };
	struct doctor_step steps[DOCTOR_MAX_STEPS];
	size_t nsteps;

	cmd_parse(&cmd_doctor_entry, argc, argv, &a);
	if (a.root)
		check_root(a.root);
	d.root = a.root;
	d.live = a.probe;
	d.now_ms = a.sample_ms;
	doctor_facts_init(&d.facts);
	doctor_check_kernel(&d);
	doctor_check_memory(&d);
	doctor_check_reclaim(&d);
	doctor_check_cgroup(&d);
	doctor_check_block(&d, a.root ? NULL : a.paths, a.root ? 0 : a.npaths);
	if (a.probe)
		doctor_probe_fs(&d, a.paths, a.npaths);
	doctor_check_now(&d);
	doctor_check_virt(&d);
	if (a.probe)
		doctor_probe_copy(&d);
	if (d.oom)
		warning("out of memory: some findings are missing");
	nsteps = doctor_answer(&d.facts, steps);
	if (a.json)
		doctor_print_json(&d, steps, nsteps, stdout);
	else
		doctor_print_text(&d, steps, nsteps, stdout);
	doctor_release(&d);
	free(a.paths);
	if (fflush(stdout)) {
		error("cannot write to stdout: %s", strerror(errno));
		return 1;
	}
	return 0;
}

const struct cmd_entry cmd_doctor_entry = {
	.name = "doctor",
	.summary = "diagnose this host for the page-cache cliff",
	.usage = "[--path PATH]... [--json] [--no-probe] [--sample-ms MS]",
	.about = "Diagnose this host for the page-cache cliff.  Opens with the answer to\n"
		 "\"is there any tuning?\": what to do here, in order, each with the finding\n"
		 "and figure behind it.  Then the findings: kernel features, memory and\n"
		 "vm settings, memory cgroup, block devices, pressure and reclaim now,\n"
		 "virtual-machine effects, RWF_DONTCACHE per file system, copy speed by\n"
		 "buffer alignment.  Read-only: probes use temp files it removes.",
	.options = doctor_options,
	.width = 17,
	.option = doctor_option,
	.exec = cmd_doctor,
};
