// SPDX-License-Identifier: MIT
/*
 * libFuzzer target for the LD_PRELOAD shim's settings (preload/config.c):
 * the input is PAGECLIFF_MODE, PAGECLIFF_MIN_SIZE and PAGECLIFF_STATS
 * separated by NUL bytes.  A setting the shim cannot parse must turn it off
 * (it never guesses); otherwise the mode and size are what a slow reference
 * makes of them.  The shim's complaints on stderr go to /dev/null.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "preload.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(c) do { if (!(c)) abort(); } while (0)

/*
 * The size grammar of the command line and the shim alike (common/units.c):
 * digits, then optionally b alone, or k, m, g, t, p or e with b or ib.
 */
static int ref_size(const char *s, uint64_t *ret)
{
	static const char units[] = "kmgtpe";
	uint64_t v = 0;
	const char *u;
	int shift = 0;

	if (*s < '0' || *s > '9')
		return -1;
	for (; *s >= '0' && *s <= '9'; s++) {
		if (v > (UINT64_MAX - (*s - '0')) / 10)
			return -1;
		v = v * 10 + (*s - '0');
	}
	if (*s && (*s | 0x20) == 'b' && !s[1]) {
		*ret = v;
		return 0;
	}
	if (*s) {
		u = strchr(units, *s | 0x20);
		if (!u || (s[1] && strcasecmp(s + 1, "b") && strcasecmp(s + 1, "ib")))
			return -1;
		shift = 10 * (int)(u - units + 1);
	}
	if (shift && v > UINT64_MAX >> shift)
		return -1;
	*ret = v << shift;
	return 0;
}

static int ref_mode(const char *s, enum pl_mode *ret)
{
	static const struct {
		const char *name;
		enum pl_mode mode;
	} modes[] = {
		{ "off", PL_MODE_OFF }, { "auto", PL_MODE_AUTO },
		{ "dropbehind", PL_MODE_DROPBEHIND }, { "dontcache", PL_MODE_DONTCACHE },
		{ "direct", PL_MODE_DIRECT },
	};

	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++)
		if (!strcmp(s, modes[i].name)) {
			*ret = modes[i].mode;
			return 0;
		}
	return -1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct pl_config initial;
	static int have_initial, null_fd, err_fd;
	const char *mode, *min, *stats, *end;
	enum pl_mode want_mode;
	uint64_t want_min;
	int bad = 0;
	char *s;

	if (!have_initial) {
		initial = pl_cfg;
		have_initial = 1;
		null_fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
		err_fd = dup(STDERR_FILENO);
	}
	s = calloc(1, size + 3);
	if (!s)
		return 0;
	memcpy(s, data, size);
	end = s + size;
	mode = s;
	min = mode + strlen(mode) + 1;
	stats = min <= end ? min + strlen(min) + 1 : end + 1;
	if (min > end)
		min = end + 1;	/* the two spare NUL bytes */
	if (stats > end)
		stats = end + 2;
	setenv("PAGECLIFF_MODE", mode, 1);
	setenv("PAGECLIFF_MIN_SIZE", min, 1);
	setenv("PAGECLIFF_STATS", stats, 1);
	pl_cfg = initial;
	dup2(null_fd, STDERR_FILENO);
	pl_config_load();
	dup2(err_fd, STDERR_FILENO);

	want_mode = initial.mode;
	want_min = initial.min_size;
	if (*mode)
		bad |= ref_mode(mode, &want_mode);
	if (*min)
		bad |= ref_size(min, &want_min);
	if (bad) {
		CHECK(pl_cfg.mode == PL_MODE_OFF);
	} else {
		CHECK(pl_cfg.mode == want_mode);
		CHECK(pl_cfg.min_size == want_min);
	}
	CHECK(pl_cfg.stats == (*stats && strcmp(stats, "0")));
	free(s);
	return 0;
}
