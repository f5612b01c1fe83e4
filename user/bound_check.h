/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The signal-delay bound. A signal deferred by a killable wait (effect
 * "deferred") should stay pending no longer than what was left of the
 * supervisor's handling when it was sent (reply - sent), plus the target's
 * wake-up (return - reply), plus a slack for the signal's own delivery path
 * (sys_exit to signal_deliver). Time the target spent runnable but off the
 * CPU between its return and the delivery (preempted: the scheduler's, not
 * seccomp's) is reported beside the bound and not held against it. Optionally, no longer than a budget (Go's
 * 10 ms preemption interval, say). Pure arithmetic over finished
 * notifications; main feeds it, sinks and exporters read it.
 */
#ifndef NW_BOUND_CHECK_H
#define NW_BOUND_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include "knotif.h"

#define NW_BOUND_DEFAULT_SLACK_NS 50000ULL

struct bound_config {
	__u64 slack_ns;
	__u64 budget_ns; /* 0: no budget */
};

enum bound_status {
	BOUND_NOT_DEFERRED, /* the bound is about deferred signals only */
	BOUND_UNCHECKABLE, /* deferred, but a timestamp is missing or disordered */
	BOUND_CHECKED,
};

/* One signal's check; the spans are valid when status is BOUND_CHECKED. */
struct bound_signal {
	enum bound_status status;
	const char *why; /* BOUND_UNCHECKABLE: what is missing */
	bool budget_checked; /* pending is known (sent and delivered) */
	__u64 pending_ns; /* delivered - sent */
	__u64 remaining_ns; /* reply - sent: the supervisor's part */
	__u64 wake_ns; /* return - reply: the target's wake-up */
	__u64 preempted_ns; /* runnable, not running, after the return */
	__u64 delivery_ns; /* delivered - return - preempted: the path itself */
	__u64 allowed_ns; /* remaining + wake + preempted + slack */
	/* pending - (remaining + wake + preempted), may be negative */
	__s64 excess_ns;
	bool bound_violated; /* pending > allowed */
	bool budget_violated; /* pending > budget */
};

/* All signals of one notification. */
struct bound_knotif {
	unsigned int checked, unchecked, violations, budget_violations;
	struct bound_signal sig[NW_MAX_SIGNALS];
};

void bound_check_signal(const struct bound_config *cfg, const struct knotif *k,
			unsigned int i, struct bound_signal *out);
void bound_check_knotif(const struct bound_config *cfg, const struct knotif *k,
			struct bound_knotif *out);

enum bound_verdict {
	BOUND_HELD,
	BOUND_VIOLATED,
	BOUND_UNKNOWN, /* nothing to check, or the tracer lost events */
};

/* What the Prometheus exporter and the summaries read (bound_check_stats). */
struct bound_stats {
	unsigned long long checked; /* deferred signals checked */
	unsigned long long violations; /* pending > reply-sent + wake + slack */
	unsigned long long budget_violations; /* pending > budget */
	unsigned long long unchecked; /* deferred, a timestamp missing */
	long long max_excess_ns; /* over reply-sent + wake; 0 if none checked */
	unsigned long long preempted; /* checked signals whose target was */
	unsigned long long max_preempted_ns; /* the scheduler's, not counted */
	unsigned long long max_pending_ns; /* of the deferred signals */
	unsigned long long slack_ns;
	unsigned long long budget_ns; /* 0: no budget */
	unsigned long long lost; /* the sum of the six below */
	unsigned long long lost_records; /* ring buffer full */
	unsigned long long dropped_knotifs; /* notification map full */
	unsigned long long missed_runs; /* probe runs the kernel skipped */
	unsigned long long dropped_signals; /* > NW_MAX_SIGNALS in one wait */
	unsigned long long unidentified; /* waits not matched to a notification */
	unsigned long long decode_errors; /* malformed records, no memory */
	enum bound_verdict verdict;
};

struct bound_check {
	struct bound_config cfg;
	struct bound_stats st;
};

void bound_check_init(struct bound_check *bc, const struct bound_config *cfg);
/* Counts the deferred signals of one finished notification. */
void bound_check_add(struct bound_check *bc, const struct knotif *k);
/* Events the tracer lost so far: any makes the verdict unknown. */
void bound_check_set_lost(struct bound_check *bc, const struct nw_counters *bpf,
			  unsigned long long malformed,
			  unsigned long long no_memory);
/* The getter: counters and the verdict so far (zeros when @bc is NULL). */
void bound_check_stats(const struct bound_check *bc, struct bound_stats *out);

const char *
bound_verdict_name(enum bound_verdict v); /* held|violated|unknown */
int bound_verdict_exit_code(enum bound_verdict v); /* 0, 1, 2 */
/* Why the verdict is unknown, or NULL. */
const char *bound_unknown_reason(const struct bound_stats *st);

#endif /* NW_BOUND_CHECK_H */
