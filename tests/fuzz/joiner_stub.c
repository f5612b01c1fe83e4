// SPDX-License-Identifier: GPL-2.0
/*
 * THROWAWAY: a stand-in for user/joiner.c (being written elsewhere) so the
 * replay fuzzer builds and runs now. tests/fuzz/fuzz.mk uses user/joiner.c
 * as soon as it exists; delete this file then. It checks sizes like the
 * real joiner must and turns each RETURN into a record, nothing more.
 */
#include <stdlib.h>
#include <string.h>
#include "joiner.h"
#include "recording.h"

struct joiner {
	struct joiner_config cfg;
	struct joiner_counters counters;
	__u64 now_ns;
};

struct joiner *joiner_new(const struct joiner_config *cfg)
{
	struct joiner *j = calloc(1, sizeof(*j));

	if (j)
		j->cfg = *cfg;
	return j;
}

void joiner_free(struct joiner *j)
{
	free(j);
}

int joiner_feed(struct joiner *j, const void *fact, size_t size)
{
	const struct nw_fact_return *r = fact;
	const struct nw_fact_hdr *h = fact;
	struct knotif k;

	if (size < sizeof(*h) || h->kind >= NW_FACT_KIND_MAX ||
	    h->size != size || recording_kind_size(h->kind) != size) {
		j->counters.malformed++;
		return -22; /* -EINVAL */
	}
	j->counters.facts++;
	if (h->kind != NW_FACT_RETURN || !j->cfg.knotif)
		return 0;
	memset(&k, 0, sizeof(k));
	k.have_event = true;
	k.ev.target_tid = h->tid;
	k.ev.target_tgid = h->tgid;
	k.ev.t_return_ns = h->t_ns;
	k.ev.ret = r->ret;
	k.ev.nr = r->nr;
	k.ev.key.id = r->id;
	knotif_derive(&k);
	j->cfg.knotif(&k, j->cfg.ctx);
	return 0;
}

void joiner_tick(struct joiner *j, __u64 now_ns)
{
	j->now_ns = now_ns;
}

void joiner_finish(struct joiner *j)
{
	(void)j;
}

void joiner_counters(const struct joiner *j, struct joiner_counters *out)
{
	*out = j->counters;
}
