// SPDX-License-Identifier: MIT
/*
 * pagecliff doctor: diagnose this host for the page-cache cliff.  Reads
 * /proc and /sys (through sample.c), probes RWF_DONTCACHE and friends on a
 * temp file per file system and times the copy at two buffer alignments;
 * prints findings (ok, warn, info) with evidence and what to do.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmds.h"
#include "doctor.h"
#include "quote.h"
#include "util.h"

static const char doctor_usage[] =
	"usage: pagecliff doctor [--path PATH]... [--json] [--no-probe] [--sample-ms MS]\n"
	"\n"
	"Diagnose this host for the page-cache cliff: kernel features, memory and\n"
	"vm settings, memory cgroup, block devices, pressure and reclaim now,\n"
	"virtual-machine effects, RWF_DONTCACHE per file system, copy speed by\n"
	"buffer alignment.  Read-only: probes use temp files it removes.\n"
	"\n"
	"  -p, --path PATH    probe the file system of PATH (a directory gets a temp\n"
	"                     file, a file is only read); repeatable; default: every\n"
	"                     writable mounted file system\n"
	"  -j, --json         one JSON object instead of text\n"
	"      --no-probe     no temp files: skip the DONTCACHE probes and copy test\n"
	"      --sample-ms MS watch reclaim and pressure for MS ms (default 1000)\n"
	"      --root DIR     read /proc and /sys under DIR (tests); implies --no-probe\n"
	"  -h, --help         this text\n";

struct doctor_args {
	const char **paths;
	size_t npaths;
	int json;
	int probe;
	unsigned int sample_ms;
	const char *root;
};

enum { OPT_NO_PROBE = 256, OPT_SAMPLE_MS, OPT_ROOT };

static const struct option doctor_options[] = {
	{ "path", required_argument, NULL, 'p' },
	{ "json", no_argument, NULL, 'j' },
	{ "no-probe", no_argument, NULL, OPT_NO_PROBE },
	{ "sample-ms", required_argument, NULL, OPT_SAMPLE_MS },
	{ "root", required_argument, NULL, OPT_ROOT },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
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

static void parse_args(int argc, char **argv, struct doctor_args *a)
{
	uint64_t v;
	int c;

	while ((c = getopt_long(argc, argv, "p:jh", doctor_options, NULL)) != -1) {
		switch (c) {
		case 'p':
			add_path(a, optarg);
			break;
		case 'j':
			a->json = 1;
			break;
		case OPT_NO_PROBE:
			a->probe = 0;
			break;
		case OPT_SAMPLE_MS:
			if (parse_uint(optarg, 0, 60000, &v))
				usage_error("bad --sample-ms '%s': want 0 to 60000", optarg);
			a->sample_ms = (unsigned int)v;
			break;
		case OPT_ROOT:
			a->root = optarg;
			a->probe = 0;
			break;
		case 'h':
			fputs(doctor_usage, stdout);
			exit(0);
		default:
			fputs(doctor_usage, stderr);
			exit(EXIT_USAGE);
		}
	}
	if (optind < argc)
		usage_error("unexpected argument '%s'; see 'pagecliff doctor --help'",
			    argv[optind]);
	if (a->root)
		check_root(a->root);
}

int cmd_doctor(int argc, char **argv)
{
	struct doctor_args a = { .probe = 1, .sample_ms = 1000 };
	struct doctor d = { 0 };

	parse_args(argc, argv, &a);
	d.root = a.root;
	d.live = a.probe;
	d.now_ms = a.sample_ms;
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
	if (a.json)
		doctor_print_json(&d, stdout);
	else
		doctor_print_text(&d, stdout);
	doctor_release(&d);
	free(a.paths);
	if (fflush(stdout)) {
		error("cannot write to stdout: %s", strerror(errno));
		return 1;
	}
	return 0;
}
