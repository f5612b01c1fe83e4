// SPDX-License-Identifier: GPL-2.0
/* reorder.h: a FIFO run for facts in order, a heap for the rest. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "reorder.h"

static bool before(const struct reorder_entry *a, const struct reorder_entry *b)
{
	if (a->t_ns != b->t_ns)
		return a->t_ns < b->t_ns;
	return a->seq < b->seq;
}

static struct reorder_entry *run_at(const struct reorder *r, size_t i)
{
	return &r->run[(r->run_head + i) % r->run_cap];
}

static int run_grow(struct reorder *r)
{
	size_t cap = r->run_cap ? r->run_cap * 2 : 1024, i;
	struct reorder_entry *n = malloc(cap * sizeof(*n));

	if (!n)
		return -ENOMEM;
	for (i = 0; i < r->run_len; i++)
		n[i] = *run_at(r, i);
	free(r->run);
	r->run = n;
	r->run_cap = cap;
	r->run_head = 0;
	return 0;
}

/* Sifted with a hole: one copy of an entry per level, not a swap's three. */
static int heap_push(struct reorder *r, const struct reorder_entry *x)
{
	struct reorder_entry *h;
	size_t i;

	if (r->nheap == r->heap_cap) {
		size_t cap = r->heap_cap ? r->heap_cap * 2 : 256;

		h = realloc(r->heap, cap * sizeof(*h));
		if (!h)
			return -ENOMEM;
		r->heap = h;
		r->heap_cap = cap;
	}
	for (i = r->nheap++; i > 0 && before(x, &r->heap[(i - 1) / 2]);
	     i = (i - 1) / 2)
		r->heap[i] = r->heap[(i - 1) / 2];
	r->heap[i] = *x;
	return 0;
}

static void heap_pop(struct reorder *r, void *out)
{
	const struct reorder_entry *last;
	size_t i = 0, c;

	memcpy(out, r->heap[0].fact, NW_FACT_MAX_SIZE);
	last = &r->heap[--r->nheap];
	for (;;) {
		c = 2 * i + 1;
		if (c >= r->nheap)
			break;
		if (c + 1 < r->nheap && before(&r->heap[c + 1], &r->heap[c]))
			c++;
		if (!before(&r->heap[c], last))
			break;
		r->heap[i] = r->heap[c];
		i = c;
	}
	if (last != &r->heap[i])
		r->heap[i] = *last;
}

static void fill(struct reorder *r, struct reorder_entry *e, __u64 t_ns,
		 const void *fact, size_t size)
{
	e->t_ns = t_ns;
	e->seq = r->seq++;
	memcpy(e->fact, fact, size);
	memset(e->fact + size, 0, NW_FACT_MAX_SIZE - size);
}

int reorder_push(struct reorder *r, __u64 t_ns, const void *fact, size_t size)
{
	struct reorder_entry x;

	if (r->run_len && t_ns < run_at(r, r->run_len - 1)->t_ns) {
		fill(r, &x, t_ns, fact, size);
		return heap_push(r, &x);
	}
	if (r->run_len == r->run_cap && run_grow(r))
		return -ENOMEM;
	fill(r, run_at(r, r->run_len), t_ns, fact, size);
	r->run_len++;
	return 0;
}

/* The run's head is next, rather than the heap's top. */
static bool run_first(const struct reorder *r)
{
	if (!r->nheap)
		return true;
	return r->run_len && before(run_at(r, 0), &r->heap[0]);
}

bool reorder_peek(const struct reorder *r, __u64 *t_ns)
{
	if (!r->run_len && !r->nheap)
		return false;
	*t_ns = run_first(r) ? run_at(r, 0)->t_ns : r->heap[0].t_ns;
	return true;
}

void reorder_pop(struct reorder *r, void *out)
{
	if (!reorder_len(r))
		return;
	if (!run_first(r)) {
		heap_pop(r, out);
		return;
	}
	memcpy(out, run_at(r, 0)->fact, NW_FACT_MAX_SIZE);
	r->run_head = (r->run_head + 1) % r->run_cap;
	r->run_len--;
}

size_t reorder_len(const struct reorder *r)
{
	return r->run_len + r->nheap;
}

void reorder_free(struct reorder *r)
{
	free(r->heap);
	free(r->run);
	memset(r, 0, sizeof(*r));
}
