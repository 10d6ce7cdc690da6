// SPDX-License-Identifier: MIT
/*
 * doctor's findings list and its two outputs: text for people, JSON for
 * scripts (one object, findings in the order they were made); both open
 * with the answer (doctor-answer.c).
 */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "doctor.h"
#include "json.h"

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

/* The answer: is there any tuning here, and what, in order. */
static void print_answer(const struct doctor_step *steps, size_t nsteps, FILE *out)
{
	fprintf(out, "is there any tuning for the page-cache cliff here? %s\n",
		nsteps ? "yes, in this order:" : "nothing found to change");
	for (size_t i = 0; i < nsteps; i++) {
		fprintf(out, "  %zu. %s\n", i + 1, steps[i].what);
		if (steps[i].because[0])
			fprintf(out, "     because: %s\n", steps[i].because);
	}
	fputc('\n', out);
}

void doctor_print_text(const struct doctor *d, const struct doctor_step *steps,
		       size_t nsteps, FILE *out)
{
	size_t n[3];
	int first = 1;

	print_answer(steps, nsteps, out);
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

static void print_json_finding(struct json *j, const struct finding *f)
{
	json_object(j, NULL, 0);
	json_string(j, "id", f->id);
	json_string(j, "area", f->area);
	json_string(j, "status", doctor_level_name(f->level));
	json_string(j, "title", f->title);
	json_string(j, "evidence", f->evidence);
	json_string(j, "action", f->action);
	json_end(j);
}

void doctor_print_json(const struct doctor *d, const struct doctor_step *steps,
		       size_t nsteps, FILE *out)
{
	struct json j;
	size_t n[3];

	count_levels(d, n);
	json_init(&j, out);
	json_object(&j, NULL, 1);
	json_uint(&j, "version", 1);
	json_object(&j, "summary", 0);
	json_uint(&j, "ok", n[DOCTOR_OK]);
	json_uint(&j, "warn", n[DOCTOR_WARN]);
	json_uint(&j, "info", n[DOCTOR_INFO]);
	json_end(&j);
	json_array(&j, "answer", 1);
	for (size_t i = 0; i < nsteps; i++) {
		json_object(&j, NULL, 0);
		json_uint(&j, "step", i + 1);
		json_string(&j, "id", steps[i].id);
		json_string(&j, "do", steps[i].what);
		json_string(&j, "because", steps[i].because);
		json_end(&j);
	}
	json_end(&j);
	json_array(&j, "findings", 1);
	for (size_t i = 0; i < d->count; i++)
		print_json_finding(&j, &d->findings[i]);
	json_end(&j);
	json_end(&j);
}
