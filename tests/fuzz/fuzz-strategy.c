// SPDX-License-Identifier: MIT
/*
 * libFuzzer target for the library's strategy names: pc_strategy_parse()
 * accepts exactly the names pc_strategy_name() gives, maps each back to
 * itself, leaves the result alone on failure; pc_strategy_name() is NULL
 * out of range.  `pagecliff cat --mode` and the shim parse through these.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pagecliff.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(c) do { if (!(c)) abort(); } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	enum pc_strategy st = PC_STRATEGY_COUNT;
	char *s = malloc(size + 1);
	int known = 0, ret;
	int32_t n = 0;

	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = 0;
	for (int i = 0; i < PC_STRATEGY_COUNT; i++)
		known |= !strcmp(s, pc_strategy_name(i));
	ret = pc_strategy_parse(s, &st);
	CHECK(known ? ret == 0 : ret < 0);
	CHECK(known ? !strcmp(pc_strategy_name(st), s) : st == PC_STRATEGY_COUNT);
	memcpy(&n, data, size < sizeof(n) ? size : sizeof(n));
	CHECK(((uint32_t)n < PC_STRATEGY_COUNT) == (pc_strategy_name(n) != NULL));
	free(s);
	return 0;
}
