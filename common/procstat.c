// SPDX-License-Identifier: MIT
/* /proc/PID/stat's fields (procstat.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "procstat.h"

/* Field @field's value @v into @s, where @s keeps it. */
static void keep(struct pcc_procstat *s, int field, unsigned long long v)
{
	switch (field) {
	case 4: s->ppid = (int)v; break;
	case 9: s->flags = (unsigned int)v; break;
	case 14: s->utime = v; break;
	case 15: s->stime = v; break;
	case 20: s->threads = (unsigned int)v; break;
	case 22: s->start = v; break;
	case 26: s->code = v; break;
	case 28: s->stack = v; break;
	}
}

int pcc_procstat_parse(const char *text, int need, struct pcc_procstat *ret)
{
	const char *open = strchr(text, '('), *close = strrchr(text, ')'), *p;
	struct pcc_procstat s = { .state = 0 };
	int field;

	if (!open || !close || close < open)
		return -EINVAL;
	snprintf(s.comm, sizeof(s.comm), "%.*s", (int)(close - open - 1), open + 1);
	for (p = close + 1; *p == ' '; p++)
		;
	if (!*p || *p == '\n')
		return -EINVAL;
	s.state = *p++;
	for (field = 4; field <= PCC_STAT_STACK; field++) {
		char *end;
		unsigned long long v = strtoull(p, &end, 10);

		if (end == p)
			break;
		keep(&s, field, v);
		p = end;
	}
	if (field - 1 < need)
		return -EINVAL;
	*ret = s;
	return 0;
}
