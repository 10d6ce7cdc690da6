// SPDX-License-Identifier: MIT
/*
 * pagecliff bench's report of a run across hosts (pagecliff-mpi, rank 0),
 * in each format: the total over the ranks, who fell, then every host's own
 * report as plain bench writes it.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "bench.h"
#include "json.h"


/*
 * Across hosts (pagecliff-mpi, rank 0): the total of each interval is the
 * sum of the ranks' rows of that interval (the ranks start each phase
 * together and sample at the same interval), each host keeps its own
 * timeline and verdict, and a line per mode says which hosts fell.
 */
static const struct bench_phase *host_phase(const struct bench_host *h, unsigned int m)
{
	return h->run && h->run->phases[m].ran ? &h->run->phases[m] : NULL;
}

/* The phase's total per interval (malloc'ed, *ret_n rows) or NULL. */
static struct bench_row *total_rows(const struct bench_cluster *c, unsigned int m, size_t *ret_n)
{
	size_t n = 0;
	struct bench_row *rows;

	for (unsigned int h = 0; h < c->nhosts; h++) {
		const struct bench_phase *ph = host_phase(&c->hosts[h], m);

		if (ph && ph->nrows > n)
			n = ph->nrows;
	}
	*ret_n = 0;
	rows = n ? calloc(n, sizeof(*rows)) : NULL;
	if (!rows)
		return NULL;
	for (unsigned int h = 0; h < c->nhosts; h++) {
		const struct bench_phase *ph = host_phase(&c->hosts[h], m);

		for (size_t i = 0; ph && i < ph->nrows; i++)
			bench_row_add(&rows[i], &c->hosts[h].run->rows[ph->first_row + i]);
	}
	/* a rank done early adds nothing later: its bytes so far still count */
	for (size_t i = 1; i < n; i++)
		rows[i].bytes_total = rows[i - 1].bytes_total + rows[i].bytes;
	*ret_n = n;
	return rows;
}

/* Bytes and seconds of phase @m over all hosts. */
struct total {
	uint64_t bytes;
	double secs, gbps;
	unsigned int ran, fell;
};

static struct total phase_total(const struct bench_cluster *c, unsigned int m)
{
	struct total t = { 0 };

	for (unsigned int h = 0; h < c->nhosts; h++) {
		const struct bench_phase *ph = host_phase(&c->hosts[h], m);

		if (!ph)
			continue;
		t.bytes += ph->bytes;
		t.secs = fmax(t.secs, ph->secs);
		t.ran++;
		t.fell += ph->v.cliff;
	}
	t.gbps = t.secs > 0 ? t.bytes / t.secs / 1e9 : NAN;
	return t;
}

/* "buffered: vm2 (rank 1) fell after 0.48 GiB, the other 2 held". */
static void say_fallen(const struct bench_cluster *c, unsigned int m, const char *mode,
		       char *buf, size_t len)
{
	struct total t = phase_total(c, m);
	size_t n = snprintf(buf, len, "%s: ", mode);

	if (!t.fell) {
		snprintf(buf + n, len - n, "no host fell (%u held)", t.ran);
		return;
	}
	for (unsigned int h = 0, k = 0; h < c->nhosts && n < len; h++) {
		const struct bench_phase *ph = host_phase(&c->hosts[h], m);

		if (ph && ph->v.cliff)
			n += snprintf(buf + n, len - n, "%s%s (rank %d) fell after %.2f GiB",
				      k++ ? ", " : "", c->hosts[h].name, c->hosts[h].rank,
				      ph->det.at_gib);
	}
	if (n < len && t.ran > t.fell)
		snprintf(buf + n, len - n, ", the other %u held", t.ran - t.fell);
}

static void text_total(const struct bench_run *run, unsigned int m, FILE *out)
{
	const struct bench_cluster *c = run->cluster;
	struct total t = phase_total(c, m);
	size_t n;
	struct bench_row *rows = total_rows(c, m, &n);
	char a[32], line[1024];

	fprintf(out, "%-10s %10s %8.2f s %7.2f GB/s; per interval, GB/s:",
		pc_strategy_name(run->job.modes[m]), bench_size(t.bytes, a, sizeof(a)),
		t.secs, t.gbps);
	for (size_t i = 0; i < n; i++)
		fprintf(out, " %.2f", rows[i].gbps);
	fputc('\n', out);
	free(rows);
	say_fallen(c, m, pc_strategy_name(run->job.modes[m]), line, sizeof(line));
	fprintf(out, "  %s\n", line);
}

void bench_cluster_text(const struct bench_run *run, FILE *out)
{
	const struct bench_cluster *c = run->cluster;

	fprintf(out, "ranks: %u\n", c->nhosts);
	for (unsigned int h = 0; h < c->nhosts; h++)
		if (c->hosts[h].on_host > 1)
			fprintf(out, "rank %d: %s (%u ranks on this host)\n", c->hosts[h].rank,
				c->hosts[h].name, c->hosts[h].on_host);
		else
			fprintf(out, "rank %d: %s\n", c->hosts[h].rank, c->hosts[h].name);
	fprintf(out, "\ntotal over the ranks (bytes summed per interval):\n");
	for (unsigned int m = 0; m < run->job.nmodes; m++)
		if (run->phases[m].ran)
			text_total(run, m, out);
	if (c->failure[0])
		fprintf(out, "failed: %s; every rank's phase was stopped\n", c->failure);
	for (unsigned int h = 0; h < c->nhosts; h++) {
		fprintf(out, "\n== rank %d on %s", c->hosts[h].rank, c->hosts[h].name);
		if (c->hosts[h].on_host > 1)
			fprintf(out, " (one of %u ranks on this host)", c->hosts[h].on_host);
		fprintf(out, " ==\n");
		if (c->hosts[h].why[0])
			fprintf(out, "failed: %s\n", c->hosts[h].why);
		bench_report_text(c->hosts[h].run, out);
	}
}

/* The members a run across hosts adds to the JSON report of rank 0's run. */
static void json_cluster(struct json *j, const struct bench_run *run)
{
	const struct bench_cluster *c = run->cluster;
	char line[1024];

	json_number(j, "ranks", c->nhosts);
	json_string(j, "failure", c->failure);
	json_array(j, "fallen", 0);
	for (unsigned int m = 0; m < run->job.nmodes; m++) {
		if (!run->phases[m].ran)
			continue;
		say_fallen(c, m, pc_strategy_name(run->job.modes[m]), line, sizeof(line));
		json_string(j, NULL, line);
	}
	json_end(j);
	json_array(j, "total", 1);
	for (unsigned int m = 0; m < run->job.nmodes; m++) {
		struct total t = phase_total(c, m);
		size_t n;
		struct bench_row *rows;

		if (!run->phases[m].ran)
			continue;
		rows = total_rows(c, m, &n);
		json_object(j, NULL, 0);
		json_string(j, "mode", pc_strategy_name(run->job.modes[m]));
		json_number(j, "bytes", (double)t.bytes);
		json_number(j, "seconds", t.secs);
		json_number(j, "gbps_avg", t.gbps);
		json_number(j, "hosts_fell", t.fell);
		json_number(j, "hosts_held", t.ran - t.fell);
		json_array(j, "intervals", 0);
		for (size_t i = 0; i < n; i++)
			bench_json_row(j, run, &rows[i], 1);
		json_end(j);
		json_end(j);
		free(rows);
	}
	json_end(j);
	json_array(j, "hosts", 1);
	for (unsigned int h = 0; h < c->nhosts; h++) {
		json_object(j, NULL, 1);
		json_string(j, "host", c->hosts[h].name);
		json_number(j, "rank", c->hosts[h].rank);
		json_number(j, "ranks_on_host", c->hosts[h].on_host);
		json_string(j, "failure", c->hosts[h].why);
		bench_json_run(j, c->hosts[h].run);
		json_end(j);
	}
	json_end(j);
}

/* "HOST,RANK," (the host without quotes and commas) into @buf: a line's prefix. */
static const char *host_prefix(const struct bench_host *h, char *buf, size_t len)
{
	char name[sizeof(h->name)];
	size_t n = 0;

	for (const char *p = h->name; *p && n < sizeof(name) - 1; p++)
		if (*p != '"' && *p != ',')
			name[n++] = *p;
	name[n] = '\0';
	snprintf(buf, len, "%s,%d,", name, h->rank);
	return buf;
}

/* Each host's phases, then the total's: bytes, seconds, GB/s, who fell. */
void bench_cluster_csv(const struct bench_run *run, FILE *out)
{
	const struct bench_cluster *c = run->cluster;
	char prefix[96], line[1024];

	fputs("host,rank,", out);
	bench_csv_header(out);
	for (unsigned int h = 0; h < c->nhosts; h++)
		bench_csv_phases(c->hosts[h].run, host_prefix(&c->hosts[h], prefix, sizeof(prefix)),
				 out);
	for (unsigned int m = 0; m < run->job.nmodes; m++) {
		struct total t = phase_total(c, m);

		if (!run->phases[m].ran)
			continue;
		fprintf(out, "total,,%s,,,%llu,", pc_strategy_name(run->job.modes[m]),
			(unsigned long long)t.bytes);
		bench_csv_num(out, 3, t.secs, 1);
		bench_csv_num(out, 4, t.gbps, 1);
		fputs(",,,,,,,,,,,,,,,,,,,", out);
		say_fallen(c, m, pc_strategy_name(run->job.modes[m]), line, sizeof(line));
		bench_csv_str(out, line);
		fputs(",,", out);
		for (unsigned int i = 0; i < BENCH_NWORK; i++)
			fputc(',', out);	/* the work is each host's */
		fputc('\n', out);
	}
}

/* Each host's timeline, then the total per interval (host "total"). */
void bench_cluster_timeline(const struct bench_run *run, FILE *out)
{
	const struct bench_cluster *c = run->cluster;
	char prefix[96];

	fputs("host,rank,", out);
	bench_timeline_header(run, out);
	for (unsigned int h = 0; h < c->nhosts; h++)
		bench_csv_rows(c->hosts[h].run, c->hosts[h].run->rows, c->hosts[h].run->nrows,
			       host_prefix(&c->hosts[h], prefix, sizeof(prefix)), out);
	for (unsigned int m = 0; m < run->job.nmodes; m++) {
		size_t n;
		struct bench_row *rows = run->phases[m].ran ? total_rows(c, m, &n) : NULL;

		if (rows)
			bench_csv_rows(run, rows, n, "total,,", out);
		free(rows);
	}
}


void bench_cluster_json(const struct bench_run *run, FILE *out)
{
	bench_json_report(run, out, json_cluster);
}
