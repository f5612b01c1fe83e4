// SPDX-License-Identifier: GPL-2.0
#include <stdlib.h>
#include <string.h>
#include <uthash.h>
#include "knotif_table.h"

struct knotif_entry {
	struct nw_knotif_key key;
	struct knotif k;
	UT_hash_handle hh;
};

struct knotif_table {
	struct knotif_entry *entries;
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

void knotif_table_flush(struct knotif_table *t, __u64 now_ns)
{
	struct knotif_entry *e, *tmp;

	HASH_ITER(hh, t->entries, e, tmp)
		if (settled(&e->k, now_ns))
			hand_over(t, e);
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
	struct knotif_entry *e, *tmp;

	HASH_ITER(hh, t->entries, e, tmp) {
		if (e->k.have_event)
			hand_over(t, e);
		else
			drop(t, e);
	}
}

unsigned int knotif_table_size(const struct knotif_table *t)
{
	return HASH_COUNT(t->entries);
}
