/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The joiner's reorder window: facts in, in arrival order; out by (t_ns,
 * arrival). Plain data, no kernel.
 *
 * Facts come in nearly in time order (a ring buffer's reservation order,
 * two CPUs interleaved): one that is not older than the newest in order
 * joins a FIFO run at O(1); only the others go to a binary heap. The next
 * out is the older of the run's head and the heap's top.
 */
#ifndef NW_REORDER_H
#define NW_REORDER_H

#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>
#include "facts.h"

struct reorder_entry {
	__u64 t_ns, seq;
	unsigned char fact[NW_FACT_MAX_SIZE];
};

struct reorder {
	struct reorder_entry *heap;
	size_t nheap, heap_cap;
	struct reorder_entry *run; /* a ring: run_len from run_head */
	size_t run_head, run_len, run_cap;
	__u64 seq;
};

/* @size <= NW_FACT_MAX_SIZE; the rest of its entry is zeroed. -ENOMEM. */
int reorder_push(struct reorder *r, __u64 t_ns, const void *fact, size_t size);
/* The oldest held fact's t_ns; false when empty. */
bool reorder_peek(const struct reorder *r, __u64 *t_ns);
/* Copies the oldest out (NW_FACT_MAX_SIZE bytes); not when empty. */
void reorder_pop(struct reorder *r, void *out);
size_t reorder_len(const struct reorder *r);
void reorder_free(struct reorder *r);

#endif /* NW_REORDER_H */
