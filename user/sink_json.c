// SPDX-License-Identifier: GPL-2.0
/* -j: one JSON Lines record per notification, lost and summary at exit. */
#include "json_record.h"
#include "sinks.h"

static void json_knotif(struct sink *s, const struct knotif *k)
{
	json_write_knotif_bound(s->out, k, s->info->bound);
}

static void json_reply_failed(struct sink *s,
			      const struct nw_reply_failed_event *r)
{
	json_write_reply_failed(s->out, r);
}

static void json_finish(struct sink *s, const struct run_totals *t)
{
	json_write_lost(s->out, t);
	json_write_summary(s->out, s->info, t);
}

struct sink *sink_json_new(FILE *out, const struct report_info *info)
{
	struct sink *s = sink_alloc("json", out, info, 0);

	if (!s)
		return NULL;
	s->knotif = json_knotif;
	s->reply_failed = json_reply_failed;
	s->finish = json_finish;
	return s;
}
