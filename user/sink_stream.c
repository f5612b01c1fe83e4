// SPDX-License-Identifier: GPL-2.0
/* The default output: one readable line per finished notification. */
#define _GNU_SOURCE
#include <inttypes.h>
#include <signal.h>
#include <string.h>
#include "errnames.h"
#include "escape.h"
#include "sinks.h"
#include "syscalls.h"

struct stream_state {
	bool header_done;
};

static void print_us(FILE *out, __u64 from, __u64 to)
{
	__u64 d = 0;

	if (nw_span(from, to, &d))
		fprintf(out, " %10.1f", d / 1000.0);
	else
		fprintf(out, " %10s", "-");
}

static void print_signals(FILE *out, const struct knotif *k)
{
	unsigned int i;
	__u64 pending = 0;

	for (i = 0; i < k->ev.nsignals && i < NW_MAX_SIGNALS; i++) {
		const struct nw_signal *s = &k->ev.signals[i];
		const char *name = sigabbrev_np(s->sig);

		fprintf(out, " SIG%s:%s", name ? name : "?",
			nw_effect_name(k->effect[i]));
		if (nw_span(s->t_sent_ns, k->t_delivered_ns[i], &pending))
			fprintf(out, ":%.1fus", pending / 1000.0);
	}
	for (i = 0; i < k->naddfd; i++) {
		const struct nw_addfd *a = &k->addfd[i];

		fprintf(out, " addfd%s:",
			a->flags & NW_ADDFD_FLAG_SEND ? "+send" : "");
		if (a->ret >= 0)
			fprintf(out, "fd%" PRId64, (int64_t)a->ret);
		else
			fprintf(out, "%s", nw_errno_name(a->ret));
	}
	if (k->reply_failed)
		fprintf(out, " reply:%s", nw_errno_name(k->failure.ret));
}

/* Before the first line of any kind (a notification or a failed reply). */
static void print_header(struct sink *s)
{
	struct stream_state *st = s->priv;

	if (st->header_done)
		return;
	fprintf(s->out,
		"%-10s %-22s %-10s %-22s %10s %10s %10s %-8s %-24s %s\n",
		"TIME(s)", "TARGET/TID", "SYSCALL", "SUPERVISOR", "QUEUE(us)",
		"HANDLE(us)", "WAKE(us)", "KILLABLE", "OUTCOME",
		"RET SIGNALS/ADDFD");
	st->header_done = true;
}

static void stream_knotif(struct sink *s, const struct knotif *k)
{
	const struct nw_knotif_event *e = &k->ev;
	__u64 t_reply = k->reply_reached ? e->t_reply_ns : 0;
	__u64 t_return = k->pending ? 0 : e->t_return_ns;
	__u64 t0 = e->t_notify_ns ? e->t_notify_ns : e->t_recv_ns;
	char comm[NW_TEXT_ESCAPED_SIZE(NW_COMM_LEN)];
	char target[sizeof(comm) + 12], supervisor[sizeof(comm) + 12];

	print_header(s);
	snprintf(target, sizeof(target), "%s/%u",
		 nw_text_escape(comm, sizeof(comm), e->comm, NW_COMM_LEN),
		 e->target_tid);
	if (e->supervisor_tgid)
		snprintf(supervisor, sizeof(supervisor), "%s/%u",
			 nw_text_escape(comm, sizeof(comm), e->supervisor_comm,
					NW_COMM_LEN),
			 e->supervisor_tgid);
	else
		snprintf(supervisor, sizeof(supervisor), "-");
	fprintf(s->out, "%-10.6f %-22s %-10s %-22s",
		t0 > s->info->start_ns ? (t0 - s->info->start_ns) / 1e9 : 0.0,
		target, nw_syscall_name(e->nr), supervisor);
	print_us(s->out, e->t_notify_ns, e->t_recv_ns);
	print_us(s->out, e->t_recv_ns, t_reply);
	print_us(s->out, t_reply, t_return);
	fprintf(s->out, " %-8s %-24s",
		e->t_killable_ns	? nw_cause_name(e->killable_cause) :
		knotif_killable_rule(k) ? "armed" :
					  "no",
		nw_outcome_name(k->outcome));
	if (t_return && !e->ret_unknown)
		fprintf(s->out, " %" PRId64, (int64_t)e->ret);
	else
		fprintf(s->out, " -");
	if (k->attempt > 1)
		fprintf(s->out, " restart#%u", k->attempt - 1);
	if (k->interrupt_cause != NW_INTR_NONE)
		fprintf(s->out, " by:%s->%s",
			nw_interrupt_cause_name(k->interrupt_cause),
			nw_interrupt_result_name(k->interrupt_result));
	print_signals(s->out, k);
	fputc('\n', s->out);
}

static void stream_reply_failed(struct sink *s,
				const struct nw_reply_failed_event *r)
{
	print_header(s);
	fprintf(s->out,
		"%-10.6f supervisor %u: %s for notification %" PRIu64
		" failed: %s\n",
		r->t_ns > s->info->start_ns ?
			(r->t_ns - s->info->start_ns) / 1e9 :
			0.0,
		r->supervisor_tgid,
		NW_IOCTL_IS_ADDFD(r->op) ? "NOTIF_ADDFD" : "NOTIF_SEND",
		(uint64_t)r->key.id, nw_errno_name(r->ret));
}

struct sink *sink_stream_new(FILE *out, const struct report_info *info)
{
	struct sink *s =
		sink_alloc("stream", out, info, sizeof(struct stream_state));

	if (!s)
		return NULL;
	s->knotif = stream_knotif;
	s->reply_failed = stream_reply_failed;
	return s;
}
