// SPDX-License-Identifier: MIT
/*
 * The watcher's stream states (outside/state.c): every legal edge, written
 * out here apart from the table it checks, takes its state where it should
 * through pco_state_step(); every other event is refused with -EINVAL and
 * leaves the state as it was; a stream's lives (a reader, a reader by
 * residency, an appender that closes between two looks, one that goes back)
 * run from their first sight to their hand-off.
 */
#include <errno.h>
#include <string.h>

#include "helpers.h"
#include "state.h"

#define C PCO_CANDIDATE
#define P PCO_APPENDING
#define R PCO_READER
#define S PCO_RESIDENT
#define W PCO_WRITER
#define A PCO_APPENDER
#define K PCO_SKIP
#define NO (-EINVAL)

/* expect[state][event]: where the event takes it; NO: refused. */
static const int expect[PCO_STATES][PCO_EVENTS] = {
	/*        unfit refused at-end read write append cache warm closed back handoff */
	[C] = {   K,    K,      P,     R,   W,    A,     S,    K,   NO,    NO,  NO },
	[P] = {   NO,   K,      NO,    R,   W,    A,     NO,   NO,  A,     NO,  NO },
	[R] = {   NO,   NO,     NO,    NO,  NO,   NO,    NO,   NO,  NO,    NO,  K },
	[S] = {   NO,   NO,     NO,    NO,  NO,   NO,    NO,   NO,  NO,    NO,  K },
	[W] = {   NO,   NO,     NO,    NO,  NO,   NO,    NO,   NO,  NO,    NO,  K },
	[A] = {   NO,   NO,     NO,    NO,  NO,   NO,    NO,   NO,  NO,    W,   K },
	[K] = {   NO,   NO,     NO,    NO,  NO,   NO,    NO,   NO,  NO,    NO,  NO },
};

/* Every (state, event): the edge taken, or refused with the state kept. */
static int check_all(void)
{
	int legal = 0;

	for (int st = 0; st < PCO_STATES; st++) {
		for (int ev = 0; ev < PCO_EVENTS; ev++) {
			enum pco_state s = st;
			int ret = pco_state_step(&s, ev);

			T_CHECK(pco_state_next(st, ev) == expect[st][ev], "%s by %s: %d, not %d",
				pco_state_name(st), pco_event_name(ev), pco_state_next(st, ev),
				expect[st][ev]);
			if (expect[st][ev] == NO) {
				T_CHECK(ret == -EINVAL && s == (enum pco_state)st,
					"%s by %s was not refused", pco_state_name(st),
					pco_event_name(ev));
				continue;
			}
			T_CHECK(!ret && s == (enum pco_state)expect[st][ev], "%s by %s went to %s",
				pco_state_name(st), pco_event_name(ev), pco_state_name(s));
			legal++;
		}
	}
	return legal;
}

/* Walk @n events from @from; each must be taken, and end in @to. */
static void walk(enum pco_state from, const enum pco_event *evs, int n, enum pco_state to)
{
	enum pco_state s = from;

	for (int i = 0; i < n; i++)
		T_CHECK(!pco_state_step(&s, evs[i]), "%s refused %s on the way",
			pco_state_name(s), pco_event_name(evs[i]));
	T_CHECK(s == to, "ended in %s, not %s", pco_state_name(s), pco_state_name(to));
}

static void lives(void)
{
	static const enum pco_event reader[] = { PCO_EV_READ_RUN, PCO_EV_HANDOFF };
	static const enum pco_event resident[] = { PCO_EV_CACHE_RUN, PCO_EV_HANDOFF };
	static const enum pco_event closed[] = { PCO_EV_AT_END, PCO_EV_CLOSED };
	static const enum pco_event back[] = { PCO_EV_AT_END, PCO_EV_APPEND_RUN,
					       PCO_EV_WENT_BACK, PCO_EV_HANDOFF };
	enum pco_state s = PCO_WRITER;

	walk(PCO_CANDIDATE, reader, 2, PCO_SKIP);
	walk(PCO_CANDIDATE, resident, 2, PCO_SKIP);
	walk(PCO_CANDIDATE, closed, 2, PCO_APPENDER);
	walk(PCO_CANDIDATE, back, 4, PCO_SKIP);
	/* a writer inside its file never becomes an appender again */
	T_CHECK(pco_state_step(&s, PCO_EV_APPEND_RUN) == -EINVAL && s == PCO_WRITER,
		"a writer became an appender");
}

static void names(void)
{
	for (int i = 0; i < PCO_STATES; i++)
		for (int j = i + 1; j < PCO_STATES; j++)
			T_CHECK(strcmp(pco_state_name(i), pco_state_name(j)),
				"states %d and %d share a name", i, j);
	for (int i = 0; i < PCO_EVENTS; i++) {
		T_CHECK(strcmp(pco_event_name(i), "?"), "event %d has no name", i);
		for (int j = i + 1; j < PCO_EVENTS; j++)
			T_CHECK(strcmp(pco_event_name(i), pco_event_name(j)),
				"events %d and %d share a name", i, j);
	}
	T_CHECK(!strcmp(pco_state_name(PCO_STATES), "?"), "a state past the last has a name");
	T_CHECK(pco_state_next(PCO_STATES, PCO_EV_UNFIT) == -EINVAL, "a state past the last moved");
	T_CHECK(pco_state_next(PCO_CANDIDATE, PCO_EVENTS) == -EINVAL,
		"an event past the last moved");
}

int main(void)
{
	int legal = check_all();

	T_CHECK(legal == 18, "%d legal edges, not 18", legal);
	lives();
	names();
	printf("%d edges taken, %d events refused\n", legal,
	       PCO_STATES * PCO_EVENTS - legal);
	return T_EXIT_PASS;
}
