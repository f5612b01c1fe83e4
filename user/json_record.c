// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include "bound_check.h"
#include "errnames.h"
#include "findings.h"
#include "json_record.h"
#include "json_writer.h"
#include "syscalls.h"

static void span_or_null(struct json_writer *w, const char *key, __u64 from,
			 __u64 to)
{
	__u64 d = 0;
	bool known = nw_span(from, to, &d);

	jw_uint_or_null(w, key, known, d);
}

/* --check-bound: where a checked signal's pending time went. */
static void write_pending_split(struct json_writer *w, const struct knotif *k,
				unsigned int i, const struct bound_config *cfg)
{
	struct bound_signal b;

	if (!cfg)
		return;
	bound_check_signal(cfg, k, i, &b);
	if (b.status != BOUND_CHECKED) {
		jw_null(w, "pending_split");
		return;
	}
	jw_begin_object(w, "pending_split");
	jw_uint(w, "supervisor_ns", b.remaining_ns);
	jw_uint(w, "wake_ns", b.wake_ns);
	jw_uint(w, "preempted_ns", b.preempted_ns);
	jw_uint(w, "delivery_ns", b.delivery_ns);
	jw_end_object(w);
}

static void write_signals(struct json_writer *w, const struct knotif *k,
			  const struct bound_config *cfg)
{
	unsigned int i;
	__u64 pending = 0;
	bool known;

	jw_begin_array(w, "signals");
	for (i = 0; i < k->ev.nsignals && i < NW_MAX_SIGNALS; i++) {
		const struct nw_signal *s = &k->ev.signals[i];
		__u64 delivered = k->t_delivered_ns[i];

		jw_begin_object(w, NULL);
		jw_uint(w, "sig", s->sig);
		jw_uint_or_null(w, "sender_pid", s->sender_tgid,
				s->sender_tgid);
		jw_uint_or_null(w, "t_sent_ns", s->t_sent_ns, s->t_sent_ns);
		jw_uint_or_null(w, "t_delivered_ns", delivered, delivered);
		known = nw_span(s->t_sent_ns, delivered, &pending);
		jw_uint_or_null(w, "pending_ns", known, pending);
		jw_string(w, "effect", nw_effect_name(k->effect[i]));
		jw_bool(w, "after_recv", s->after_recv);
		jw_bool(w, "sent_before_wait", s->before_wait);
		jw_bool(w, "seen_after_return", s->seen_after_return);
		write_pending_split(w, k, i, cfg);
		jw_end_object(w);
	}
	jw_end_array(w);
	jw_uint(w, "signals_dropped", k->ev.signals_dropped);
}

static void write_addfd(struct json_writer *w, const struct knotif *k)
{
	unsigned int i;

	jw_begin_array(w, "addfd");
	for (i = 0; i < k->naddfd; i++) {
		const struct nw_addfd *a = &k->addfd[i];
		bool ok = a->ret >= 0;

		jw_begin_object(w, NULL);
		jw_uint(w, "t_ns", a->t_ns);
		jw_uint(w, "t_done_ns", a->t_exit_ns);
		jw_uint(w, "flags", a->flags);
		jw_bool(w, "setfd", a->flags & NW_ADDFD_FLAG_SETFD);
		jw_bool(w, "send", a->flags & NW_ADDFD_FLAG_SEND);
		jw_uint_or_null(w, "fd", ok, (__u64)a->ret);
		jw_uint_or_null(w, "error", !ok, (__u64)-a->ret);
		jw_string_or_null(w, "error_name",
				  ok ? NULL : nw_errno_name(a->ret));
		jw_end_object(w);
	}
	jw_end_array(w);
}

/* The restart chain and, when interrupted, why and what came of it. */
static void write_chain(struct json_writer *w, const struct knotif *k)
{
	__u64 total = 0;
	bool ended = knotif_chain_total(k, &total);

	jw_uint_or_null(w, "restart_of", k->have_restart_of, k->restart_of);
	jw_uint(w, "attempt", k->attempt ? k->attempt : 1);
	jw_uint_or_null(w, "chain_total_ns", ended, total);
	jw_string_or_null(w, "interrupt_cause",
			  nw_interrupt_cause_name(k->interrupt_cause));
	jw_string_or_null(w, "interrupt_result",
			  nw_interrupt_result_name(k->interrupt_result));
	/* unreceived at its end: the id its supervisor was busy with */
	jw_uint_or_null(w, "queued_behind", k->have_queued_behind,
			k->queued_behind);
}

/* Issue #18: where the replier's handle time went (null parts: not known). */
static void write_handle_split(struct json_writer *w, const struct knotif *k)
{
	bool known = k->handle_split.known;

	if (!k->reply_reached || !k->have_handle_split) {
		jw_null(w, "handle_split");
		return;
	}
	jw_begin_object(w, "handle_split");
	jw_uint_or_null(w, "running_ns", known, k->handle_split.running_ns);
	jw_uint_or_null(w, "runnable_ns", known, k->handle_split.runnable_ns);
	jw_uint_or_null(w, "blocked_ns", known, k->handle_split.blocked_ns);
	jw_uint(w, "thread", k->handle_split.thread);
	jw_uint(w, "recv_thread", k->handle_split.recv_thread);
	jw_end_object(w);
}

/* "0x%llx", without printf: once per record */
static void hex_u64(char buf[19], __u64 v)
{
	char d[16];
	int n = 0, i = 2;

	do
		d[n++] = "0123456789abcdef"[v & 15];
	while (v >>= 4);
	buf[0] = '0';
	buf[1] = 'x';
	while (n)
		buf[i++] = d[--n];
	buf[i] = 0;
}

/* "supervisor_busy_ns" ... from queue_split's state names */
static void write_queue_states(struct json_writer *w, const __u64 *ns)
{
	/* built once: formatting them was 8% of the reporter's instructions */
	static char keys[NW_QUEUE_STATES][40];
	int i;

	for (i = 0; i < NW_QUEUE_STATES; i++) {
		if (!keys[i][0])
			snprintf(keys[i], sizeof(keys[i]), "%s_ns",
				 nw_queue_state_name(i));
		jw_uint(w, keys[i], ns[i]);
	}
}

/* Issue #18: what the supervisor did while the notification was queued. */
static void write_queue_split(struct json_writer *w, const struct knotif *k)
{
	if (!k->have_queue_split) {
		jw_null(w, "queue_split");
		return;
	}
	jw_begin_object(w, "queue_split");
	write_queue_states(w, k->queue_split);
	jw_end_object(w);
}

static void write_reply(struct json_writer *w, const struct knotif *k)
{
	const struct nw_knotif_event *e = &k->ev;

	if (!k->reply_reached) {
		jw_null(w, "reply");
		return;
	}
	jw_begin_object(w, "reply");
	jw_string(w, "kind", nw_reply_kind_name(e->reply_kind));
	jw_int(w, "val", e->reply_val);
	jw_int(w, "error", e->reply_error);
	jw_end_object(w);
}

/* --check-bound: the signals of this notification that broke it. */
static void write_bound_violation(struct json_writer *w, const struct knotif *k,
				  const struct bound_config *cfg)
{
	struct bound_knotif r;
	unsigned int i;

	bound_check_knotif(cfg, k, &r);
	if (!r.violations && !r.budget_violations)
		return;
	jw_begin_object(w, "bound_violation");
	jw_uint(w, "violations", r.violations);
	jw_uint(w, "budget_violations", r.budget_violations);
	jw_begin_array(w, "signals");
	for (i = 0; i < k->ev.nsignals && i < NW_MAX_SIGNALS; i++) {
		const struct bound_signal *b = &r.sig[i];

		if (!b->bound_violated && !b->budget_violated)
			continue;
		jw_begin_object(w, NULL);
		jw_uint(w, "index", i);
		jw_uint(w, "sig", k->ev.signals[i].sig);
		jw_uint(w, "pending_ns", b->pending_ns);
		jw_bool(w, "bound", b->bound_violated);
		jw_bool(w, "budget", b->budget_violated);
		jw_uint_or_null(w, "allowed_ns", b->status == BOUND_CHECKED,
				b->allowed_ns);
		if (b->status == BOUND_CHECKED)
			jw_int(w, "excess_ns", b->excess_ns);
		else
			jw_null(w, "excess_ns");
		jw_end_object(w);
	}
	jw_end_array(w);
	jw_end_object(w);
}

void json_write_knotif(FILE *out, const struct knotif *k)
{
	json_write_knotif_bound(out, k, NULL);
}

void json_write_knotif_bound(FILE *out, const struct knotif *k,
			     const struct bound_config *bound)
{
	const struct nw_knotif_event *e = &k->ev;
	__u64 t_reply = k->reply_reached ? e->t_reply_ns : 0;
	__u64 t_return = k->pending ? 0 : e->t_return_ns;
	__u64 until_killable = e->t_killable_ns ? e->t_killable_ns : t_return;
	struct json_writer w;
	char listener[24];

	hex_u64(listener, e->key.filter);
	jw_init(&w, out);
	jw_begin_object(&w, NULL);
	jw_string(&w, "type", "notif");
	jw_uint(&w, "id", e->key.id);
	jw_uint(&w, "target_pid", e->target_tgid);
	jw_uint(&w, "target_tid", e->target_tid);
	jw_uint(&w, "target_seen_pid", e->target_vtid);
	jw_string(&w, "comm", e->comm);
	jw_string(&w, "syscall", nw_syscall_name(e->nr));
	jw_int(&w, "nr", e->nr);
	jw_uint_or_null(&w, "supervisor_pid", e->supervisor_tgid,
			e->supervisor_tgid);
	jw_string_or_null(&w, "supervisor_comm",
			  e->supervisor_tgid ? e->supervisor_comm : NULL);
	jw_uint_or_null(&w, "supervisor_seen_pid", e->supervisor_tgid,
			e->supervisor_seen_pid);
	jw_string(&w, "listener", listener);
	jw_bool(&w, "killable_recv", knotif_killable_rule(k));
	jw_bool(&w, "filter_killable", e->filter_killable);
	jw_bool(&w, "recv_flag", e->recv_flag);
	jw_uint_or_null(&w, "t_notify_ns", e->t_notify_ns, e->t_notify_ns);
	jw_string_or_null(&w, "notify_seen_at",
			  nw_notify_source_name(e->notify_source));
	jw_uint_or_null(&w, "t_recv_ns", e->t_recv_ns, e->t_recv_ns);
	jw_uint_or_null(&w, "t_killable_ns", e->t_killable_ns,
			e->t_killable_ns);
	jw_string_or_null(&w, "killable_cause",
			  e->t_killable_ns ? nw_cause_name(e->killable_cause) :
					     NULL);
	/* which form of the killable wait made it killable (seed or upstream) */
	jw_string_or_null(&w, "killable_by",
			  !e->t_killable_ns  ? NULL :
			  e->recv_flag	     ? "recv_flag" :
			  e->filter_killable ? "filter_flag" :
					       NULL);
	jw_uint_or_null(&w, "t_reply_ns", t_reply, t_reply);
	jw_uint_or_null(&w, "t_return_ns", t_return, t_return);
	span_or_null(&w, "queue_ns", e->t_notify_ns, e->t_recv_ns);
	span_or_null(&w, "handle_ns", e->t_recv_ns, t_reply);
	span_or_null(&w, "wake_ns", t_reply, t_return);
	span_or_null(&w, "total_ns", e->t_notify_ns, t_return);
	span_or_null(&w, "interruptible_ns", e->t_notify_ns, until_killable);
	span_or_null(&w, "killable_ns", e->t_killable_ns, t_return);
	jw_string(&w, "outcome", nw_outcome_name(k->outcome));
	if (t_return && !e->ret_unknown)
		jw_int(&w, "ret", e->ret);
	else
		jw_null(&w, "ret");
	write_chain(&w, k);
	write_reply(&w, k);
	write_handle_split(&w, k);
	write_queue_split(&w, k);
	if (k->reply_failed) {
		jw_begin_object(&w, "reply_failed");
		jw_uint(&w, "t_ns", k->failure.t_ns);
		jw_string(&w, "error", nw_errno_name(k->failure.ret));
		jw_end_object(&w);
	}
	write_signals(&w, k, bound);
	write_addfd(&w, k);
	jw_uint(&w, "interruptible_sleeps", e->interruptible_sleeps);
	jw_uint(&w, "killable_sleeps", e->killable_sleeps);
	if (bound)
		write_bound_violation(&w, k, bound);
	jw_end_object(&w);
	fputc('\n', out);
}

void json_write_reply_failed(FILE *out, const struct nw_reply_failed_event *r)
{
	struct json_writer w;

	jw_init(&w, out);
	jw_begin_object(&w, NULL);
	jw_string(&w, "type", "reply_failed");
	jw_uint(&w, "id", r->key.id);
	jw_string(&w, "op", NW_IOCTL_IS_ADDFD(r->op) ? "addfd" : "send");
	jw_uint(&w, "supervisor_pid", r->supervisor_tgid);
	jw_uint(&w, "t_ns", r->t_ns);
	jw_uint(&w, "errno", (__u64)-r->ret);
	jw_string(&w, "error", nw_errno_name(r->ret));
	jw_end_object(&w);
	fputc('\n', out);
}

void json_write_lost(FILE *out, const struct run_totals *t)
{
	struct json_writer w;

	jw_init(&w, out);
	jw_begin_object(&w, NULL);
	jw_string(&w, "type", "lost");
	jw_uint(&w, "events", t->bpf.lost_records);
	jw_uint(&w, "knotifs_dropped", t->bpf.dropped_knotifs);
	jw_uint(&w, "signals_dropped", t->bpf.dropped_signals);
	jw_uint(&w, "missed_runs", t->bpf.missed_runs);
	jw_uint(&w, "unidentified", t->bpf.unidentified);
	jw_uint(&w, "malformed", t->malformed);
	jw_uint(&w, "no_memory", t->no_memory);
	jw_uint(&w, "late_facts", t->late_facts);
	jw_uint(&w, "switch_gaps", t->switch_gaps);
	if (t->stacks)
		jw_uint(&w, "stacks_lost", t->bpf.lost_stacks);
	jw_end_object(&w);
	fputc('\n', out);
}

static void write_groups(struct json_writer *w, const char *key,
			 const struct nw_group_list *l)
{
	size_t i;

	jw_begin_array(w, key);
	for (i = 0; i < l->n; i++) {
		struct nw_group *g = &l->groups[i];

		jw_begin_object(w, NULL);
		jw_string(w, "name", g->name);
		jw_uint(w, "count", g->count);
		jw_uint(w, "handle_p50_ns", stats_percentile(g, 50));
		jw_uint(w, "handle_p99_ns", stats_percentile(g, 99));
		jw_uint(w, "handle_max_ns", stats_percentile(g, 100));
		jw_uint(w, "interrupted", g->interrupted);
		jw_uint(w, "deferred_signals", g->deferred);
		jw_uint(w, "max_pending_ns", g->max_pending_ns);
		jw_begin_object(w, "handle_state");
		jw_uint(w, "split", g->split);
		jw_uint(w, "running_ns", g->running_ns);
		jw_uint(w, "runnable_ns", g->runnable_ns);
		jw_uint(w, "blocked_ns", g->blocked_ns);
		jw_end_object(w);
		jw_begin_object(w, "queue_state");
		jw_uint(w, "split", g->queue_split);
		write_queue_states(w, g->queue_ns);
		jw_end_object(w);
		jw_end_object(w);
	}
	jw_end_array(w);
}

static void write_bound_summary(struct json_writer *w,
				const struct bound_check *bc)
{
	struct bound_stats st;

	bound_check_stats(bc, &st);
	jw_begin_object(w, "bound");
	jw_string(w, "verdict", bound_verdict_name(st.verdict));
	jw_string_or_null(w, "reason", bound_unknown_reason(&st));
	jw_uint(w, "checked", st.checked);
	jw_uint(w, "violations", st.violations);
	jw_uint(w, "budget_violations", st.budget_violations);
	jw_uint(w, "unchecked", st.unchecked);
	if (st.checked)
		jw_int(w, "max_excess_ns", st.max_excess_ns);
	else
		jw_null(w, "max_excess_ns");
	jw_uint(w, "max_pending_ns", st.max_pending_ns);
	jw_uint(w, "preempted", st.preempted);
	jw_uint(w, "max_preempted_ns", st.max_preempted_ns);
	jw_uint(w, "slack_ns", st.slack_ns);
	jw_uint_or_null(w, "budget_ns", st.budget_ns, st.budget_ns);
	jw_uint(w, "lost", st.lost);
	jw_uint(w, "lost_records", st.lost_records);
	jw_uint(w, "dropped_knotifs", st.dropped_knotifs);
	jw_uint(w, "dropped_signals", st.dropped_signals);
	jw_uint(w, "missed_runs", st.missed_runs);
	jw_uint(w, "unidentified", st.unidentified);
	jw_end_object(w);
}

static void write_names(struct json_writer *w, const char *key,
			const struct finding_names *l, const char *flag)
{
	unsigned int i;

	jw_begin_array(w, key);
	for (i = 0; l && i < l->n; i++) {
		jw_begin_object(w, NULL);
		jw_string(w, "name", l->v[i].name);
		jw_uint(w, "count", l->v[i].count);
		if (flag)
			jw_bool(w, flag, l->v[i].flag);
		jw_end_object(w);
	}
	jw_end_array(w);
	if (l && l->others)
		jw_uint(w, "others", l->others);
}

/* "findings":[{"kind","severity","count","evidence":{..},"advice"}] */
static void write_findings(struct json_writer *w, const struct findings *fs)
{
	struct finding out[FINDING_COUNT];
	unsigned int n = fs ? findings_report(fs, out) : 0, i, j;

	jw_begin_array(w, "findings");
	for (i = 0; i < n; i++) {
		const struct finding *f = &out[i];

		jw_begin_object(w, NULL);
		jw_string(w, "kind", finding_kind_name(f->kind));
		jw_string(w, "severity", finding_severity_name(f->severity));
		jw_uint(w, "count", f->count);
		jw_begin_object(w, "evidence");
		for (j = 0; j < f->nnum; j++)
			jw_uint(w, f->num[j].key, f->num[j].v);
		write_names(w, "syscalls", f->syscalls, f->syscalls_flag);
		write_names(w, "supervisors", f->supervisors, NULL);
		jw_begin_array(w, "examples");
		for (j = 0; j < f->nex; j++)
			jw_uint(w, NULL, f->ex[j].id);
		jw_end_array(w);
		if (f->top_stack)
			jw_string(w, "top_stack", f->top_stack);
		jw_end_object(w);
		jw_string(w, "advice", f->advice);
		jw_end_object(w);
	}
	jw_end_array(w);
}

void json_write_summary(FILE *out, const struct report_info *info,
			const struct run_totals *t)
{
	const struct stats *s = t->stats;
	struct json_writer w;
	int i;

	jw_init(&w, out);
	jw_begin_object(&w, NULL);
	jw_string(&w, "type", "summary");
	jw_string(&w, "backend", info->backend);
	jw_string(&w, "backend_reason", info->backend_reason);
	jw_double(&w, "elapsed_s", t->elapsed_s);
	jw_uint(&w, "notifications", s->knotifs);
	jw_begin_object(&w, "outcomes");
	for (i = 0; i < NW_OUTCOME_COUNT; i++)
		jw_uint(&w, nw_outcome_name(i), s->by_outcome[i]);
	jw_end_object(&w);
	jw_uint(&w, "signals", s->signals);
	jw_begin_object(&w, "signal_effects");
	for (i = 0; i < NW_EFFECT_COUNT; i++)
		jw_uint(&w, nw_effect_name(i), s->by_effect[i]);
	jw_end_object(&w);
	jw_uint(&w, "max_deferred_pending_ns", s->max_deferred_pending_ns);
	jw_uint(&w, "addfd_ok", s->addfd_ok);
	jw_uint(&w, "addfd_failed", s->addfd_failed);
	jw_uint(&w, "reply_failed", s->reply_failed);
	jw_uint(&w, "lost_events", t->bpf.lost_records);
	write_groups(&w, "supervisors", &s->by_supervisor);
	write_groups(&w, "syscalls", &s->by_syscall);
	if (t->bound)
		write_bound_summary(&w, t->bound);
	write_findings(&w, t->findings);
	jw_end_object(&w);
	fputc('\n', out);
}
