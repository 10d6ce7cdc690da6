// SPDX-License-Identifier: MIT
/*
 * libFuzzer target for the /proc and /sys parsers (engine/sys/sample-parse.c).  The first
 * byte picks the parser (its value mod 16: stat, meminfo, vmstat, psi,
 * memory.stat v1, v2, diskstats, task stat, /proc/PID/cgroup, /proc/mounts,
 * task kind; the rest none), the rest is the file's text.  Besides the
 * sanitizers: the result is 0 or a negative errno, the disk table never
 * claims more than it holds, and a cgroup path or mount point found is a
 * string that fits.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sample.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(c) do { if (!(c)) abort(); } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sample_cpu cpu;
	struct sample_meminfo mem;
	struct sample_vmstat vm;
	struct sample_psi psi;
	struct sample_cgroup cg;
	struct sample_disks *disks;
	struct sample_task task;
	struct sample_task_kind kind;
	char state = 0, *text, path[64];
	int ret = 0;

	if (!size)
		return 0;
	text = malloc(size);	/* the text without the selector, NUL-terminated */
	disks = malloc(sizeof(*disks));
	if (!text || !disks)
		goto out;
	memcpy(text, data + 1, size - 1);
	text[size - 1] = 0;
	switch (data[0] % 16) {
	case 0: ret = sample_parse_stat(text, &cpu); break;
	case 1: ret = sample_parse_meminfo(text, &mem); break;
	case 2: ret = sample_parse_vmstat(text, &vm); break;
	case 3: ret = sample_parse_psi(text, &psi); break;
	case 4: ret = sample_parse_memcg_stat(text, 1, &cg); break;
	case 5: ret = sample_parse_memcg_stat(text, 2, &cg); break;
	case 6:
		ret = sample_parse_diskstats(text, disks);
		CHECK(ret || disks->count <= SAMPLE_MAX_DISKS);
		for (size_t i = 0; !ret && i < disks->count; i++)
			CHECK(memchr(disks->disk[i].name, 0, sizeof(disks->disk[i].name)));
		break;
	case 7: ret = sample_parse_task_stat(text, &task, &state); break;
	case 8:
	case 9:
		for (int v = 1; v <= 2; v++) {
			ret = data[0] % 16 == 8 ?
			      sample_parse_proc_cgroup(text, v, path, sizeof(path)) :
			      sample_parse_cgroup_mount(text, v, path, sizeof(path));
			CHECK(ret || memchr(path, 0, sizeof(path)));
			CHECK(ret <= 0 && ret > -4096);
		}
		break;
	case 10: ret = sample_parse_task_kind(text, &kind); break;
	}
	CHECK(ret <= 0 && ret > -4096);
out:
	free(text);
	free(disks);
	return 0;
}
