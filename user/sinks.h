/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Sinks: where finished notifications go (stream, JSON Lines, histograms,
 * summary tables). A new output is a new sink_*.c with a constructor here.
 */
#ifndef NW_SINKS_H
#define NW_SINKS_H

#include <stdbool.h>
#include <stdio.h>
#include "knotif.h"
#include "stats.h"

struct bound_config;
struct bound_check;
struct findings;
struct sup_stacks;
struct timeline_options;

struct report_info {
	__u64 start_ns; /* CLOCK_MONOTONIC when tracing started */
	const char *backend;
	const char *backend_reason;
	bool msecs; /* histograms in msecs instead of usecs */
	const struct bound_config *bound; /* --check-bound, else NULL */
};

/* What every sink may print at an interval or at the end. */
struct run_totals {
	const struct stats *stats;
	struct nw_counters bpf;
	unsigned long long malformed, no_memory;
	/* facts that came after the window: applied out of t_ns order */
	unsigned long long late_facts;
	/* handle_splits refused: a supervisor thread's switch never came */
	unsigned long long switch_gaps;
	double elapsed_s;
	const struct bound_check *bound; /* --check-bound, else NULL */
	const struct findings *findings; /* NULL: none kept (unit tests) */
	const struct sup_stacks *stacks; /* --supervisor-stacks, else NULL */
};

struct sink {
	const char *name;
	void (*knotif)(struct sink *s, const struct knotif *k);
	void (*reply_failed)(struct sink *s,
			     const struct nw_reply_failed_event *r);
	void (*interval)(struct sink *s, const struct run_totals *t);
	void (*finish)(struct sink *s, const struct run_totals *t);
	void (*destroy)(struct sink *s);
	FILE *out;
	const struct report_info *info;
	void *priv;
};

struct sink *sink_stream_new(FILE *out, const struct report_info *info);
struct sink *sink_json_new(FILE *out, const struct report_info *info);
struct sink *sink_hist_new(FILE *out, const struct report_info *info);
struct sink *sink_summary_new(FILE *out, const struct report_info *info);
/* --check-bound: each violation as it finishes, the verdict at exit. */
struct sink *sink_bound_new(FILE *out, const struct report_info *info);
/* --timeline: an SVG (or HTML page) written at exit to @path. */
struct sink *sink_timeline_new(const char *path, const struct report_info *info,
			       const struct timeline_options *opts);

#define NW_MAX_SINKS 8

struct sinks {
	struct sink *list[NW_MAX_SINKS];
	unsigned int n;
};

int sinks_add(struct sinks *all, struct sink *s);
void sinks_knotif(struct sinks *all, const struct knotif *k);
void sinks_reply_failed(struct sinks *all,
			const struct nw_reply_failed_event *r);
void sinks_interval(struct sinks *all, const struct run_totals *t);
void sinks_finish(struct sinks *all, const struct run_totals *t);
void sinks_destroy(struct sinks *all);

/* Allocates a sink with only the common fields set. */
struct sink *sink_alloc(const char *name, FILE *out,
			const struct report_info *info, size_t priv_size);

#endif /* NW_SINKS_H */
