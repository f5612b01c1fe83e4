/* SPDX-License-Identifier: GPL-2.0 */
/* Ring-buffer records -> the held notifications and the reply failures. */
#ifndef NW_DECODER_H
#define NW_DECODER_H

#include <stddef.h>
#include "knotif_table.h"

typedef void (*reply_failed_fn)(const struct nw_reply_failed_event *r,
				void *ctx);

struct decoder {
	struct knotif_table *table;
	reply_failed_fn reply_failed;
	void *ctx;
	unsigned long long malformed; /* records of unknown kind or size */
	unsigned long long no_memory;
};

/* Returns 0, or -EINVAL for a record that is not one of ours. */
int decoder_feed(struct decoder *d, const void *data, size_t size);
/* A notification still waiting when tracing stopped (from the BPF map). */
void decoder_feed_pending(struct decoder *d, const struct nw_knotif_event *e);

#endif /* NW_DECODER_H */
