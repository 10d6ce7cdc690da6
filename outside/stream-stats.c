// SPDX-License-Identifier: MIT
/*
 * A followed stream's --stats line, in the words the shim uses too
 * (common/policy.h), saying who acted: the watcher, on which process.
 */
#include <inttypes.h>
#include <stdio.h>
#include <unistd.h>

#include "internal.h"
#include "policy.h"
#include "stream-parts.h"

/*
 * A writer's dropped bytes, or that they cannot be told: where the kernel
 * hides residency nothing tells the writer's pages from others', and what
 * left the cache is not counted.
 */
static const char *writer_dropped(const struct pco_stream *s, char *buf, size_t size)
{
	if (s->unknown || (s->have_fl && (s->fl.res.how == PCL_RES_UNKNOWN || s->fl.bytes_unknown)))
		return "(residency unknown)";
	snprintf(buf, size, "%" PRIu64, s->fl.bytes_dropped + s->dropped);
	return buf;
}

static size_t reader_line(const struct pco_stream *s, char *line, size_t size)
{
	char mode[64], dropped[48];

	snprintf(mode, sizeof(mode), "dropbehind (outside, pid %d)", (int)s->pid);
	snprintf(dropped, sizeof(dropped), "%" PRIu64 "%s", s->drop.bytes_evicted + s->dropped,
		 s->drop.bytes_unknown ? " (residency unknown)" : "");
	return policy_read_line(line, size, &(struct policy_read_stats){
		.path = s->path, .bytes = s->bytes, .runs = s->runs, .seeks = s->seeks,
		.mode = mode, .uncached = 0, .dropped = dropped,
		.kept = s->drop.bytes_kept + s->kept, .syscalls = s->drop.syscalls + s->syscalls });
}

static size_t writer_line(const struct pco_stream *s, char *line, size_t size)
{
	char mode[64], early[48], num[32];

	snprintf(mode, sizeof(mode), "writebehind (outside, pid %d)", (int)s->pid);
	snprintf(early, sizeof(early), "%" PRIu64 " bytes written back early",
		 s->fl.bytes_flushed + s->flushed);
	return policy_write_line(line, size, &(struct policy_write_stats){
		.path = s->path, .bytes = s->bytes, .runs = s->runs, .mode = mode,
		.early = early, .dropped = writer_dropped(s, num, sizeof(num)),
		.kept = s->fl.bytes_kept + s->kept, .errors = 0,
		.syscalls = s->fl.syscalls + s->syscalls });
}

void pco_stream_stats(const struct pco_stream *s, const struct pco_ctx *c)
{
	char line[600];
	size_t n = 0;

	if (pco_state_reader(s->state) && s->have_drop)
		n = reader_line(s, line, sizeof(line));
	else if (pco_state_writer(s->state))
		n = writer_line(s, line, sizeof(line));
	if (n && write(c->stats_fd, line, n) < 0)
		return;
}
