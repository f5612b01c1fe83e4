// SPDX-License-Identifier: GPL-2.0
#include <string.h>
#include "bound_check.h"

static bool uncheckable(struct bound_signal *out, const char *why)
{
	out->status = BOUND_UNCHECKABLE;
	out->why = why;
	return false;
}

/* The three spans of the bound, each only when its ends are in order. */
static bool bound_spans(const struct knotif *k, __u64 sent,
			struct bound_signal *out)
{
	__u64 reply = k->ev.t_reply_ns, ret = k->ev.t_return_ns;

	if (!k->reply_reached || !reply)
		return uncheckable(out, "no reply reached the target");
	if (k->pending || !ret)
		return uncheckable(out,
				   "the target did not return while traced");
	if (!nw_span(sent, reply, &out->remaining_ns))
		return uncheckable(out, "sent after the reply");
	if (!nw_span(reply, ret, &out->wake_ns))
		return uncheckable(out, "returned before the reply");
	return true;
}

void bound_check_signal(const struct bound_config *cfg, const struct knotif *k,
			unsigned int i, struct bound_signal *out)
{
	const struct nw_signal *s;
	__u64 delivered;

	memset(out, 0, sizeof(*out));
	if (i >= k->ev.nsignals || i >= NW_MAX_SIGNALS ||
	    k->effect[i] != NW_EFFECT_DEFERRED) {
		out->status = BOUND_NOT_DEFERRED;
		return;
	}
	s = &k->ev.signals[i];
	delivered = k->t_delivered_ns[i];
	/* The budget needs only the pending time; the bound needs the reply. */
	out->budget_checked =
		nw_span(s->t_sent_ns, delivered, &out->pending_ns);
	if (out->budget_checked && cfg->budget_ns)
		out->budget_violated = out->pending_ns > cfg->budget_ns;
	if (!s->t_sent_ns) {
		uncheckable(out, "no send time (pending before the wait)");
		return;
	}
	if (!out->budget_checked) {
		uncheckable(out, delivered ? "delivered before sent" :
					     "no delivery time");
		return;
	}
	if (!bound_spans(k, s->t_sent_ns, out))
		return;
	out->status = BOUND_CHECKED;
	/* the scheduler's share cannot exceed the time from return to delivery */
	out->preempted_ns = k->preempted_ns[i];
	if (delivered > k->ev.t_return_ns) {
		if (out->preempted_ns > delivered - k->ev.t_return_ns)
			out->preempted_ns = delivered - k->ev.t_return_ns;
		out->delivery_ns =
			delivered - k->ev.t_return_ns - out->preempted_ns;
	} else {
		out->preempted_ns = 0;
	}
	out->allowed_ns = out->remaining_ns + out->wake_ns + out->preempted_ns +
			  cfg->slack_ns;
	/* = the delivery path: negative if delivered before the return */
	out->excess_ns = (__s64)out->pending_ns - (__s64)out->remaining_ns -
			 (__s64)out->wake_ns - (__s64)out->preempted_ns;
	out->bound_violated = out->pending_ns > out->allowed_ns;
}

void bound_check_knotif(const struct bound_config *cfg, const struct knotif *k,
			struct bound_knotif *out)
{
	unsigned int i;

	memset(out, 0, sizeof(*out));
	for (i = 0; i < k->ev.nsignals && i < NW_MAX_SIGNALS; i++) {
		struct bound_signal *b = &out->sig[i];

		bound_check_signal(cfg, k, i, b);
		if (b->status == BOUND_CHECKED)
			out->checked++;
		else if (b->status == BOUND_UNCHECKABLE)
			out->unchecked++;
		out->violations += b->bound_violated;
		out->budget_violations += b->budget_violated;
	}
}

void bound_check_init(struct bound_check *bc, const struct bound_config *cfg)
{
	memset(bc, 0, sizeof(*bc));
	bc->cfg = *cfg;
	bc->st.slack_ns = cfg->slack_ns;
	bc->st.budget_ns = cfg->budget_ns;
	bc->st.verdict = BOUND_UNKNOWN;
}

static enum bound_verdict verdict_of(const struct bound_stats *st)
{
	if (st->lost)
		return BOUND_UNKNOWN;
	if (st->violations || st->budget_violations)
		return BOUND_VIOLATED;
	return st->checked ? BOUND_HELD : BOUND_UNKNOWN;
}

void bound_check_add(struct bound_check *bc, const struct knotif *k)
{
	struct bound_stats *st = &bc->st;
	struct bound_knotif r;
	unsigned int i;

	bound_check_knotif(&bc->cfg, k, &r);
	for (i = 0; i < NW_MAX_SIGNALS; i++) {
		const struct bound_signal *b = &r.sig[i];

		if (b->budget_checked && b->pending_ns > st->max_pending_ns)
			st->max_pending_ns = b->pending_ns;
		if (b->status != BOUND_CHECKED)
			continue;
		if (!st->checked || b->excess_ns > st->max_excess_ns)
			st->max_excess_ns = b->excess_ns;
		st->checked++;
		if (b->preempted_ns)
			st->preempted++;
		if (b->preempted_ns > st->max_preempted_ns)
			st->max_preempted_ns = b->preempted_ns;
	}
	st->unchecked += r.unchecked;
	st->violations += r.violations;
	st->budget_violations += r.budget_violations;
	st->verdict = verdict_of(st);
}

void bound_check_set_lost(struct bound_check *bc, const struct nw_counters *bpf,
			  unsigned long long malformed,
			  unsigned long long no_memory)
{
	struct bound_stats *st = &bc->st;

	st->lost_records = bpf->lost_records;
	st->dropped_knotifs = bpf->dropped_knotifs;
	st->dropped_signals = bpf->dropped_signals;
	st->missed_runs = bpf->missed_runs;
	st->unidentified = bpf->unidentified;
	st->decode_errors = malformed + no_memory;
	st->lost = st->lost_records + st->dropped_knotifs +
		   st->dropped_signals + st->missed_runs + st->unidentified +
		   st->decode_errors;
	st->verdict = verdict_of(st);
}

void bound_check_stats(const struct bound_check *bc, struct bound_stats *out)
{
	if (!bc) {
		memset(out, 0, sizeof(*out));
		out->verdict = BOUND_UNKNOWN;
		return;
	}
	*out = bc->st;
}

const char *bound_verdict_name(enum bound_verdict v)
{
	switch (v) {
	case BOUND_HELD:
		return "held";
	case BOUND_VIOLATED:
		return "violated";
	default:
		return "unknown";
	}
}

int bound_verdict_exit_code(enum bound_verdict v)
{
	switch (v) {
	case BOUND_HELD:
		return 0;
	case BOUND_VIOLATED:
		return 1;
	default:
		return 2;
	}
}

const char *bound_unknown_reason(const struct bound_stats *st)
{
	if (st->verdict != BOUND_UNKNOWN)
		return NULL;
	if (st->lost)
		return "the tracer lost events, the data is partial";
	if (st->unchecked)
		return "no deferred signal had all of sent, reply, return and delivery";
	return "no deferred signal was traced";
}
