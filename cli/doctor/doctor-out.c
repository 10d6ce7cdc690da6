// SPDX-License-Identifier: MIT
/*
 * doctor's findings list and its two outputs: text for people, JSON for
 * scripts (one object, findings in the order they were made).
 */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "doctor.h"

struct finding *doctor_add(struct doctor *d, enum doctor_level level,
			   const char *area, const char *id, const char *fmt, ...)
{
	struct finding *f;
	va_list ap;

	if (d->count == d->cap) {
		size_t cap = d->cap ? d->cap * 2 : 32;
		struct finding *n = realloc(d->findings, cap * sizeof(*n));

		if (!n) {
			d->oom = 1;
			return NULL;
		}
		d->findings = n;
		d->cap = cap;
	}
	f = &d->findings[d->count++];
	memset(f, 0, sizeof(*f));
	f->level = level;
	snprintf(f->area, sizeof(f->area), "%s", area);
	snprintf(f->id, sizeof(f->id), "%s", id);
	va_start(ap, fmt);
	vsnprintf(f->title, sizeof(f->title), fmt, ap);
	va_end(ap);
	return f;
}

void finding_evidence(struct finding *f, const char *fmt, ...)
{
	va_list ap;

	if (!f)
		return;
	va_start(ap, fmt);
	vsnprintf(f->evidence, sizeof(f->evidence), fmt, ap);
	va_end(ap);
}

void finding_action(struct finding *f, const char *fmt, ...)
{
	va_list ap;

	if (!f)
		return;
	va_start(ap, fmt);
	vsnprintf(f->action, sizeof(f->action), fmt, ap);
	va_end(ap);
}

void doctor_release(struct doctor *d)
{
	free(d->findings);
	d->findings = NULL;
	d->count = d->cap = 0;
}

const char *doctor_level_name(enum doctor_level level)
{
	switch (level) {
	case DOCTOR_OK:
		return "ok";
	case DOCTOR_WARN:
		return "warn";
	default:
		return "info";
	}
}

static void count_levels(const struct doctor *d, size_t n[3])
{
	n[0] = n[1] = n[2] = 0;
	for (size_t i = 0; i < d->count; i++)
		n[d->findings[i].level]++;
}

/* Areas in the order they are printed; findings keep their order inside. */
static const char *const areas[] = {
	"kernel", "memory", "block", "fs", "now", "vm", "copy", NULL,
};

void doctor_print_text(const struct doctor *d, FILE *out)
{
	size_t n[3];
	int first = 1;

	for (const char *const *area = areas; *area; area++) {
		int header = 0;

		for (size_t i = 0; i < d->count; i++) {
			const struct finding *f = &d->findings[i];

			if (strcmp(*area, f->area))
				continue;
			if (!header++)
				fprintf(out, "%s%s\n", first ? "" : "\n", *area);
			first = 0;
			fprintf(out, "  %-6s %s\n", doctor_level_name(f->level), f->title);
			if (f->evidence[0])
				fprintf(out, "         evidence: %s\n", f->evidence);
			if (f->action[0])
				fprintf(out, "         do: %s\n", f->action);
		}
	}
	count_levels(d, n);
	fprintf(out, "\n%zu ok, %zu warn, %zu info\n", n[DOCTOR_OK],
		n[DOCTOR_WARN], n[DOCTOR_INFO]);
}

void json_string(FILE *out, const char *s)
{
	fputc('"', out);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(out, "\\%c", *p);
		else if (*p == '\n')
			fputs("\\n", out);
		else if (*p == '\t')
			fputs("\\t", out);
		else if (*p < 0x20 || *p == 0x7f)
			fprintf(out, "\\u%04x", *p);
		else
			fputc(*p, out);
	}
	fputc('"', out);
}

void json_number(FILE *out, double v, int decimals)
{
	if (!isfinite(v))
		fputs("null", out);
	else
		fprintf(out, "%.*f", decimals, v);
}

static void print_json_finding(const struct finding *f, FILE *out)
{
	fputs("    {\"id\": ", out);
	json_string(out, f->id);
	fputs(", \"area\": ", out);
	json_string(out, f->area);
	fprintf(out, ", \"status\": \"%s\", \"title\": ", doctor_level_name(f->level));
	json_string(out, f->title);
	fputs(", \"evidence\": ", out);
	json_string(out, f->evidence);
	fputs(", \"action\": ", out);
	json_string(out, f->action);
	fputs("}", out);
}

void doctor_print_json(const struct doctor *d, FILE *out)
{
	size_t n[3];

	count_levels(d, n);
	fprintf(out, "{\n  \"version\": 1,\n  \"summary\": {\"ok\": %zu, \"warn\": %zu, "
		"\"info\": %zu},\n  \"findings\": [\n", n[DOCTOR_OK],
		n[DOCTOR_WARN], n[DOCTOR_INFO]);
	for (size_t i = 0; i < d->count; i++) {
		print_json_finding(&d->findings[i], out);
		fputs(i + 1 < d->count ? ",\n" : "\n", out);
	}
	fputs("  ]\n}\n", out);
}
