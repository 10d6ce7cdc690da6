/* SPDX-License-Identifier: MIT */
/*
 * A followed descriptor's state and the events that move it (state.c): one
 * enum, one transition function, so that every change of what the watcher
 * does with a stream is one named edge, and a test walks them all.
 */
#ifndef PCO_OUTSIDE_STATE_H
#define PCO_OUTSIDE_STATE_H

enum pco_state {
	PCO_CANDIDATE,		/* regular file, run not past the minimum yet */
	PCO_APPENDING,		/* a candidate writer that moved at the end of its
				 * file, held: a close before the next look still
				 * has its pages cleaned */
	PCO_READER,		/* dropped behind its moving cursor (lib/dropper.c) */
	PCO_RESIDENT,		/* a reader whose cursor stands, followed by what
				 * its file brings into the cache */
	PCO_WRITER,		/* inside its file: written back by the flusher */
	PCO_APPENDER,		/* at the end of its file: the cleaner follows it */
	PCO_SKIP,		/* left alone: not a regular file, O_DIRECT, refused,
				 * cached before, a file system the watcher never
				 * touches, or handed to the kernel's view */
	PCO_STATES
};

enum pco_event {
	PCO_EV_UNFIT,		/* first sight: not a local regular file, or O_DIRECT */
	PCO_EV_REFUSED,		/* our own description of it could not be opened */
	PCO_EV_AT_END,		/* a writable candidate moved at the end of its file */
	PCO_EV_READ_RUN,	/* its run passed the minimum, reading */
	PCO_EV_WRITE_RUN,	/* ... writing inside its file */
	PCO_EV_APPEND_RUN,	/* ... writing at the end of its file */
	PCO_EV_CACHE_RUN,	/* its cursor stands, its cold file filled by the minimum */
	PCO_EV_WARM,		/* ... but the cache ahead of it was there before */
	PCO_EV_CLOSED,		/* closed between two looks, having appended the minimum */
	PCO_EV_WENT_BACK,	/* an appender moved back: it writes inside its file */
	PCO_EV_HANDOFF,		/* the kernel's view acts on its file from now on */
	PCO_EVENTS
};

/* Where @ev takes a stream in state @from, or -EINVAL: not an edge. */
int pco_state_next(enum pco_state from, enum pco_event ev);

/* Move *@st by @ev; 0, or -EINVAL with *@st unchanged. */
int pco_state_step(enum pco_state *st, enum pco_event ev);

/* Names, for messages and tests. */
const char *pco_state_name(enum pco_state st);
const char *pco_event_name(enum pco_event ev);

/* Not acted on yet: its run has not passed the minimum. */
static inline int pco_state_candidate(enum pco_state st)
{
	return st == PCO_CANDIDATE || st == PCO_APPENDING;
}

static inline int pco_state_reader(enum pco_state st)
{
	return st == PCO_READER || st == PCO_RESIDENT;
}

static inline int pco_state_writer(enum pco_state st)
{
	return st == PCO_WRITER || st == PCO_APPENDER;
}

/* Read or written behind: the watcher acts on it. */
static inline int pco_state_acting(enum pco_state st)
{
	return pco_state_reader(st) || pco_state_writer(st);
}

#endif
