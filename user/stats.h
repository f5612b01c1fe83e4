/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Aggregation over finished notifications: totals by outcome and signal
 * effect, and per-supervisor and per-syscall groups with handle-time
 * percentiles. Sinks read it; only main feeds it.
 */
#ifndef NW_STATS_H
#define NW_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include "knotif.h"

struct nw_group {
	char name[48];
	unsigned long long count;
	unsigned long long interrupted;
	unsigned long long deferred;
	unsigned long long max_pending_ns;
	/* handle_split's parts, over the notifications that have them */
	unsigned long long split, running_ns, runnable_ns, blocked_ns;
	/* queue_split's parts, over the notifications that have them */
	unsigned long long queue_split;
	__u64 queue_ns[NW_QUEUE_STATES];
	unsigned long long *handle_ns; /* sorted by stats_percentile() */
	size_t nhandle, cap;
	bool sorted;
	/*
	 * Memory stays bounded on a run of days: past NW_GROUP_SAMPLES handle
	 * times, handle_ns is a uniform sample of them all (reservoir), so
	 * percentiles are exact up to that many and estimated beyond; the
	 * maximum is always exact.
	 */
	unsigned long long handle_seen, handle_max;
	unsigned long long rng; /* the reservoir's xorshift state */
};

#define NW_GROUP_SAMPLES 8192
/*
 * Supervisors (comm/tgid) with a group of their own; later ones share the
 * group NW_GROUP_OTHERS, so a run of days with short-lived supervisors
 * stays bounded (and so does the lookup per notification).
 */
#define NW_MAX_SUPERVISOR_GROUPS 1024
#define NW_GROUP_OTHERS "(other supervisors)"

struct nw_group_list {
	struct nw_group *groups;
	size_t n, cap;
};

struct stats {
	unsigned long long knotifs;
	unsigned long long by_outcome[NW_OUTCOME_COUNT];
	unsigned long long by_effect[NW_EFFECT_COUNT];
	unsigned long long signals;
	unsigned long long addfd_ok, addfd_failed, reply_failed;
	unsigned long long max_deferred_pending_ns;
	struct nw_group_list by_supervisor, by_syscall;
	bool no_groups; /* no output shows the groups: keep none */
};

void stats_init(struct stats *s);
void stats_free(struct stats *s);
/* Returns -ENOMEM when a group could not grow; the totals still count. */
int stats_add(struct stats *s, const struct knotif *k, const char *syscall);
void stats_add_reply_failed(struct stats *s);
/* The @p-th percentile (0..100) of a group's handle times, nearest rank. */
unsigned long long stats_percentile(struct nw_group *g, double p);

#endif /* NW_STATS_H */
