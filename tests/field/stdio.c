// SPDX-License-Identifier: MIT
/*
 * field-stdio: programs that read and write files the way most C programs
 * do, through stdio with its default buffers.  For the field suite
 * (tests/field/field.sh): the shim must follow them at the cost of a few
 * system calls per batch, not per buffer.
 *
 *   field-stdio write PATH MIB   fprintf, fputs, fwrite and putc into a
 *                                fopen("w") stream, closed with fclose:
 *                                MIB MiB (to a whole line) of fixed text
 *   field-stdio fread PATH       fread() in 4 KiB pieces
 *   field-stdio getc PATH        getc() a byte at a time
 *
 * The readers print the file's length and a checksum of its bytes.  Exits 0,
 * or 1 with one line when a call fails, 2 on bad usage.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int write_lines(FILE *fp, unsigned long long want)
{
	unsigned long long done = 0, i = 0;

	while (done < want) {
		int n = fprintf(fp, "%llu\t", i);

		if (n < 0 || fputs("a line of text\t", fp) < 0 ||
		    fwrite("0123456789abcdef", 1, 16, fp) != 16 || putc('\n', fp) == EOF)
			return -1;
		done += (unsigned long long)n + 15 + 16 + 1;
		i++;
	}
	return 0;
}

static int do_write(const char *path, const char *mib_arg)
{
	unsigned long long mib = strtoull(mib_arg, NULL, 10);
	FILE *fp = fopen(path, "w");

	if (!fp || write_lines(fp, mib << 20) || fclose(fp)) {
		fprintf(stderr, "field-stdio: cannot write '%s': %s\n", path, strerror(errno));
		return 1;
	}
	return 0;
}

/* A checksum that sees every byte and its place (Fletcher-64 style). */
static void sum_bytes(const unsigned char *b, size_t n, uint64_t *a, uint64_t *c)
{
	for (size_t i = 0; i < n; i++) {
		*a += b[i];
		*c += *a;
	}
}

static int do_read(const char *path, int by_char)
{
	unsigned char buf[4096];
	uint64_t a = 0, c = 0, len = 0;
	FILE *fp = fopen(path, "r");
	size_t n;
	int ch;

	if (!fp) {
		fprintf(stderr, "field-stdio: cannot open '%s': %s\n", path, strerror(errno));
		return 1;
	}
	if (by_char) {
		while ((ch = getc(fp)) != EOF) {
			buf[0] = (unsigned char)ch;
			sum_bytes(buf, 1, &a, &c);
			len++;
		}
	} else {
		while ((n = fread(buf, 1, sizeof(buf), fp)) > 0) {
			sum_bytes(buf, n, &a, &c);
			len += n;
		}
	}
	if (ferror(fp) || fclose(fp)) {
		fprintf(stderr, "field-stdio: cannot read '%s': %s\n", path, strerror(errno));
		return 1;
	}
	printf("%llu %llx %llx\n", (unsigned long long)len, (unsigned long long)a,
	       (unsigned long long)c);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "write") && strtoull(argv[3], NULL, 10))
		return do_write(argv[2], argv[3]);
	if (argc == 3 && (!strcmp(argv[1], "fread") || !strcmp(argv[1], "getc")))
		return do_read(argv[2], argv[1][0] == 'g');
	fprintf(stderr, "usage: field-stdio write PATH MIB | fread PATH | getc PATH\n");
	return 2;
}
