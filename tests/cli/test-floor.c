// SPDX-License-Identifier: MIT
/*
 * common/'s floor, byte for byte: /proc/PID/stat parsed with names that
 * hold blanks and parentheses, short and broken lines refused; small files
 * read whole, cut at the buffer, a number from one, a missing one's errno,
 * a large one into memory; the monotonic clock in both units.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clock.h"
#include "helpers.h"
#include "procstat.h"
#include "readfile.h"

/* A live kernel's line of 52 fields, and one of a test's fixtures. */
static const char full[] =
	"4004 (a (b) c) S 3977 4004 4004 0 -1 4194560 3438 94010 0 3 7 2 107 33 20 0 5 0 "
	"49665 5255168 992 18446744073709551615 94849757200384 94849757989789 "
	"140733350964128 0 0 0 65536 4 1132560123 1 0 0 17 0 0 0 0 0 0 94849758223088 "
	"94849758271332 94850746863616 140733350972217 140733350972232 140733350972232 "
	"140733350973418 0\n";

static void test_procstat(void)
{
	struct pcc_procstat s = { .ppid = -7 };

	T_CHECK(!pcc_procstat_parse(full, PCC_STAT_STACK, &s), "a full line");
	T_CHECK(!strcmp(s.comm, "a (b) c") && s.state == 'S' && s.ppid == 3977,
		"name '%s', state %c, ppid %d", s.comm, s.state, s.ppid);
	T_CHECK(s.flags == 4194560 && s.utime == 7 && s.stime == 2 && s.threads == 5,
		"flags %u utime %llu stime %llu threads %u", s.flags,
		(unsigned long long)s.utime, (unsigned long long)s.stime, s.threads);
	T_CHECK(s.start == 49665 && s.code == 94849757200384ull && s.stack == 140733350964128ull,
		"start %llu code %llu stack %llu", (unsigned long long)s.start,
		(unsigned long long)s.code, (unsigned long long)s.stack);

	/* A zombie's line up to starttime: enough for the start, not the stack. */
	s.ppid = -7;
	T_CHECK(pcc_procstat_parse("7 (x) y) Z 1 7 7 0 -1 4227084 0 0 0 0 0 0 0 0 20 0 3 0 9",
				   PCC_STAT_STACK, &s) == -EINVAL && s.ppid == -7,
		"a line short of the stack refused, the result untouched");
	T_CHECK(!pcc_procstat_parse("7 (x) y) Z 1 7 7 0 -1 4227084 0 0 0 0 0 0 0 0 20 0 3 0 9",
				    PCC_STAT_START, &s), "a zombie's line to starttime");
	T_CHECK(!strcmp(s.comm, "x) y") && s.state == 'Z' && s.threads == 3 && s.start == 9,
		"zombie: '%s' %c %u %llu", s.comm, s.state, s.threads,
		(unsigned long long)s.start);

	T_CHECK(pcc_procstat_parse("9 (short) S 1 9", PCC_STAT_PPID, &s) == 0 && s.ppid == 1,
		"a short line holds the ppid");
	T_CHECK(pcc_procstat_parse("9 (short) S 1 9", PCC_STAT_STIME, &s) == -EINVAL,
		"a short line has no stime");
	T_CHECK(pcc_procstat_parse("9 (nothing after)", PCC_STAT_PPID, &s) == -EINVAL,
		"no state");
	T_CHECK(pcc_procstat_parse("9 no name S 1", PCC_STAT_PPID, &s) == -EINVAL, "no name");
	T_CHECK(pcc_procstat_parse("9 (a) S x 1", PCC_STAT_PPID, &s) == -EINVAL,
		"a word where the ppid goes");
}

/* Our own /proc/self/stat agrees with getpid() and getppid(). */
static void test_procstat_self(void)
{
	char buf[1024], path[64];
	struct pcc_procstat s;
	int n;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)getpid());
	n = pcc_read_small(path, buf, sizeof(buf));
	T_CHECK(n > 0 && (size_t)n == strlen(buf), "read %s: %d", path, n);
	T_CHECK(!pcc_procstat_parse(buf, PCC_STAT_STACK, &s), "parse %s", buf);
	T_CHECK(s.ppid == (int)getppid() && s.state == 'R' && s.threads == 1,
		"ppid %d (want %d), state %c, threads %u", s.ppid, (int)getppid(), s.state,
		s.threads);
	T_CHECK(!strcmp(s.comm, "test-floor"), "name '%s'", s.comm);
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f || fputs(text, f) < 0 || fclose(f))
		t_fail("cannot write %s", path);
}

static void test_readfile(void)
{
	char path[4200], buf[8], *text;
	const char *dir = t_testdir();
	uint64_t v = 42;

	snprintf(path, sizeof(path), "%s/small", dir);
	write_file(path, "1234567890\n");
	T_CHECK(pcc_read_small(path, buf, sizeof(buf)) == 7 && !strcmp(buf, "1234567"),
		"cut at the buffer: '%s'", buf);
	T_CHECK(!pcc_read_u64(path, &v) && v == 1234567890, "number %llu",
		(unsigned long long)v);
	write_file(path, "none\n");
	v = 42;
	T_CHECK(pcc_read_u64(path, &v) == -EINVAL && v == 42, "no number: -EINVAL, untouched");
	snprintf(path, sizeof(path), "%s/missing", dir);
	T_CHECK(pcc_read_small(path, buf, sizeof(buf)) == -ENOENT, "missing: -ENOENT");
	T_CHECK(pcc_read_u64(path, &v) == -ENOENT, "missing number: -ENOENT");
	T_CHECK(pcc_read_all(path, &text) == -ENOENT, "missing whole: -ENOENT");
	T_CHECK(pcc_read_small(dir, buf, sizeof(buf)) == -EISDIR, "a folder: -EISDIR");

	/* Past the first 8 KiB the whole reader grows its buffer. */
	snprintf(path, sizeof(path), "%s/large", dir);
	{
		FILE *f = fopen(path, "w");

		for (int i = 0; f && i < 5000; i++)
			fprintf(f, "%04d\n", i);
		if (!f || fclose(f))
			t_fail("cannot write %s", path);
	}
	T_CHECK(!pcc_read_all(path, &text), "read %s", path);
	T_CHECK(strlen(text) == 25000 && !strncmp(text, "0000\n0001\n", 10) &&
		!strcmp(text + 24995, "4999\n"), "%zu bytes", strlen(text));
	free(text);
}

static void test_clock(void)
{
	uint64_t ns = pcc_now_ns();
	double sec = pcc_now_sec();
	uint64_t ns2;

	usleep(20000);
	ns2 = pcc_now_ns();
	T_CHECK(ns2 - ns >= 20000000u, "20 ms slept: %llu ns passed",
		(unsigned long long)(ns2 - ns));
	T_CHECK(sec >= (double)ns / 1e9 && sec <= (double)ns2 / 1e9,
		"seconds %.9f between %llu and %llu ns", sec, (unsigned long long)ns,
		(unsigned long long)ns2);
}

int main(void)
{
	test_procstat();
	test_procstat_self();
	test_readfile();
	test_clock();
	printf("PASS: common floor: /proc/PID/stat, small and whole files, the clock\n");
	return 0;
}
