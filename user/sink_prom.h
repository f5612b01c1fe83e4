/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --prom-listen / --prom-file: a sink that feeds the metric registry with
 * finished notifications and exposes it (HTTP, node_exporter textfile).
 */
#ifndef NW_SINK_PROM_H
#define NW_SINK_PROM_H

#include "sinks.h"

struct prom_options {
	const char *listen; /* ADDR:PORT, or NULL */
	const char *file; /* textfile path, or NULL */
	double interval_s; /* textfile rewrite period */
	double linger_s; /* keep serving this long after the report */
};

/* NULL with one line on stderr (cannot bind, cannot write the file). */
struct sink *sink_prom_new(const struct report_info *info,
			   const struct prom_options *opt);
/* --prom-file rewrites that failed (each said on stderr, once per streak). */
unsigned long long sink_prom_failed_writes(const struct sink *s);
/*
 * From the tracer's loop: the BPF-side counters (lost records, drops) and
 * the backend, and the textfile when its interval has passed.
 */
void sink_prom_update(struct sink *s, const struct run_totals *t);

#endif /* NW_SINK_PROM_H */
