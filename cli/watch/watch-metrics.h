/* SPDX-License-Identifier: MIT */
/*
 * watch's figures as metrics for Prometheus (watch-metrics.c): cumulative
 * counters and gauges of one sample, and the kernel-event counters.
 */
#ifndef PC_CLI_WATCH_METRICS_H
#define PC_CLI_WATCH_METRICS_H

#include <stdio.h>

struct sample;
struct trace_snap;

/*
 * Sample @s (and @t, the kernel-event snapshot, when not NULL; @cgroup, the
 * memory cgroup's directory, when it was read) as OpenMetrics 1.0 text
 * ending in "# EOF" (@openmetrics), or in the Prometheus text format 0.0.4.
 */
void watch_metrics(FILE *out, int openmetrics, const struct sample *s,
		   const char *cgroup, const struct trace_snap *t);

#endif
