/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Notifications the reporter holds: finished ones wait a little for what
 * arrives after the target's return (signal deliveries, the supervisor's
 * ADDFD result), then go to the sinks.
 */
#ifndef NW_KNOTIF_TABLE_H
#define NW_KNOTIF_TABLE_H

#include "knotif.h"

/* How long a finished notification is held (ns of CLOCK_MONOTONIC). */
#define NW_SETTLE_NS (10ULL * 1000 * 1000)
#define NW_LINGER_NS (500ULL * 1000 * 1000)

typedef void (*knotif_ready_fn)(struct knotif *k, void *ctx);

struct knotif_table;

struct knotif_table *knotif_table_new(knotif_ready_fn ready, void *ctx);
void knotif_table_free(struct knotif_table *t);
/* The held record for @key, created empty when absent (NULL: no memory). */
struct knotif *knotif_table_get(struct knotif_table *t,
				const struct nw_knotif_key *key);
struct knotif *knotif_table_find(struct knotif_table *t,
				 const struct nw_knotif_key *key);
/* Hands the settled records to the callback; @now_ns is CLOCK_MONOTONIC. */
void knotif_table_flush(struct knotif_table *t, __u64 now_ns);
/* Hands every record with an event to the callback, and drops the rest. */
void knotif_table_flush_all(struct knotif_table *t);
/* Calls @fn on every held record (it must not add or remove any). */
void knotif_table_for_each(struct knotif_table *t,
			   void (*fn)(struct knotif *k, void *ctx), void *ctx);
/* Drops @k without handing it over. */
void knotif_table_remove(struct knotif_table *t, struct knotif *k);
unsigned int knotif_table_size(const struct knotif_table *t);

#endif /* NW_KNOTIF_TABLE_H */
