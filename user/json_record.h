/* SPDX-License-Identifier: GPL-2.0 */
/* The JSON Lines records: field names are a contract, never rename them. */
#ifndef NW_JSON_RECORD_H
#define NW_JSON_RECORD_H

#include <stdio.h>
#include "sinks.h"

void json_write_knotif(FILE *out, const struct knotif *k);
/* ... with a "bound_violation" field when --check-bound (@bound) flags it. */
void json_write_knotif_bound(FILE *out, const struct knotif *k,
			     const struct bound_config *bound);
void json_write_reply_failed(FILE *out, const struct nw_reply_failed_event *r);
void json_write_lost(FILE *out, const struct run_totals *t);
void json_write_summary(FILE *out, const struct report_info *info,
			const struct run_totals *t);

#endif /* NW_JSON_RECORD_H */
