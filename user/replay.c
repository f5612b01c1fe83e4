// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <string.h>
#include "replay.h"

_Static_assert(sizeof(struct nw_counters) % sizeof(__u64) == 0,
	       "nw_counters is a list of __u64");
_Static_assert(NW_COUNTERS_LEN <= NW_REC_MAX_COUNTERS,
	       "nw_counters fits a COUNTERS entry");

struct recording_reader *replay_open(const char *path)
{
	struct recording_reader *r;
	struct recording_entry e;
	char why[200];

	r = recording_open(path, why, sizeof(why));
	if (!r) {
		fprintf(stderr, "notifwait: --replay %s: %s\n", path, why);
		return NULL;
	}
	while (recording_next(r, &e) == RECORDING_ENTRY)
		;
	if (recording_error(r)) {
		fprintf(stderr, "notifwait: --replay %s: %s\n", path,
			recording_error(r));
		recording_close_reader(r);
		return NULL;
	}
	recording_rewind(r);
	return r;
}

void replay_feed(struct recording_reader *r, struct joiner *j,
		 struct nw_counters *bpf, replay_tick_fn tick, void *ctx)
{
	const struct nw_rec_counters *c;
	const struct nw_rec_tick *t;
	struct recording_entry e;

	while (recording_next(r, &e) == RECORDING_ENTRY) {
		switch (e.kind) {
		case NW_REC_TICK:
			t = e.data;
			joiner_tick(j, t->now_ns);
			if (tick)
				tick(t->now_ns, ctx);
			break;
		case NW_REC_COUNTERS:
			c = e.data;
			nw_counters_from_list(bpf, (const __u64 *)(c + 1),
					      c->count);
			break;
		case NW_REC_END:
			break;
		default:
			joiner_feed(j, e.data, e.size);
		}
	}
}

void nw_counters_to_list(const struct nw_counters *c,
			 __u64 values[NW_COUNTERS_LEN])
{
	memcpy(values, c, sizeof(*c));
}

void nw_counters_from_list(struct nw_counters *c, const __u64 *values,
			   unsigned int count)
{
	memset(c, 0, sizeof(*c));
	if (count > NW_COUNTERS_LEN)
		count = NW_COUNTERS_LEN; /* a newer notifwait's extra fields */
	memcpy(c, values, count * sizeof(__u64));
}
