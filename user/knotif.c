// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <signal.h>
#include <stddef.h>
#include <string.h>
#include "knotif.h"

#define ERESTARTSYS 512
#define TRACE_SIGNAL_IGNORED 1
#define TRACE_SIGNAL_ALREADY_PENDING 2
#define SIGRTMIN_KERNEL 32 /* the kernel's, below glibc's SIGRTMIN */

static const char *const outcome_names[NW_OUTCOME_COUNT] = {
	[NW_OUTCOME_REPLIED] = "replied",
	[NW_OUTCOME_CONTINUED] = "continued",
	[NW_OUTCOME_INTERRUPTED_BEFORE_RECV] = "interrupted_before_recv",
	[NW_OUTCOME_INTERRUPTED_AFTER_RECV] = "interrupted_after_recv",
	[NW_OUTCOME_KILLED] = "killed",
	[NW_OUTCOME_SUPERVISOR_GONE] = "supervisor_gone",
	[NW_OUTCOME_PENDING] = "pending",
	[NW_OUTCOME_UNKNOWN] = "unknown",
};

static const char *const effect_names[NW_EFFECT_COUNT] = {
	[NW_EFFECT_DEFERRED] = "deferred",
	[NW_EFFECT_INTERRUPTED] = "interrupted",
	[NW_EFFECT_FATAL] = "fatal",
	[NW_EFFECT_COALESCED] = "coalesced",
	[NW_EFFECT_IGNORED] = "ignored",
	[NW_EFFECT_BLOCKED] = "blocked",
	[NW_EFFECT_AFTER_REPLY] = "after_reply",
	[NW_EFFECT_RACED_REPLY] = "raced_reply",
	[NW_EFFECT_PENDING] = "pending",
};

const char *nw_outcome_name(enum nw_outcome o)
{
	return o < NW_OUTCOME_COUNT ? outcome_names[o] : "unknown";
}

const char *nw_effect_name(enum nw_signal_effect e)
{
	return e < NW_EFFECT_COUNT ? effect_names[e] : "unknown";
}

const char *nw_cause_name(__u8 cause)
{
	switch (cause) {
	case NW_CAUSE_RECV:
		return "recv";
	case NW_CAUSE_SIGNAL:
		return "signal";
	case NW_CAUSE_ADDFD:
		return "addfd";
	default:
		return NULL;
	}
}

const char *nw_reply_kind_name(__u8 kind)
{
	switch (kind) {
	case NW_REPLY_VALUE:
		return "value";
	case NW_REPLY_ERROR:
		return "error";
	case NW_REPLY_CONTINUE:
		return "continue";
	case NW_REPLY_ADDFD_SEND:
		return "addfd_send";
	default:
		return NULL;
	}
}

const char *nw_notify_source_name(__u8 source)
{
	switch (source) {
	case NW_SEEN_WAKEUP:
		return "wakeup";
	case NW_SEEN_SLEEP:
		return "sleep";
	case NW_SEEN_RECV:
		return "recv";
	case NW_SEEN_ENTRY:
		return "entry";
	case NW_SEEN_SIGNAL:
		return "signal";
	case NW_SEEN_EXIT:
		return "exit";
	default:
		return NULL;
	}
}

const char *nw_interrupt_cause_name(enum nw_interrupt_cause c)
{
	static const char *const names[] = {
		[NW_INTR_SIGNAL] = "signal",
		[NW_INTR_FREEZER] = "freezer",
		[NW_INTR_OTHER] = "other",
	};

	return (unsigned int)c < sizeof(names) / sizeof(names[0]) ? names[c] :
								    NULL;
}

const char *nw_interrupt_result_name(enum nw_interrupt_result r)
{
	static const char *const names[] = {
		[NW_INTR_RESTARTED] = "restarted",
		[NW_INTR_EINTR] = "eintr",
		[NW_INTR_EXITED] = "exited",
	};

	return (unsigned int)r < sizeof(names) / sizeof(names[0]) ? names[r] :
								    NULL;
}

const char *nw_queue_state_name(enum nw_queue_state s)
{
	static const char *const names[] = {
		[NW_QUEUE_RUNNABLE] = "supervisor_runnable",
		[NW_QUEUE_BUSY] = "supervisor_busy",
		[NW_QUEUE_BLOCKED] = "supervisor_blocked",
		[NW_QUEUE_NO_RECEIVER] = "no_receiver",
		[NW_QUEUE_UNKNOWN] = "unknown",
	};

	return (unsigned int)s < NW_QUEUE_STATES ? names[s] : NULL;
}

void nw_supervisor_name(char *buf, size_t len, const char *comm, __u32 tgid)
{
	static const char none[] = "(not received)";
	char digits[10];
	size_t n = 0, d = 0;

	if (!len)
		return;
	if (!tgid) {
		while (n + 1 < len && none[n]) {
			buf[n] = none[n];
			n++;
		}
		buf[n] = 0;
		return;
	}
	while (n < 16 && n + 1 < len && comm[n]) {
		buf[n] = comm[n];
		n++;
	}
	do
		digits[d++] = '0' + tgid % 10;
	while (tgid /= 10);
	if (n + 1 < len)
		buf[n++] = '/';
	while (d && n + 1 < len)
		buf[n++] = digits[--d];
	buf[n] = 0;
}

__u64 knotif_chain_start(const struct knotif *k)
{
	if (k->t_chain_start_ns)
		return k->t_chain_start_ns;
	if (k->ev.t_notify_ns)
		return k->ev.t_notify_ns;
	if (k->ev.t_recv_ns)
		return k->ev.t_recv_ns;
	return k->ev.t_return_ns;
}

bool knotif_chain_total(const struct knotif *k, __u64 *out)
{
	if (k->pending || k->interrupt_result == NW_INTR_RESTARTED)
		return false;
	return nw_span(knotif_chain_start(k), k->ev.t_return_ns, out);
}

void knotif_add_prior_guess(struct knotif *k)
{
	struct nw_knotif_event *e = &k->ev;
	struct nw_signal *s;

	if (!e->prior_sig || e->nsignals >= NW_MAX_SIGNALS)
		return;
	/* first: it was sent before any signal recorded in the wait */
	memmove(&e->signals[1], &e->signals[0],
		e->nsignals * sizeof(e->signals[0]));
	memmove(&k->t_delivered_ns[1], &k->t_delivered_ns[0],
		e->nsignals * sizeof(k->t_delivered_ns[0]));
	s = &e->signals[0];
	memset(s, 0, sizeof(*s));
	s->sig = e->prior_sig;
	s->before_wait = 1;
	k->t_delivered_ns[0] = 0;
	e->nsignals++;
	e->prior_sig = 0;
}

/* Whether a signal sent at @t_sent_ns belongs to the wait of @e. */
static bool sent_during_wait(const struct nw_knotif_event *e, __u64 t_sent_ns)
{
	return !e->t_return_ns || t_sent_ns <= e->t_return_ns;
}

/* Add @s after the record's signals; false when they are full. */
static bool append_signal(struct knotif *k, const struct nw_signal *s,
			  __u64 t_delivered_ns)
{
	unsigned int n = k->ev.nsignals;

	if (n >= NW_MAX_SIGNALS)
		return false;
	k->ev.signals[n] = *s;
	k->t_delivered_ns[n] = t_delivered_ns;
	k->ev.nsignals = n + 1;
	return true;
}

void knotif_add_addfd(struct knotif *k, const struct nw_addfd_event *a)
{
	struct nw_addfd *slot;

	if (k->naddfd >= NW_MAX_ADDFD) {
		k->addfd_dropped++;
		return;
	}
	slot = &k->addfd[k->naddfd++];
	slot->t_ns = a->t_enter_ns;
	slot->t_exit_ns = a->t_exit_ns;
	slot->flags = a->flags;
	slot->newfd = a->newfd;
	slot->ret = a->ret;
}

void knotif_set_delivered(struct knotif *k, __u32 sig, __u64 t_sent_ns,
			  __u64 t_delivered_ns, __u32 sender_tgid)
{
	unsigned int i, n = k->ev.nsignals;
	struct nw_signal *s;

	for (i = 0; i < n && i < NW_MAX_SIGNALS; i++) {
		s = &k->ev.signals[i];
		if (s->sig == sig && s->t_sent_ns == t_sent_ns) {
			k->t_delivered_ns[i] = t_delivered_ns;
			/* a torn copy may lack what the delivery knows */
			if (t_sent_ns && !s->sender_tgid) {
				s->sender_tgid = sender_tgid;
				s->before_wait = 0;
			}
			return;
		}
	}
	if (!t_sent_ns || !sent_during_wait(&k->ev, t_sent_ns))
		return;
	/* guessed as pending before the wait, but sent during it */
	for (i = 0; i < n && i < NW_MAX_SIGNALS; i++) {
		s = &k->ev.signals[i];
		if (s->sig == sig && s->before_wait && !s->t_sent_ns) {
			s->t_sent_ns = t_sent_ns;
			s->sender_tgid = sender_tgid;
			s->before_wait = 0;
			s->after_recv = k->ev.t_recv_ns &&
					t_sent_ns >= k->ev.t_recv_ns;
			k->t_delivered_ns[i] = t_delivered_ns;
			return;
		}
	}
	/* recorded after the record was copied out */
	append_signal(k,
		      &(struct nw_signal){
			      .sig = sig,
			      .t_sent_ns = t_sent_ns,
			      .sender_tgid = sender_tgid,
			      .after_recv = k->ev.t_recv_ns &&
					    t_sent_ns >= k->ev.t_recv_ns,
		      },
		      t_delivered_ns);
}

static bool signal_queued(const struct nw_signal *s)
{
	return s->result == 0;
}

bool knotif_awaits_delivery(const struct knotif *k)
{
	unsigned int i;

	for (i = 0; i < k->ev.nsignals && i < NW_MAX_SIGNALS; i++)
		if (signal_queued(&k->ev.signals[i]) && !k->t_delivered_ns[i])
			return true;
	return false;
}

static enum nw_outcome derive_outcome(const struct knotif *k)
{
	const struct nw_knotif_event *e = &k->ev;
	bool replied = e->reply_kind != NW_REPLY_NONE;

	if (k->pending)
		return NW_OUTCOME_PENDING;
	if (e->fatal_pending || e->exited)
		return NW_OUTCOME_KILLED;
	/* A reply whose own error is -ERESTARTSYS is still a reply. */
	if (e->ret == -ERESTARTSYS && !(e->reply_kind == NW_REPLY_ERROR &&
					e->reply_error == -ERESTARTSYS))
		return e->t_recv_ns ? NW_OUTCOME_INTERRUPTED_AFTER_RECV :
				      NW_OUTCOME_INTERRUPTED_BEFORE_RECV;
	if (e->reply_kind == NW_REPLY_CONTINUE)
		return NW_OUTCOME_CONTINUED;
	if (replied)
		return NW_OUTCOME_REPLIED;
	/* The listener went away: seccomp_notify_detach() answers ENOSYS. */
	if (e->ret == -ENOSYS)
		return NW_OUTCOME_SUPERVISOR_GONE;
	return NW_OUTCOME_UNKNOWN;
}

static bool outcome_interrupted(enum nw_outcome o)
{
	return o == NW_OUTCOME_INTERRUPTED_BEFORE_RECV ||
	       o == NW_OUTCOME_INTERRUPTED_AFTER_RECV;
}

static enum nw_signal_effect derive_effect(const struct knotif *k,
					   unsigned int i, bool *culprit_taken)
{
	const struct nw_signal *s = &k->ev.signals[i];

	if (s->result == TRACE_SIGNAL_IGNORED)
		return NW_EFFECT_IGNORED;
	if (s->sig == SIGKILL ||
	    (k->outcome == NW_OUTCOME_KILLED && i + 1 == k->ev.nsignals))
		return NW_EFFECT_FATAL;
	if (s->result == TRACE_SIGNAL_ALREADY_PENDING)
		return NW_EFFECT_COALESCED;
	if (outcome_interrupted(k->outcome) && !*culprit_taken) {
		*culprit_taken = true;
		return NW_EFFECT_INTERRUPTED;
	}
	if (k->reply_reached && s->t_sent_ns >= k->ev.t_reply_ns)
		return NW_EFFECT_AFTER_REPLY;
	if (s->masked)
		return NW_EFFECT_BLOCKED;
	if (!k->t_delivered_ns[i])
		return NW_EFFECT_PENDING;
	/*
	 * Not interrupted under the killable rule: held by the killable wait,
	 * even when sent just before RECV (it woke an interruptible sleep
	 * that found the notification received and slept again, killable).
	 */
	if (knotif_killable_rule(k))
		return NW_EFFECT_DEFERRED;
	/* an interruptible wait woke, but found the reply already there */
	return NW_EFFECT_RACED_REPLY;
}

/*
 * The tracer guesses a signal pending from before the wait when the wait
 * aborts with no queued one recorded; the sender's CPU may record the real
 * one meanwhile. A standard signal does not queue twice, so a queued one of
 * the same number means the guess was that signal: drop the guess.
 */
static void drop_wrong_prior_guess(struct knotif *k)
{
	struct nw_knotif_event *e = &k->ev;
	unsigned int i, j, n = e->nsignals;

	if (n > NW_MAX_SIGNALS)
		n = NW_MAX_SIGNALS;
	for (i = 0; i < n; i++) {
		const struct nw_signal *g = &e->signals[i];

		if (!g->before_wait || g->t_sent_ns ||
		    g->sig >= SIGRTMIN_KERNEL)
			continue;
		for (j = 0; j < n; j++)
			if (j != i && e->signals[j].sig == g->sig &&
			    e->signals[j].t_sent_ns &&
			    signal_queued(&e->signals[j]))
				break;
		if (j == n)
			continue;
		if (!k->t_delivered_ns[j])
			k->t_delivered_ns[j] = k->t_delivered_ns[i];
		memmove(&e->signals[i], &e->signals[i + 1],
			(n - i - 1) * sizeof(e->signals[0]));
		memmove(&k->t_delivered_ns[i], &k->t_delivered_ns[i + 1],
			(n - i - 1) * sizeof(k->t_delivered_ns[0]));
		e->nsignals--;
		return;
	}
}

/*
 * A wait ended without a reply: a signal's doing when one interrupted it
 * (or killed it); else the freezer's when the target froze on its way out;
 * else a pending flag nothing shows (TIF_NOTIFY_SIGNAL task work, a
 * livepatch transition). The kernel restarts -ERESTARTSYS unless a handler
 * without SA_RESTART runs.
 */
static void derive_interrupt(struct knotif *k)
{
	bool by_signal = false;
	unsigned int i;

	k->interrupt_cause = NW_INTR_NONE;
	k->interrupt_result = NW_INTR_RESULT_NONE;
	if (k->outcome != NW_OUTCOME_INTERRUPTED_BEFORE_RECV &&
	    k->outcome != NW_OUTCOME_INTERRUPTED_AFTER_RECV &&
	    k->outcome != NW_OUTCOME_KILLED)
		return;
	for (i = 0; i < k->ev.nsignals && i < NW_MAX_SIGNALS; i++)
		if (k->effect[i] == NW_EFFECT_INTERRUPTED ||
		    k->effect[i] == NW_EFFECT_FATAL)
			by_signal = true;
	if (by_signal || k->outcome == NW_OUTCOME_KILLED)
		k->interrupt_cause = NW_INTR_SIGNAL;
	else if (k->frozen)
		k->interrupt_cause = NW_INTR_FREEZER;
	else
		k->interrupt_cause = NW_INTR_OTHER;
	if (k->outcome == NW_OUTCOME_KILLED || k->ev.exited)
		k->interrupt_result = NW_INTR_EXITED;
	else if (k->eintr)
		k->interrupt_result = NW_INTR_EINTR;
	else
		k->interrupt_result = NW_INTR_RESTARTED;
}

void knotif_derive(struct knotif *k)
{
	bool culprit_taken = false;
	unsigned int i;

	drop_wrong_prior_guess(k);
	k->outcome = derive_outcome(k);
	k->reply_reached = k->ev.t_reply_ns &&
			   (k->outcome == NW_OUTCOME_REPLIED ||
			    k->outcome == NW_OUTCOME_CONTINUED);
	for (i = 0; i < k->ev.nsignals && i < NW_MAX_SIGNALS; i++)
		k->effect[i] = derive_effect(k, i, &culprit_taken);
	derive_interrupt(k);
}
