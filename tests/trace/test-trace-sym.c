// SPDX-License-Identifier: MIT
/*
 * Symbolization for lock-wait callers: a fixture kallsyms (lookups, module
 * and [bpf] lines, the lock and scheduler text ranges, the first frame
 * outside the lock functions), hidden addresses (-EPERM, as non-root sees
 * them), and the live /proc/kallsyms as root.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "helpers.h"
#include "sample.h"
#include "trace.h"

static struct trace_ksyms *load_fixture(const char *dir, const char *name, int *ret_err)
{
	char path[4096], *text;
	struct trace_ksyms *k = NULL;

	snprintf(path, sizeof(path), "%s/tests/trace/fixtures/%s", dir, name);
	T_CHECK(!sample_slurp(NULL, path, &text), "cannot read %s\n", path);
	*ret_err = trace_ksyms_parse(text, &k);
	free(text);
	return k;
}

static void check_fixture(const char *src)
{
	const uint64_t stack[] = {
		0xffffffffc0001040,	/* the BPF program */
		0xffffffff81100410,	/* native_queued_spin_lock_slowpath */
		0xffffffff81300020,	/* _raw_spin_lock_irqsave, in the lock text */
		0xffffffff81100250,	/* __remove_mapping: the caller */
		0xffffffff81100610,	/* shrink_folio_list */
	};
	uint64_t off = 0;
	int err;
	struct trace_ksyms *k = load_fixture(src, "kallsyms", &err);
	const char *name;

	T_CHECK(!err && k, "parse: %d\n", err);
	name = trace_ksyms_find(k, 0xffffffff81100210, &off);
	T_CHECK(name && !strcmp(name, "__remove_mapping") && off == 0x10, "%s+%" PRIx64 "\n",
		name ? name : "(null)", off);
	name = trace_ksyms_find(k, 0xffffffff81100200, &off);
	T_CHECK(name && !strcmp(name, "__remove_mapping") && off == 0, "exact\n");
	T_CHECK(!trace_ksyms_find(k, 0xffffffff80000000, &off), "below the first symbol\n");
	name = trace_ksyms_find(k, 0xffffffffc0002008, &off);
	T_CHECK(name && !strcmp(name, "xfs_file_read_iter"), "module symbol: %s\n",
		name ? name : "(null)");
	T_CHECK(trace_ksyms_addr(k, "__remove_mapping") == 0xffffffff81100200, "by name\n");
	T_CHECK(!trace_ksyms_addr(k, "some_data") && !trace_ksyms_addr(k, "__remove_mappin"),
		"data and a prefix are no function\n");
	T_CHECK(trace_ksyms_is_lock(k, 0xffffffff81300010), "lock text\n");
	T_CHECK(trace_ksyms_is_lock(k, 0xffffffff81200180), "sched text\n");
	T_CHECK(trace_ksyms_is_lock(k, 0xffffffff81100400), "slowpath by name\n");
	T_CHECK(trace_ksyms_is_lock(k, 0xffffffffc0001000), "bpf program\n");
	T_CHECK(!trace_ksyms_is_lock(k, 0xffffffff81100200), "__remove_mapping is a caller\n");
	T_CHECK(!trace_ksyms_is_lock(k, 0xffffffff81100800), "folio_lruvec_lock_irqsave\n");
	T_CHECK(trace_caller_frame(k, stack, 5) == 3, "caller frame %d\n",
		trace_caller_frame(k, stack, 5));
	T_CHECK(trace_caller_frame(k, stack, 3) == -1, "all lock frames\n");
	trace_ksyms_free(k);
	k = load_fixture(src, "kallsyms-hidden", &err);
	T_CHECK(err == -EPERM && !k, "hidden addresses: %d\n", err);
}

/* The address of @sym in @text ("ADDR T sym"), 0 when absent. */
static uint64_t addr_of(const char *text, const char *sym)
{
	char pat[128];
	const char *p;

	snprintf(pat, sizeof(pat), " T %s\n", sym);
	p = strstr(text, pat);
	if (!p)
		return 0;
	while (p > text && p[-1] != '\n')
		p--;
	return strtoull(p, NULL, 16);
}

static void check_live(void)
{
	struct trace_ksyms *k;
	uint64_t addr, off = 0, lock;
	const char *name;
	char *text;
	int err;

	if (geteuid()) {
		err = trace_ksyms_load(NULL, &k);
		T_CHECK(err == -EPERM || (!err && (trace_ksyms_free(k), 1)), "non-root: %d\n", err);
		printf("not root: live kallsyms checked for hidden addresses only\n");
		return;
	}
	T_CHECK(!sample_slurp(NULL, "/proc/kallsyms", &text), "cannot read /proc/kallsyms\n");
	addr = addr_of(text, "vfs_read");
	lock = addr_of(text, "_raw_spin_lock_irqsave");
	free(text);
	T_CHECK(addr && lock, "vfs_read or _raw_spin_lock_irqsave missing from kallsyms\n");
	T_CHECK(!trace_ksyms_load(NULL, &k), "load\n");
	name = trace_ksyms_find(k, addr + 4, &off);
	T_CHECK(name && off == 4, "vfs_read+4: %s+%" PRIx64 "\n", name ? name : "(null)", off);
	T_CHECK(!strcmp(name, "vfs_read") || trace_ksyms_find(k, addr, NULL) == name,
		"vfs_read resolved as %s\n", name);
	T_CHECK(trace_ksyms_is_lock(k, lock + 1), "_raw_spin_lock_irqsave is a lock function\n");
	T_CHECK(!trace_ksyms_is_lock(k, addr), "vfs_read is not\n");
	trace_ksyms_free(k);
}

int main(void)
{
	const char *src = getenv("PAGECLIFF_SRCDIR");

	if (!src)
		t_skip("PAGECLIFF_SRCDIR is not set (run through meson test)");
	check_fixture(src);
	check_live();
	printf("PASS: symbolization\n");
	return 0;
}
