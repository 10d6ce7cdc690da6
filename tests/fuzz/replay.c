// SPDX-License-Identifier: MIT
/*
 * Run a libFuzzer target over its corpus without libFuzzer, so that any
 * compiler's build checks the corpus as a regression test: each argument is
 * a file or a folder of files, each file one input.  A failing input aborts.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	size_t size = 0, cap = 0, n;

	if (!f) {
		fprintf(stderr, "FAIL: cannot open '%s'\n", path);
		return -1;
	}
	do {
		if (size == cap) {
			uint8_t *nb = realloc(buf, cap = cap ? 2 * cap : 4096);

			if (!nb) {
				free(buf);
				fclose(f);
				return -1;
			}
			buf = nb;
		}
		n = fread(buf + size, 1, cap - size, f);
		size += n;
	} while (n);
	fclose(f);
	/* An exact-size copy, so the sanitizers see reads past the end. */
	uint8_t *in = malloc(size ? size : 1);

	if (in) {
		memcpy(in, buf, size);
		LLVMFuzzerTestOneInput(in, size);
	}
	free(in);
	free(buf);
	return in ? 0 : -1;
}

int main(int argc, char **argv)
{
	unsigned int runs = 0;
	int failed = 0;

	for (int i = 1; i < argc; i++) {
		struct stat st;
		DIR *d;
		struct dirent *e;

		if (stat(argv[i], &st) || !S_ISDIR(st.st_mode)) {
			failed |= run_file(argv[i]);
			runs++;
			continue;
		}
		d = opendir(argv[i]);
		while (d && (e = readdir(d))) {
			char path[4096];

			if (e->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), "%s/%s", argv[i], e->d_name);
			failed |= run_file(path);
			runs++;
		}
		if (d)
			closedir(d);
	}
	printf("%u inputs replayed\n", runs);
	if (!runs)
		fprintf(stderr, "FAIL: no inputs\n");
	return failed || !runs;
}
