/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The newest N notification keys, for membership only: the joiner's memory
 * of notifications it handed over, so that a late fact about one starts
 * nothing. Open addressing, one probe in the common case; the oldest key
 * is forgotten when a new one comes in full.
 */
#ifndef NW_KEY_SET_H
#define NW_KEY_SET_H

#include <linux/types.h>
#include <stdbool.h>
#include "notifwait.h"

struct key_set;

/* NULL when out of memory; @capacity is rounded up to a power of 2. */
struct key_set *key_set_new(unsigned int capacity);
void key_set_free(struct key_set *s);
bool key_set_has(const struct key_set *s, const struct nw_knotif_key *key);
/* A key already in the set stays where it is in the eviction order. */
void key_set_add(struct key_set *s, const struct nw_knotif_key *key);

#endif /* NW_KEY_SET_H */
