/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One notification as the reporter sees it: the BPF record plus what arrives
 * after the target returned (signal deliveries, addfd results, a failed
 * reply), and what is derived from them (outcome, signal effects, spans).
 */
#ifndef NW_KNOTIF_H
#define NW_KNOTIF_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include "notifwait.h"

#define NW_MAX_ADDFD 8

enum nw_outcome {
	NW_OUTCOME_REPLIED,
	NW_OUTCOME_CONTINUED,
	NW_OUTCOME_INTERRUPTED_BEFORE_RECV,
	NW_OUTCOME_INTERRUPTED_AFTER_RECV,
	NW_OUTCOME_KILLED,
	NW_OUTCOME_SUPERVISOR_GONE,
	NW_OUTCOME_PENDING,
	NW_OUTCOME_UNKNOWN,
	NW_OUTCOME_COUNT,
};

enum nw_signal_effect {
	NW_EFFECT_DEFERRED,
	NW_EFFECT_INTERRUPTED,
	NW_EFFECT_FATAL,
	NW_EFFECT_COALESCED, /* same signal already pending: nothing queued */
	NW_EFFECT_IGNORED,
	NW_EFFECT_BLOCKED, /* in the target's signal mask */
	NW_EFFECT_AFTER_REPLY, /* sent once the supervisor had begun to reply */
	NW_EFFECT_RACED_REPLY, /* woke an interruptible wait the reply won */
	NW_EFFECT_PENDING, /* not delivered while traced */
	NW_EFFECT_COUNT,
};

/* Why an interrupted wait ended without a reply (docs/joiner.md). */
enum nw_interrupt_cause {
	NW_INTR_NONE, /* not interrupted */
	NW_INTR_SIGNAL,
	NW_INTR_FREEZER, /* the freezer's fake signal: no signal queued */
	NW_INTR_OTHER, /* a pending flag with neither (task work, livepatch) */
};

/* What the kernel made of it. */
enum nw_interrupt_result {
	NW_INTR_RESULT_NONE,
	NW_INTR_RESTARTED, /* the syscall runs again: a new notification */
	NW_INTR_EINTR, /* a handler without SA_RESTART: the program got EINTR */
	NW_INTR_EXITED, /* the task died */
};

struct nw_addfd {
	__u64 t_ns;
	__u64 t_exit_ns;
	__u32 flags;
	__u32 newfd;
	__s64 ret;
};

struct nw_reply_failure {
	__u64 t_ns;
	__s64 ret;
	__u32 op;
	__u32 supervisor_tgid;
};

/*
 * What a listener's supervisor threads did while a notification waited to
 * be received (queue_split), first state that holds wins.
 */
enum nw_queue_state {
	/* a thread asleep in RECV or a poll on it, or woken from there */
	NW_QUEUE_RUNNABLE,
	/* none: a thread handled another notification of the listener */
	NW_QUEUE_BUSY,
	/* none: a thread asleep elsewhere */
	NW_QUEUE_BLOCKED,
	/* its threads ran other code, none waiting on the listener */
	NW_QUEUE_NO_RECEIVER,
	/* no thread of the listener's supervisor seen yet */
	NW_QUEUE_UNKNOWN,
	NW_QUEUE_STATES,
};

struct knotif {
	struct nw_knotif_event ev;
	bool have_event; /* the wait is closed (finished or pending) */
	bool pending; /* still waiting when tracing stopped */
	__u64 t_delivered_ns[NW_MAX_SIGNALS];
	/* runnable but not running between the return and that delivery */
	__u64 preempted_ns[NW_MAX_SIGNALS];
	struct nw_addfd addfd[NW_MAX_ADDFD];
	unsigned int naddfd;
	unsigned int addfd_dropped;
	bool reply_failed;
	struct nw_reply_failure failure;

	/* the joiner's: when the wait was closed (its clock), replies still open */
	__u64 t_closed_ns;
	unsigned int replies_in_flight;
	__u32 supervisor_tid; /* whose TASK fact names the supervisor */

	/* the restart chain: set by the joiner when the target is known */
	__u64 restart_of; /* the notification whose syscall this one restarts */
	bool have_restart_of;
	__u32 attempt; /* 1 for a first call, n for the n-th */
	__u64 t_chain_start_ns; /* the first attempt's start; 0: this one's */
	bool frozen; /* the target froze right after an interrupted end */
	bool eintr; /* a handler without SA_RESTART took the interruption */

	/* ended unreceived while the listener's supervisor held another */
	bool held; /* the joiner's: received, not yet answered */
	bool have_queued_behind;
	__u64 queued_behind; /* the id the supervisor was busy with */
	__u32 busy_supervisor_tgid;
	char busy_supervisor_comm[NW_COMM_LEN];

	/* the handle time of the thread that replied, by its switches */
	bool have_handle_split;
	struct {
		bool known; /* the parts: the replier's switches were followed */
		__u64 running_ns, runnable_ns, blocked_ns;
		__u32 thread, recv_thread;
	} handle_split;

	/* the queue time by its listener's supervisor threads' state */
	bool have_queue_split;
	__u64 queue_split[NW_QUEUE_STATES];
	/* the joiner's: its listener's totals and state when first seen */
	__u64 queue_snap[NW_QUEUE_STATES];
	__u64 queue_snap_ns;
	__u8 queue_snap_state;

	/* derived by knotif_derive() */
	enum nw_outcome outcome;
	enum nw_interrupt_cause interrupt_cause;
	enum nw_interrupt_result interrupt_result;
	enum nw_signal_effect effect[NW_MAX_SIGNALS];
	bool reply_reached; /* t_reply_ns is a reply the target got */
};

/* Time between two kernel timestamps, when both happened in order. */
static inline bool nw_span(__u64 from, __u64 to, __u64 *out)
{
	if (!from || !to || to < from)
		return false;
	*out = to - from;
	return true;
}

const char *nw_outcome_name(enum nw_outcome o);
const char *nw_effect_name(enum nw_signal_effect e);
const char *nw_cause_name(__u8 cause);
const char *nw_reply_kind_name(__u8 kind);
const char *nw_notify_source_name(__u8 source);
/* NULL for NW_INTR_NONE / NW_INTR_RESULT_NONE: JSON null */
const char *nw_interrupt_cause_name(enum nw_interrupt_cause c);
const char *nw_interrupt_result_name(enum nw_interrupt_result r);
/* "supervisor_busy", ...: queue_split's keys without "_ns", metric labels */
const char *nw_queue_state_name(enum nw_queue_state s);
/*
 * How the summary and the findings name a supervisor: "comm/tgid" (the
 * comm cut at 16 bytes), or "(not received)" when @tgid is 0. Cut to fit
 * @len with its NUL, as snprintf would; no printf, once per record.
 */
void nw_supervisor_name(char *buf, size_t len, const char *comm, __u32 tgid);
/* The start of this record's restart chain: its first attempt's, or 0. */
__u64 knotif_chain_start(const struct knotif *k);
/* From the chain's start to this return, on a record that ends a chain. */
bool knotif_chain_total(const struct knotif *k, __u64 *out);

void knotif_add_addfd(struct knotif *k, const struct nw_addfd_event *a);

/* Turn the record's prior_sig guess into a signal sent before the wait. */
void knotif_add_prior_guess(struct knotif *k);
/*
 * A delivery of a signal recorded during the wait. The record may have been
 * copied out while the sender's CPU was still filling the signal in (the
 * target returns on another CPU): the delivery then completes it.
 */
void knotif_set_delivered(struct knotif *k, __u32 sig, __u64 t_sent_ns,
			  __u64 t_delivered_ns, __u32 sender_tgid);
/* True while a queued signal of the record still waits for delivery. */
bool knotif_awaits_delivery(const struct knotif *k);
/* Computes outcome, effects and reply_reached from what is known. */
void knotif_derive(struct knotif *k);
/* Whether the filter or the RECV made the wait killable after RECV. */
static inline bool knotif_killable_rule(const struct knotif *k)
{
	return k->ev.filter_killable || k->ev.recv_flag;
}

#endif /* NW_KNOTIF_H */
