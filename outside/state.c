// SPDX-License-Identifier: MIT
/*
 * The watcher's stream states: the table of legal edges, and the one
 * function every change of state goes through (state.h).
 */
#include <errno.h>
#include <stddef.h>

#include "state.h"

static const struct edge {
	unsigned char from, ev, to;
} edges[] = {
	{ PCO_CANDIDATE, PCO_EV_UNFIT, PCO_SKIP },
	{ PCO_CANDIDATE, PCO_EV_REFUSED, PCO_SKIP },
	{ PCO_CANDIDATE, PCO_EV_AT_END, PCO_APPENDING },
	{ PCO_CANDIDATE, PCO_EV_READ_RUN, PCO_READER },
	{ PCO_CANDIDATE, PCO_EV_WRITE_RUN, PCO_WRITER },
	{ PCO_CANDIDATE, PCO_EV_APPEND_RUN, PCO_APPENDER },
	{ PCO_CANDIDATE, PCO_EV_CACHE_RUN, PCO_RESIDENT },
	{ PCO_CANDIDATE, PCO_EV_WARM, PCO_SKIP },
	/* a read-write descriptor at the end of its file may pass it reading */
	{ PCO_APPENDING, PCO_EV_REFUSED, PCO_SKIP },
	{ PCO_APPENDING, PCO_EV_READ_RUN, PCO_READER },
	{ PCO_APPENDING, PCO_EV_WRITE_RUN, PCO_WRITER },
	{ PCO_APPENDING, PCO_EV_APPEND_RUN, PCO_APPENDER },
	{ PCO_APPENDING, PCO_EV_CLOSED, PCO_APPENDER },
	{ PCO_APPENDER, PCO_EV_WENT_BACK, PCO_WRITER },
	{ PCO_READER, PCO_EV_HANDOFF, PCO_SKIP },
	{ PCO_RESIDENT, PCO_EV_HANDOFF, PCO_SKIP },
	{ PCO_WRITER, PCO_EV_HANDOFF, PCO_SKIP },
	{ PCO_APPENDER, PCO_EV_HANDOFF, PCO_SKIP },
};

int pco_state_next(enum pco_state from, enum pco_event ev)
{
	for (size_t i = 0; i < sizeof(edges) / sizeof(edges[0]); i++)
		if (edges[i].from == from && edges[i].ev == ev)
			return edges[i].to;
	return -EINVAL;
}

int pco_state_step(enum pco_state *st, enum pco_event ev)
{
	int to = pco_state_next(*st, ev);

	if (to < 0)
		return to;
	*st = to;
	return 0;
}

const char *pco_state_name(enum pco_state st)
{
	static const char *const names[PCO_STATES] = {
		[PCO_CANDIDATE] = "candidate", [PCO_APPENDING] = "appending",
		[PCO_READER] = "reader", [PCO_RESIDENT] = "resident", [PCO_WRITER] = "writer",
		[PCO_APPENDER] = "appender", [PCO_SKIP] = "skip",
	};

	return (unsigned int)st < PCO_STATES ? names[st] : "?";
}

const char *pco_event_name(enum pco_event ev)
{
	static const char *const names[PCO_EVENTS] = {
		[PCO_EV_UNFIT] = "unfit", [PCO_EV_REFUSED] = "refused", [PCO_EV_AT_END] = "at-end",
		[PCO_EV_READ_RUN] = "read-run", [PCO_EV_WRITE_RUN] = "write-run",
		[PCO_EV_APPEND_RUN] = "append-run", [PCO_EV_CACHE_RUN] = "cache-run",
		[PCO_EV_WARM] = "warm", [PCO_EV_CLOSED] = "closed", [PCO_EV_WENT_BACK] = "went-back",
		[PCO_EV_HANDOFF] = "handoff",
	};

	return (unsigned int)ev < PCO_EVENTS ? names[ev] : "?";
}
