// SPDX-License-Identifier: GPL-2.0
#include <stdlib.h>
#include <string.h>
#include <uthash.h>
#include "knotif_table.h"

struct knotif_entry {
	struct nw_knotif_key key;
	struct knotif k;
	unsigned long long seq; /* order of creation */
	__u64 settle_ns; /* set while flushing: when it settled */
	UT_hash_handle hh;
};

struct knotif_table {
	struct knotif_entry *entries;
	unsigned long long next_seq;
	knotif_ready_fn ready;
	void *ctx;
};

struct knotif_table *knotif_table_new(knotif_ready_fn ready, void *ctx)
{
	struct knotif_table *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->ready = ready;
	t->ctx = ctx;
	return t;
}

static void drop(struct knotif_table *t, struct knotif_entry *e)
{
	HASH_DEL(t->entries, e);
	free(e);
}

void knotif_table_free(struct knotif_table *t)
{
	struct knotif_entry *e, *tmp;

	if (!t)
		return;
	HASH_ITER(hh, t->entries, e, tmp)
		drop(t, e);
	free(t);
}

struct knotif *knotif_table_find(struct knotif_table *t,
				 const struct nw_knotif_key *key)
{
	struct knotif_entry *e;

	HASH_FIND(hh, t->entries, key, sizeof(*key), e);
	return e ? &e->k : NULL;
}

struct knotif *knotif_table_get(struct knotif_table *t,
				const struct nw_knotif_key *key)
{
	struct knotif_entry *e;

	HASH_FIND(hh, t->entries, key, sizeof(*key), e);
	if (e)
		return &e->k;
	e = calloc(1, sizeof(*e));
	if (!e)
		return NULL;
	e->key = *key;
	e->k.ev.key = *key;
	e->seq = t->next_seq++;
	HASH_ADD(hh, t->entries, key, sizeof(e->key), e);
	return &e->k;
}

static bool settled(const struct knotif *k, __u64 now_ns)
{
	__u64 age;

	if (!k->have_event)
		return false;
	if (!nw_span(k->t_closed_ns ? k->t_closed_ns : k->ev.t_return_ns,
		     now_ns, &age))
		return false;
	if (age >= NW_LINGER_NS)
		return true;
	return age >= NW_SETTLE_NS && !k->replies_in_flight &&
	       !knotif_awaits_delivery(k);
}

static void hand_over(struct knotif_table *t, struct knotif_entry *e)
{
	knotif_derive(&e->k);
	t->ready(&e->k, t->ctx);
	drop(t, e);
}

/* When @k, its facts all in, settles; pending ones (no end) last. */
static __u64 settle_time(const struct knotif *k)
{
	__u64 end = k->t_closed_ns ? k->t_closed_ns : k->ev.t_return_ns;

	if (!end)
		return ~0ULL;
	if (!k->replies_in_flight && !knotif_awaits_delivery(k))
		return end + NW_SETTLE_NS;
	return end + NW_LINGER_NS;
}

static int by_settle_time(const void *a, const void *b)
{
	const struct knotif_entry *x = *(struct knotif_entry *const *)a;
	const struct knotif_entry *y = *(struct knotif_entry *const *)b;

	if (x->settle_ns != y->settle_ns)
		return x->settle_ns < y->settle_ns ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/*
 * Hands over what settled by @now_ns (@all: everything with an event) in
 * the order it settled, then creation order: records then come out in
 * the same order however the run is cut into polls, so a recording cut
 * short replays a subsequence of the whole one.
 */
static void flush_ordered(struct knotif_table *t, __u64 now_ns, bool all)
{
	struct knotif_entry *e, *tmp, **ready;
	unsigned int n = 0, i;

	ready = malloc(HASH_COUNT(t->entries) * sizeof(*ready) + 1);
	HASH_ITER(hh, t->entries, e, tmp) {
		if (all ? !e->k.have_event : !settled(&e->k, now_ns)) {
			if (all)
				drop(t, e);
			continue;
		}
		if (!ready) {
			hand_over(t, e); /* no memory: creation order only */
			continue;
		}
		e->settle_ns = settle_time(&e->k);
		ready[n++] = e;
	}
	if (!ready)
		return;
	qsort(ready, n, sizeof(*ready), by_settle_time);
	for (i = 0; i < n; i++)
		hand_over(t, ready[i]);
	free(ready);
}

void knotif_table_flush(struct knotif_table *t, __u64 now_ns)
{
	flush_ordered(t, now_ns, false);
}

void knotif_table_for_each(struct knotif_table *t,
			   void (*fn)(struct knotif *k, void *ctx), void *ctx)
{
	struct knotif_entry *e, *tmp;

	HASH_ITER(hh, t->entries, e, tmp)
		fn(&e->k, ctx);
}

void knotif_table_remove(struct knotif_table *t, struct knotif *k)
{
	struct knotif_entry *e;

	HASH_FIND(hh, t->entries, &k->ev.key, sizeof(k->ev.key), e);
	if (e && &e->k == k)
		drop(t, e);
}

void knotif_table_flush_all(struct knotif_table *t)
{
	flush_ordered(t, 0, true);
}

unsigned int knotif_table_size(const struct knotif_table *t)
{
	return HASH_COUNT(t->entries);
}
