// SPDX-License-Identifier: MIT
/*
 * The files a cp run made, by device and inode (struct cp_made, cp.h), so
 * that a later SRC never overwrites one: cp(1)'s "will not overwrite
 * just-created".
 */
#include <stdlib.h>
#include <sys/stat.h>

#include "cp.h"

static size_t made_index(const struct cp_made *m, dev_t dev, ino_t ino)
{
	size_t i = ((size_t)ino * 0x9E3779B97F4A7C15ull ^ (size_t)dev) & (m->size - 1);

	while (m->slot[i].ino && (m->slot[i].ino != ino || m->slot[i].dev != dev))
		i = (i + 1) & (m->size - 1);
	return i;
}

static int made_grow(struct cp_made *m)
{
	struct cp_made bigger = { .size = m->size ? m->size * 2 : 64 };

	bigger.slot = calloc(bigger.size, sizeof(*bigger.slot));
	if (!bigger.slot)
		return -1;
	for (size_t i = 0; i < m->size; i++)
		if (m->slot[i].ino)
			bigger.slot[made_index(&bigger, m->slot[i].dev, m->slot[i].ino)] =
				m->slot[i];
	bigger.used = m->used;
	free(m->slot);
	*m = bigger;
	return 0;
}

/* Inode 0 is never a file's; out of memory only weakens the check. */
void cp_made_add(struct cp_made *m, const struct stat *st)
{
	size_t i;

	if (!m || !st->st_ino || ((m->used + 1) * 2 > m->size && made_grow(m)))
		return;
	i = made_index(m, st->st_dev, st->st_ino);
	if (!m->slot[i].ino)
		m->used++;
	m->slot[i].dev = st->st_dev;
	m->slot[i].ino = st->st_ino;
}

int cp_made_has(const struct cp_made *m, const struct stat *st)
{
	return m && m->size && m->slot[made_index(m, st->st_dev, st->st_ino)].ino;
}

void cp_made_free(struct cp_made *m)
{
	free(m->slot);
	*m = (struct cp_made){ 0 };
}
