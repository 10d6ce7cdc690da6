/* SPDX-License-Identifier: MIT */
/* The monotonic clock, read one way by every part of the project (clock.c). */
#ifndef PC_CLOCK_H
#define PC_CLOCK_H

#include <stdint.h>

/* CLOCK_MONOTONIC in nanoseconds: the clock of bpf_ktime_get_ns(). */
uint64_t pcc_now_ns(void);

/* CLOCK_MONOTONIC in seconds. */
double pcc_now_sec(void);

#endif
