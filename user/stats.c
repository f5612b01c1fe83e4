// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "stats.h"

void stats_init(struct stats *s)
{
	memset(s, 0, sizeof(*s));
}

static void free_list(struct nw_group_list *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		free(l->groups[i].handle_ns);
	free(l->groups);
	memset(l, 0, sizeof(*l));
}

void stats_free(struct stats *s)
{
	free_list(&s->by_supervisor);
	free_list(&s->by_syscall);
}

static struct nw_group *group_find(struct nw_group_list *l, const char *name)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (!strcmp(l->groups[i].name, name))
			return &l->groups[i];
	return NULL;
}

/* Past @max groups, new names share NW_GROUP_OTHERS: memory stays bounded. */
static struct nw_group *group_get(struct nw_group_list *l, const char *name,
				  size_t max)
{
	struct nw_group *g = group_find(l, name);

	if (g)
		return g;
	if (l->n >= max) {
		name = NW_GROUP_OTHERS;
		g = group_find(l, name);
		if (g)
			return g;
	}
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 8;
		struct nw_group *grown = realloc(l->groups, cap * sizeof(*g));

		if (!grown)
			return NULL;
		l->groups = grown;
		l->cap = cap;
	}
	g = &l->groups[l->n++];
	memset(g, 0, sizeof(*g));
	snprintf(g->name, sizeof(g->name), "%s", name);
	return g;
}

/* Algorithm R: the n-th sample replaces a random slot with p = size/n. */
static void reservoir_add(struct nw_group *g, unsigned long long handle)
{
	unsigned long long x = g->rng ? g->rng : 0x9e3779b97f4a7c15ULL;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	g->rng = x;
	x %= g->handle_seen;
	if (x < g->nhandle) {
		g->handle_ns[x] = handle;
		g->sorted = false;
	}
}

static int group_add(struct nw_group *g, const struct knotif *k,
		     unsigned long long deferred,
		     unsigned long long max_pending)
{
	__u64 handle;
	int i;

	g->count++;
	g->deferred += deferred;
	if (max_pending > g->max_pending_ns)
		g->max_pending_ns = max_pending;
	if (k->outcome == NW_OUTCOME_INTERRUPTED_BEFORE_RECV ||
	    k->outcome == NW_OUTCOME_INTERRUPTED_AFTER_RECV)
		g->interrupted++;
	if (k->have_queue_split) {
		g->queue_split++;
		for (i = 0; i < NW_QUEUE_STATES; i++)
			g->queue_ns[i] += k->queue_split[i];
	}
	if (!k->reply_reached ||
	    !nw_span(k->ev.t_recv_ns, k->ev.t_reply_ns, &handle))
		return 0;
	if (k->handle_split.known) {
		g->split++;
		g->running_ns += k->handle_split.running_ns;
		g->runnable_ns += k->handle_split.runnable_ns;
		g->blocked_ns += k->handle_split.blocked_ns;
	}
	if (handle > g->handle_max)
		g->handle_max = handle;
	if (g->handle_seen++ >= NW_GROUP_SAMPLES) {
		reservoir_add(g, handle);
		return 0;
	}
	if (g->nhandle == g->cap) {
		size_t cap = g->cap ? g->cap * 2 : 64;
		unsigned long long *grown =
			realloc(g->handle_ns, cap * sizeof(*grown));

		if (!grown)
			return -ENOMEM;
		g->handle_ns = grown;
		g->cap = cap;
	}
	g->handle_ns[g->nhandle++] = handle;
	g->sorted = false;
	return 0;
}

int stats_add(struct stats *s, const struct knotif *k, const char *syscall)
{
	unsigned long long deferred = 0, max_pending = 0;
	__u64 pending;
	struct nw_group *sup, *sys;
	char sup_name[48];
	unsigned int i;
	int err = 0;

	s->knotifs++;
	s->by_outcome[k->outcome]++;
	for (i = 0; i < k->ev.nsignals && i < NW_MAX_SIGNALS; i++) {
		s->signals++;
		s->by_effect[k->effect[i]]++;
		if (k->effect[i] != NW_EFFECT_DEFERRED)
			continue;
		deferred++;
		/* one pending before the wait has no send time to count from */
		if (!nw_span(k->ev.signals[i].t_sent_ns, k->t_delivered_ns[i],
			     &pending))
			continue;
		if (pending > max_pending)
			max_pending = pending;
	}
	if (max_pending > s->max_deferred_pending_ns)
		s->max_deferred_pending_ns = max_pending;
	for (i = 0; i < k->naddfd; i++) {
		if (k->addfd[i].ret >= 0)
			s->addfd_ok++;
		else
			s->addfd_failed++;
	}

	nw_supervisor_name(sup_name, sizeof(sup_name), k->ev.supervisor_comm,
			   k->ev.supervisor_tgid);
	if (s->no_groups)
		return 0;
	sup = group_get(&s->by_supervisor, sup_name, NW_MAX_SUPERVISOR_GROUPS);
	sys = group_get(&s->by_syscall, syscall, (size_t)-1);
	if (!sup || !sys)
		return -ENOMEM;
	err |= group_add(sup, k, deferred, max_pending);
	err |= group_add(sys, k, deferred, max_pending);
	return err ? -ENOMEM : 0;
}

void stats_add_reply_failed(struct stats *s)
{
	s->reply_failed++;
}

static int cmp_ull(const void *a, const void *b)
{
	unsigned long long x = *(const unsigned long long *)a;
	unsigned long long y = *(const unsigned long long *)b;

	return x < y ? -1 : x > y;
}

unsigned long long stats_percentile(struct nw_group *g, double p)
{
	size_t rank;

	if (!g->nhandle)
		return 0;
	if (!g->sorted) {
		qsort(g->handle_ns, g->nhandle, sizeof(*g->handle_ns), cmp_ull);
		g->sorted = true;
	}
	if (p >= 100)
		return g->handle_max;
	if (p <= 0)
		return g->handle_ns[0];
	rank = (size_t)ceil(p / 100.0 * (double)g->nhandle);
	if (rank < 1)
		rank = 1;
	if (rank > g->nhandle)
		rank = g->nhandle;
	return g->handle_ns[rank - 1];
}
