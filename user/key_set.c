// SPDX-License-Identifier: GPL-2.0
/*
 * key_set.h: linear probing at most half full, deletion by backward shift
 * (no tombstones, so a lookup never walks further than the keys that
 * collided with it). uthash chains up to ten nodes per bucket before it
 * grows, each a cache miss: that lookup was a tenth of the reporter's time.
 */
#include <stdlib.h>
#include "key_set.h"

struct slot {
	struct nw_knotif_key key;
	bool used;
};

struct key_set {
	struct slot *slots; /* 2 * cap */
	struct nw_knotif_key *order; /* insertion ring, cap */
	unsigned int cap, len, oldest;
	size_t mask;
};

static size_t home(const struct key_set *s, const struct nw_knotif_key *k)
{
	/* a 64-bit finalizer (splitmix64): listeners share their low bits */
	__u64 h = k->filter ^ (k->id * 0x9e3779b97f4a7c15ULL);

	h ^= h >> 30;
	h *= 0xbf58476d1ce4e5b9ULL;
	h ^= h >> 27;
	h *= 0x94d049bb133111ebULL;
	h ^= h >> 31;
	return h & s->mask;
}

static bool same(const struct nw_knotif_key *a, const struct nw_knotif_key *b)
{
	return a->filter == b->filter && a->id == b->id;
}

struct key_set *key_set_new(unsigned int capacity)
{
	struct key_set *s = calloc(1, sizeof(*s));
	unsigned int cap = 1;

	if (!s)
		return NULL;
	while (cap < capacity)
		cap *= 2;
	s->cap = cap;
	s->mask = 2 * (size_t)cap - 1;
	s->slots = calloc(2 * (size_t)cap, sizeof(*s->slots));
	s->order = calloc(cap, sizeof(*s->order));
	if (!s->slots || !s->order) {
		key_set_free(s);
		return NULL;
	}
	return s;
}

void key_set_free(struct key_set *s)
{
	if (!s)
		return;
	free(s->slots);
	free(s->order);
	free(s);
}

/* The slot holding @key, or the empty one where it would go. */
static size_t find(const struct key_set *s, const struct nw_knotif_key *key)
{
	size_t i = home(s, key);

	while (s->slots[i].used && !same(&s->slots[i].key, key))
		i = (i + 1) & s->mask;
	return i;
}

bool key_set_has(const struct key_set *s, const struct nw_knotif_key *key)
{
	return s->slots[find(s, key)].used;
}

/* Knuth's algorithm R: later keys of the run move back into the hole. */
static void remove_at(struct key_set *s, size_t hole)
{
	size_t i = hole, k;

	for (;;) {
		s->slots[hole].used = false;
		do {
			i = (i + 1) & s->mask;
			if (!s->slots[i].used)
				return;
			k = home(s, &s->slots[i].key);
			/* it stays while its home lies cyclically in (hole, i] */
		} while (hole <= i ? hole < k && k <= i : hole < k || k <= i);
		s->slots[hole] = s->slots[i];
		hole = i;
	}
}

void key_set_add(struct key_set *s, const struct nw_knotif_key *key)
{
	size_t i = find(s, key), j;
	unsigned int tail;

	if (s->slots[i].used)
		return;
	if (s->len == s->cap) {
		j = find(s, &s->order[s->oldest]);
		if (s->slots[j].used)
			remove_at(s, j);
		s->oldest = (s->oldest + 1) % s->cap;
		s->len--;
		i = find(s, key); /* the shift may have moved its place */
	}
	s->slots[i].key = *key;
	s->slots[i].used = true;
	tail = (s->oldest + s->len) % s->cap;
	s->order[tail] = *key;
	s->len++;
}
