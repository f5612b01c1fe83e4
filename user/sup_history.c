// SPDX-License-Identifier: GPL-2.0
/* A supervisor thread's switches and the split of its time (sup_history.h). */
#include <string.h>
#include "sup_history.h"

static const struct sup_switch *nth(const struct sup_history *h, __u64 i)
{
	return &h->ring[i % NW_SUP_HISTORY];
}

/*
 * Kept in time order: a switch applied late (held in a stalled CPU's ring
 * buffer past the reorder window) goes back to its place.
 */
void sup_history_push(struct sup_history *h, __u64 t_ns, __u8 what)
{
	__u64 first = h->pushed > NW_SUP_HISTORY - 1 ?
			      h->pushed - (NW_SUP_HISTORY - 1) :
			      0;
	__u64 i = h->pushed;

	for (; i > first && nth(h, i - 1)->t_ns > t_ns; i--)
		h->ring[i % NW_SUP_HISTORY] = *nth(h, i - 1);
	memset(&h->ring[i % NW_SUP_HISTORY], 0, sizeof(h->ring[0]));
	h->ring[i % NW_SUP_HISTORY].t_ns = t_ns;
	h->ring[i % NW_SUP_HISTORY].what = what;
	h->pushed++;
}

/* The OUT at @t_ns among the newest few gets its stacks. */
void sup_history_stack(struct sup_history *h, __u64 t_ns, __s32 kstack,
		       __s32 ustack)
{
	__u64 i, stop = h->pushed > 8 ? h->pushed - 8 : 0;
	struct sup_switch *s;

	for (i = h->pushed; i > stop; i--) {
		s = &h->ring[(i - 1) % NW_SUP_HISTORY];
		if (s->t_ns != t_ns || s->what != SUP_OUT_BLOCKED)
			continue;
		s->kstack = kstack;
		s->ustack = ustack;
		s->have_stack = true;
		return;
	}
}

static void add_off(const struct sup_switch *out, __u64 from, __u64 to,
		    struct sup_split *acc, sup_blocked_fn blocked, void *ctx)
{
	__u64 d = to - from;

	if (out->what == SUP_OUT_RUNNABLE) {
		acc->runnable_ns += d;
		return;
	}
	acc->blocked_ns += d;
	if (blocked && out->have_stack && d)
		blocked(ctx, out, d);
}

/* The walk of sup_history_split() from switch @i, off by @off at @from. */
static enum sup_split_result walk(const struct sup_history *h, __u64 i,
				  const struct sup_switch *off, __u64 from,
				  __u64 to, struct sup_split *acc,
				  sup_blocked_fn blocked, void *ctx)
{
	__u64 t_off = from;

	for (; i < h->pushed && nth(h, i)->t_ns <= to; i++) {
		const struct sup_switch *s = nth(h, i);

		/*
		 * A thread's switches alternate. Without the IN between two
		 * OUTs, its running time between them would count as off
		 * the CPU (without the OUT between two INs, the other way).
		 */
		if ((s->what == SUP_IN) == !off)
			return SUP_SPLIT_GAP;
		if (s->what == SUP_IN) {
			add_off(off, t_off, s->t_ns, acc, blocked, ctx);
			off = NULL;
		} else {
			off = s;
			t_off = s->t_ns;
		}
	}
	if (off)
		add_off(off, t_off, to, acc, blocked, ctx);
	return SUP_SPLIT_OK;
}

/* The first switch in [@first, pushed) after @t_ns: the ring is in order. */
static __u64 first_after(const struct sup_history *h, __u64 first, __u64 t_ns)
{
	__u64 lo = first, hi = h->pushed, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (nth(h, mid)->t_ns <= t_ns)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

enum sup_split_result sup_history_split(const struct sup_history *h,
					__u64 known_since, __u64 from, __u64 to,
					struct sup_split *out,
					sup_blocked_fn blocked, void *ctx)
{
	__u64 first = h->pushed > NW_SUP_HISTORY ? h->pushed - NW_SUP_HISTORY :
						   0;
	const struct sup_switch *off = NULL; /* the OUT it is off the CPU by */
	struct sup_split acc = {}, again = {};
	enum sup_split_result r;
	__u64 i;

	if (to < from || from < known_since)
		return SUP_SPLIT_UNKNOWN;
	/* its state at @from: the last switch at or before it */
	i = first_after(h, first, from);
	if (i > first)
		off = nth(h, i - 1)->what == SUP_IN ? NULL : nth(h, i - 1);
	else if (first > 0)
		return SUP_SPLIT_UNKNOWN; /* the switches around @from are gone */
	r = walk(h, i, off, from, to, &acc, NULL, NULL);
	if (r != SUP_SPLIT_OK)
		return r;
	if (acc.runnable_ns + acc.blocked_ns > to - from)
		return SUP_SPLIT_UNKNOWN;
	/* the stacks only of a split that is given */
	if (blocked)
		walk(h, i, off, from, to, &again, blocked, ctx);
	acc.running_ns = to - from - acc.runnable_ns - acc.blocked_ns;
	*out = acc;
	return SUP_SPLIT_OK;
}
