// SPDX-License-Identifier: GPL-2.0
/*
 * --check-bound: every deferred signal that broke the bound (or the budget)
 * with its notification's timeline, then the verdict lines at exit.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <signal.h>
#include <string.h>
#include "bound_check.h"
#include "escape.h"
#include "sinks.h"
#include "syscalls.h"

static const char *sig_name(__u32 sig)
{
	const char *n = sigabbrev_np(sig);

	return n ? n : "?";
}

/* A timestamp in µs after @t0, or "-" when it did not happen. */
static void print_rel(FILE *out, const char *what, __u64 t, __u64 t0)
{
	if (t && t >= t0)
		fprintf(out, " %s +%.1f", what, (t - t0) / 1e3);
	else
		fprintf(out, " %s -", what);
}

static void print_timeline(FILE *out, const struct knotif *k, unsigned int i)
{
	const struct nw_knotif_event *e = &k->ev;
	__u64 t0 = e->t_notify_ns ? e->t_notify_ns : e->t_recv_ns;

	if (!t0 || e->signals[i].t_sent_ns < t0)
		t0 = e->signals[i].t_sent_ns;
	fprintf(out, "  timeline (us after %s):",
		e->t_notify_ns ? "notify" : "the first event");
	print_rel(out, "notify", e->t_notify_ns, t0);
	print_rel(out, "recv", e->t_recv_ns, t0);
	print_rel(out, "killable", e->t_killable_ns, t0);
	print_rel(out, "reply", k->reply_reached ? e->t_reply_ns : 0, t0);
	print_rel(out, "return", k->pending ? 0 : e->t_return_ns, t0);
	fprintf(out, " | SIG%s", sig_name(e->signals[i].sig));
	print_rel(out, "sent", e->signals[i].t_sent_ns, t0);
	print_rel(out, "delivered", k->t_delivered_ns[i], t0);
	fputc('\n', out);
}

static void print_who(FILE *out, const struct knotif *k)
{
	const struct nw_knotif_event *e = &k->ev;
	char comm[NW_TEXT_ESCAPED_SIZE(NW_COMM_LEN)];

	fprintf(out, "%s/%u %s id %" PRIu64,
		nw_text_escape(comm, sizeof(comm), e->comm, NW_COMM_LEN),
		e->target_tid, nw_syscall_name(e->nr), (uint64_t)e->key.id);
	if (e->supervisor_tgid)
		fprintf(out, " supervisor %s/%u",
			nw_text_escape(comm, sizeof(comm), e->supervisor_comm,
				       NW_COMM_LEN),
			e->supervisor_tgid);
}

static void bound_knotif(struct sink *s, const struct knotif *k)
{
	const struct bound_config *cfg = s->info->bound;
	struct bound_knotif r;
	unsigned int i;

	bound_check_knotif(cfg, k, &r);
	if (!r.violations && !r.budget_violations)
		return;
	for (i = 0; i < k->ev.nsignals && i < NW_MAX_SIGNALS; i++) {
		const struct bound_signal *b = &r.sig[i];
		const char *sig = sig_name(k->ev.signals[i].sig);

		if (b->bound_violated) {
			fprintf(s->out, "bound violation: ");
			print_who(s->out, k);
			fprintf(s->out,
				": SIG%s pending %.1fus > %.1fus allowed (reply-sent %.1fus + wake %.1fus + preempted %.1fus + slack %.1fus), excess %.1fus\n",
				sig, b->pending_ns / 1e3, b->allowed_ns / 1e3,
				b->remaining_ns / 1e3, b->wake_ns / 1e3,
				b->preempted_ns / 1e3, cfg->slack_ns / 1e3,
				b->excess_ns / 1e3);
			print_timeline(s->out, k, i);
		}
		if (b->budget_violated) {
			fprintf(s->out, "budget violation: ");
			print_who(s->out, k);
			fprintf(s->out,
				": SIG%s pending %.1fus > budget %.1fus\n", sig,
				b->pending_ns / 1e3, cfg->budget_ns / 1e3);
			print_timeline(s->out, k, i);
		}
	}
}

static void print_unchecked(FILE *out, const struct bound_stats *st)
{
	if (st->unchecked)
		fprintf(out,
			"; %llu more deferred not checkable (no reply, or a timestamp missing)",
			st->unchecked);
}

static void bound_finish(struct sink *s, const struct run_totals *t)
{
	struct bound_stats st;
	const char *why;

	bound_check_stats(t->bound, &st);
	why = bound_unknown_reason(&st);
	if (why) {
		fprintf(s->out, "bound: cannot check: %s", why);
		if (st.lost)
			fprintf(s->out,
				" (%llu notifications dropped (map full), %llu records lost, %llu signals dropped, %llu probe runs missed, %llu unidentified, %llu undecodable)",
				st.dropped_knotifs, st.lost_records,
				st.dropped_signals, st.missed_runs,
				st.unidentified, st.decode_errors);
		fprintf(s->out,
			"; %llu deferred signals checked, %llu bound violations, %llu budget violations\n",
			st.checked, st.violations, st.budget_violations);
		return;
	}
	if (st.violations)
		fprintf(s->out,
			"bound: VIOLATED by %llu of %llu deferred signals",
			st.violations, st.checked);
	else
		fprintf(s->out, "bound: held for %llu deferred signals",
			st.checked);
	fprintf(s->out,
		" (max excess %.1fus over reply-sent+wake, slack %.1fus)",
		st.max_excess_ns / 1e3, st.slack_ns / 1e3);
	/* the scheduler's share: reported, not held against seccomp */
	if (st.preempted)
		fprintf(s->out,
			"; not counted: %llu preempted before delivery, up to %.1fus",
			st.preempted, st.max_preempted_ns / 1e3);
	print_unchecked(s->out, &st);
	fputc('\n', s->out);
	if (!st.budget_ns)
		return;
	if (st.budget_violations)
		fprintf(s->out,
			"budget: VIOLATED by %llu deferred signals pending longer than %.1fus (max pending %.1fus)\n",
			st.budget_violations, st.budget_ns / 1e3,
			st.max_pending_ns / 1e3);
	else
		fprintf(s->out,
			"budget: held: no deferred signal pending longer than %.1fus (max pending %.1fus)\n",
			st.budget_ns / 1e3, st.max_pending_ns / 1e3);
}

struct sink *sink_bound_new(FILE *out, const struct report_info *info)
{
	struct sink *s = sink_alloc("bound", out, info, 0);

	if (!s)
		return NULL;
	s->knotif = bound_knotif;
	s->finish = bound_finish;
	return s;
}
