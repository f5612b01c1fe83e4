/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A small metric registry (counters, gauges, histograms of durations, each
 * with a low-cardinality label set) and its exposition in the Prometheus text
 * format 0.0.4 or OpenMetrics 1.0. Not thread-safe: the owner locks.
 */
#ifndef NW_METRICS_H
#define NW_METRICS_H

#include <stdbool.h>
#include <stdio.h>

enum metric_type { METRIC_COUNTER, METRIC_GAUGE, METRIC_HISTOGRAM };

enum metrics_format {
	METRICS_TEXT, /* text/plain; version=0.0.4 */
	METRICS_OPENMETRICS, /* application/openmetrics-text; version=1.0.0 */
};

#define METRICS_MAX_LABELS 3
#define METRICS_MAX_FAMILIES 32
/* Per family; later label sets share one series labelled "(other)". */
#define METRICS_MAX_SERIES 1024
/* 1 us .. 10 s, 1-2.5-5 per decade; one more bucket is +Inf. */
#define METRICS_NBUCKETS 22

extern const unsigned long long metrics_bucket_ns[METRICS_NBUCKETS];

struct metric_series {
	char *values[METRICS_MAX_LABELS];
	unsigned long long value; /* counter or gauge */
	/* histogram: per bucket, not cumulative; [METRICS_NBUCKETS] is +Inf */
	unsigned long long bucket[METRICS_NBUCKETS + 1];
	unsigned long long sum_ns, count;
};

struct metric_family {
	const char *name; /* a counter's without "_total" */
	const char *help;
	enum metric_type type;
	/* a counter of nanoseconds, exported in seconds (*_seconds_total) */
	bool ns_as_seconds;
	const char *labels[METRICS_MAX_LABELS];
	unsigned int nlabels;
	struct metric_series *series;
	size_t n, cap;
};

struct metrics {
	struct metric_family families[METRICS_MAX_FAMILIES];
	unsigned int n;
};

void metrics_init(struct metrics *m);
void metrics_free(struct metrics *m);
/* @labels: NULL-terminated names, or NULL. NULL when the registry is full. */
struct metric_family *metrics_add_family(struct metrics *m, const char *name,
					 const char *help,
					 enum metric_type type,
					 const char *const *labels);
/* Finds or adds the series with these label values (one per label name). */
struct metric_series *metrics_series(struct metric_family *f,
				     const char *const *values);
void metrics_observe_ns(struct metric_series *s, unsigned long long ns);
/* Returns 0, or -EIO when @out reported an error. */
int metrics_write(const struct metrics *m, FILE *out, enum metrics_format fmt);

/* Label value escaping: \ " and newline; invalid UTF-8 bytes become '?'. */
void metrics_write_label_value(FILE *out, const char *v);
/* The format an HTTP Accept header asks for (NULL: the text format). */
enum metrics_format metrics_negotiate(const char *accept);
const char *metrics_content_type(enum metrics_format fmt);

#endif /* NW_METRICS_H */
