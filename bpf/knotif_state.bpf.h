/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Per-notification state, shared by both backends: the maps that join a
 * notification's events, how a notification starts being followed, what a
 * signal does to it, and how it ends (one record to the ring buffer).
 */
#ifndef KNOTIF_STATE_BPF_H
#define KNOTIF_STATE_BPF_H

#include "kernel_defs.bpf.h"
#include "seccomp_walk.bpf.h"

#define EEXIST 17

/* Filters, set before load so the verifier prunes what is unused. */
const volatile __u32 targ_tgid = 0;
const volatile __s32 targ_nr = -1;
const volatile bool filter_traced = false;
/*
 * fentry and kprobe backends: the target's own first sleep creates its
 * notification's entry. Other CPUs (a signal's sender, RECV) leave what
 * they saw for it (early_signals, recv_seen): an entry created from
 * another CPU could be half built when the target's bracket ends.
 */
const volatile bool bracket_traced = false;

struct nw_counters counters = {};

struct sigpend_key {
	__u32 tid;
	__u32 sig;
};

struct sigpend_val {
	struct nw_knotif_key key;
	__u64 t_sent_ns;
	__u32 sender_tgid;
	__u32 pad;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 10240);
	__type(key, struct nw_knotif_key);
	__type(value, struct nw_knotif_event);
} knotifs SEC(".maps");

/* target tid -> the notification it waits on */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 10240);
	__type(key, __u32);
	__type(value, struct nw_knotif_key);
} waiting SEC(".maps");

/* target tgid -> a waiting tid, for process-directed signals */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 10240);
	__type(key, __u32);
	__type(value, __u32);
} waiting_tgid SEC(".maps");

/* fentry backend: tid -> when it entered the notification bracket */
struct nw_entered {
	__u64 t_ns;
	__u64 filter; /* the bracket's match, 0 when only the caller is hooked */
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 10240);
	__type(key, __u32);
	__type(value, struct nw_entered);
} entered SEC(".maps");

/*
 * fentry backend: signals sent after the bracket's entry but before the
 * notification could be followed (it is not on the listener's list yet).
 * The notification's start is that entry, so they belong to its wait.
 */
#define NW_EARLY_SIGNALS 4

struct nw_early_signal {
	struct nw_signal s;
	__u32 claimed; /* exchanged to 1 by whoever moves it into the entry */
	__u32 pad;
};

struct nw_early_signals {
	__u64 t_entered; /* the bracket's entry they were sent in */
	__u32 n; /* slots taken, by an atomic add */
	__u32 pad;
	struct nw_early_signal slot[NW_EARLY_SIGNALS];
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 10240);
	__type(key, __u32);
	__type(value, struct nw_early_signals);
} early_signals SEC(".maps");

/*
 * A RECV whose notification the list walk could not find (the list changes
 * under the walk): kept until the target's side starts following it.
 */
struct nw_recv_seen {
	__u64 t_recv_ns;
	__u32 supervisor_tgid;
	__u32 supervisor_seen_pid;
	__u8 recv_flag;
	__u8 reply_kind; /* a reply that also came before the target's side */
	char supervisor_comm[NW_COMM_LEN];
	__u64 t_reply_ns;
	__s64 reply_val;
	__s32 reply_error;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 1024);
	__type(key, struct nw_knotif_key);
	__type(value, struct nw_recv_seen);
} recv_seen SEC(".maps");

/*
 * Notifications not followed because `knotifs` was full. Several programs
 * see each one (the target's wake-up and sleep, the RECV, a signal, the
 * exit): counted once, and uncounted if a later look finds room for it.
 */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, struct nw_knotif_key);
	__type(value, __u8);
} dropped SEC(".maps");

/*
 * tracepoint backend: whether a target's current syscall passed sys_enter.
 * A notified syscall never does (seccomp runs first), so an exit without
 * it is a notification the tracer did not see while it lasted.
 */
struct nw_syscall_mark {
	__u32 entered;
	__u32 pad;
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct nw_syscall_mark);
} syscall_marks SEC(".maps");

/* LRU: a signal that stays blocked is never delivered, nor deleted. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 10240);
	__type(key, struct sigpend_key);
	__type(value, struct sigpend_val);
} sigpend SEC(".maps");

/*
 * Notifications that ended lately: a supervisor's late reply or addfd
 * result is reported only for a notification that was followed.
 */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, struct nw_knotif_key);
	__type(value, __u8);
} ended SEC(".maps");

/*
 * A SIGKILL pending and not recorded as queued when a wait ended.
 * signal_generate fires after the target is woken, so a target its SIGKILL
 * wakes may return before the sender's program runs; that program finds
 * the notification here. The sender holds the siglock from queueing to the
 * tracepoint and the delivery takes it: the bit is cleared there, after.
 * Keyed by tgid: a group signal names the leader, not the thread it woke.
 */
struct nw_just_ended {
	struct nw_knotif_key key;
	__u64 sigmask; /* bit sig - 1 */
	__u32 tid;
	__u32 pad;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, struct nw_just_ended);
} just_ended SEC(".maps");

/* tgids of a traced COMMAND and its descendants */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 8192);
	__type(key, __u32);
	__type(value, __u8);
} traced SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4 * 1024 * 1024);
} records SEC(".maps");

/*
 * A full barrier between a map update and the lookup after it: two CPUs
 * that each insert, then look for the other's insert, must not both miss.
 * A map update's own unlock lets later loads pass its stores; a locked
 * atomic does not.
 */
static __u64 barrier_word;

static __always_inline void full_barrier(void)
{
	__sync_fetch_and_add(&barrier_word, 0);
}

/* Wake the reader only when a batch has piled up; it also polls on a timer. */
static __always_inline long wakeup_flags(void)
{
	if (bpf_ringbuf_query(&records, BPF_RB_AVAIL_DATA) >= WAKEUP_BATCH_BYTES)
		return BPF_RB_FORCE_WAKEUP;
	return BPF_RB_NO_WAKEUP;
}

static __always_inline void emit(void *rec, __u64 size)
{
	if (bpf_ringbuf_output(&records, rec, size, wakeup_flags()))
		__sync_fetch_and_add(&counters.lost_records, 1);
}

/*
 * bpf_map_update_elem()'s error as an int: 6.1's map ops return int, and
 * the call the verifier patches in leaves the upper half of R0 zero, so
 * -EEXIST reads as 0xffffffef in 64 bits there (fixed in 6.4 by returning
 * long from the map ops).
 */
static __always_inline int map_update(void *map, const void *key,
				      const void *value, __u64 flags)
{
	return (int)bpf_map_update_elem(map, key, value, flags);
}

static __always_inline bool is_traced(__u32 tgid)
{
	return bpf_map_lookup_elem(&traced, &tgid) != NULL;
}

static __always_inline bool target_wanted(struct task_struct *task, int nr,
					  bool supervisor_traced)
{
	__u32 tgid = BPF_CORE_READ(task, tgid);

	if (targ_tgid && tgid != targ_tgid)
		return false;
	if (targ_nr >= 0 && nr != targ_nr)
		return false;
	if (filter_traced && !supervisor_traced && !is_traced(tgid))
		return false;
	return true;
}

static __always_inline __u32 task_vtid(struct task_struct *task)
{
	struct pid *pid = BPF_CORE_READ(task, thread_pid);
	unsigned int level = BPF_CORE_READ(pid, level);
	struct upid upid = {};

	bpf_probe_read_kernel(&upid, sizeof(upid), &pid->numbers[level & 31]);
	return upid.nr;
}

/* A RECV before the target's side was seen: that side is no start of the wait. */
static __always_inline void recv_before_notify(struct nw_knotif_event *e,
					       __u64 t_recv_ns)
{
	if (e->t_notify_ns > t_recv_ns) {
		e->t_notify_ns = 0;
		e->notify_source = NW_SEEN_RECV;
	}
}

/* What a RECV saw before the notification was followed. */
static __always_inline void take_recv_seen(struct nw_knotif_event *e)
{
	struct nw_recv_seen *r = bpf_map_lookup_elem(&recv_seen, &e->key);

	if (!r)
		return;
	if (r->t_recv_ns) {
		recv_before_notify(e, r->t_recv_ns);
		e->t_recv_ns = r->t_recv_ns;
		e->supervisor_tgid = r->supervisor_tgid;
		e->supervisor_seen_pid = r->supervisor_seen_pid;
		e->recv_flag = r->recv_flag;
		if (r->recv_flag)
			e->wake_cause = NW_CAUSE_RECV;
		__builtin_memcpy(e->supervisor_comm, r->supervisor_comm,
				 NW_COMM_LEN);
	}
	if (r->reply_kind) {
		e->t_reply_ns = r->t_reply_ns;
		e->reply_kind = r->reply_kind;
		e->reply_val = r->reply_val;
		e->reply_error = r->reply_error;
	}
	bpf_map_delete_elem(&recv_seen, &e->key);
}

/* A signal its entry's copy may lack, as a record of its own. */
static __always_inline void emit_late_signal(const struct nw_knotif_key *key,
					     const struct nw_signal *sig)
{
	struct nw_signal_late_event late = {};

	late.kind = NW_REC_SIGNAL_LATE;
	late.key = *key;
	late.signal = *sig;
	emit(&late, sizeof(late));
}

/* A queued signal's delivery is matched to the wait it was sent in. */
static __always_inline void note_sent_signal(__u32 tid,
					     const struct nw_knotif_key *key,
					     const struct nw_signal *sig)
{
	struct sigpend_key sk = { .tid = tid, .sig = sig->sig };
	struct sigpend_val sv = { .key = *key };

	if (sig->result != 0) /* not TRACE_SIGNAL_DELIVERED: nothing queued */
		return;
	sv.t_sent_ns = sig->t_sent_ns;
	sv.sender_tgid = sig->sender_tgid;
	bpf_map_update_elem(&sigpend, &sk, &sv, BPF_ANY);
}

/*
 * Fill a free slot (its send time still 0) and publish it: the send time
 * goes last, by an exchange, so a reader that sees it sees the rest.
 */
static __always_inline void publish_signal(struct nw_signal *slot,
					   const struct nw_signal *sig)
{
	slot->sig = sig->sig;
	slot->sender_tgid = sig->sender_tgid;
	slot->result = sig->result;
	slot->after_recv = sig->after_recv;
	slot->in_killable_sleep = sig->in_killable_sleep;
	slot->masked = sig->masked;
	slot->before_wait = sig->before_wait;
	__sync_lock_test_and_set(&slot->t_sent_ns, sig->t_sent_ns);
}

/*
 * Signals are written into an entry from the sender's CPU while the target
 * may be copying it out on its own (finish_knotif). A slot is taken with an
 * atomic add and published by its send time, stored last with an exchange;
 * the copy starts only after an exchange sets `closed`. Each side writes
 * its word, then reads the other's, both past a full barrier: a signal the
 * copy can miss is one whose sender then sees `closed` and emits it alone.
 */
static __always_inline void append_signal(struct nw_knotif_event *e,
					  const struct nw_knotif_key *key,
					  const struct nw_signal *sig)
{
	__u32 idx;

	idx = __sync_fetch_and_add(&e->nsignals, 1);
	if (idx >= NW_MAX_SIGNALS) {
		__sync_fetch_and_add(&counters.dropped_signals, 1);
		return;
	}
	publish_signal(&e->signals[idx & (NW_MAX_SIGNALS - 1)], sig);
	/* a deleted entry's memory may already hold another notification */
	if (!*(volatile __u32 *)&e->closed && e->key.id == key->id &&
	    e->key.filter == key->filter)
		return;
	emit_late_signal(key, sig);
}

/*
 * A signal sent during @e's wait: into its record, the cause of a killable
 * sleep after it, and matched to its delivery.
 */
static __always_inline void add_wait_signal(struct nw_knotif_event *e,
					    const struct nw_knotif_key *key,
					    __u32 tid,
					    const struct nw_signal *sig)
{
	append_signal(e, key, sig);
	e->wake_cause = NW_CAUSE_SIGNAL;
	note_sent_signal(tid, key, sig);
}

/*
 * An early signal goes into the entry once: its sender and the tracker
 * that creates the entry may both try, and the claim decides.
 */
static __always_inline void adopt_early_signal(struct nw_knotif_event *e,
					       const struct nw_knotif_key *key,
					       __u32 tid,
					       struct nw_early_signal *slot)
{
	if (!__sync_lock_test_and_set(&slot->claimed, 1))
		add_wait_signal(e, key, tid, &slot->s);
}

/*
 * Move the signals sent before @e could be followed into it. A slot whose
 * send time is not written yet is left to its sender, which finds the
 * entry (`waiting` is set before this runs) and moves it itself.
 */
static __always_inline void take_early_signals(struct nw_knotif_event *e,
					       const struct nw_knotif_key *key,
					       __u32 tid)
{
	struct nw_early_signals *early;
	struct nw_early_signal *slot;
	struct nw_entered *en;
	__u32 i, n;

	early = bpf_map_lookup_elem(&early_signals, &tid);
	en = bpf_map_lookup_elem(&entered, &tid);
	/* a held sender may leave a buffer after its bracket is over */
	if (!early || !en || early->t_entered != en->t_ns)
		return;
	n = __sync_fetch_and_add(&early->n, 0);
	for (i = 0; i < NW_EARLY_SIGNALS; i++) {
		if (i >= n)
			break;
		slot = &early->slot[i];
		if (__sync_fetch_and_add(&slot->s.t_sent_ns, 0))
			adopt_early_signal(e, key, tid, slot);
	}
}

/* Zeroes for a new entry: built in place, no per-CPU scratch to share. */
static const struct nw_knotif_event empty_knotif = {};

/* Who and what a new entry is about: the same for every way it starts. */
static __always_inline void describe_knotif(struct nw_knotif_event *e,
					    const struct nw_knotif_key *key,
					    struct task_struct *task, int nr,
					    __u32 arch, __u8 filter_killable,
					    __u8 source)
{
	e->kind = NW_REC_KNOTIF;
	e->key = *key;
	e->target_tid = BPF_CORE_READ(task, pid);
	e->target_tgid = BPF_CORE_READ(task, tgid);
	e->target_vtid = task_vtid(task);
	e->nr = nr;
	e->arch = arch;
	e->filter_killable = filter_killable;
	e->notify_source = source;
	BPF_CORE_READ_STR_INTO(&e->comm, task, comm);
}

/* Start following a notification; returns its state or NULL. */
static __always_inline struct nw_knotif_event *
track_knotif(const struct nw_knotif_view *v, __u8 source, __u64 now)
{
	struct nw_knotif_key key = { .filter = v->filter, .id = v->id };
	struct task_struct *task = v->task;
	struct nw_knotif_event *e;
	struct nw_entered *en;
	__u32 tid, tgid;
	int err;

	/*
	 * fentry programs are preemptible: a per-CPU scratch buffer could be
	 * reused under us, so the entry is created empty and filled in place.
	 */
	err = map_update(&knotifs, &key, &empty_knotif, BPF_NOEXIST);
	if (err && err != -EEXIST) {
		static const __u8 one = 1;

		/* counted before it is noted: never below zero when uncounted */
		__sync_fetch_and_add(&counters.dropped_knotifs, 1);
		if (bpf_map_update_elem(&dropped, &key, &one, BPF_NOEXIST))
			__sync_fetch_and_add(&counters.dropped_knotifs, -1);
		return NULL;
	}
	if (!err && !bpf_map_delete_elem(&dropped, &key))
		__sync_fetch_and_add(&counters.dropped_knotifs, -1);
	/*
	 * A look at the listener held up (a preempted program, a vCPU
	 * waiting) until the target's record was out: that notification is
	 * over. `ended` is set before the entry is deleted, so an insert
	 * that succeeds after the delete sees it.
	 */
	if (!err && bpf_map_lookup_elem(&ended, &key)) {
		bpf_map_delete_elem(&knotifs, &key);
		return NULL;
	}
	full_barrier(); /* the insert, then what a RECV or reply kept */
	e = bpf_map_lookup_elem(&knotifs, &key);
	if (!e)
		return NULL;
	tid = BPF_CORE_READ(task, pid);
	tgid = BPF_CORE_READ(task, tgid);
	if (!err) {
		/* -EEXIST: the other side (target or supervisor) was first */
		describe_knotif(e, &key, task, v->nr, v->arch,
				v->filter_killable, source);
		if (source != NW_SEEN_RECV)
			e->t_notify_ns = now;
		/* fentry: whoever sees it first, the bracket's entry is the start */
		en = bpf_map_lookup_elem(&entered, &tid);
		if (en) {
			e->t_notify_ns = en->t_ns;
			e->notify_source = NW_SEEN_ENTRY;
		} else if (e->t_recv_ns) {
			/* a RECV landed while this entry was being filled */
			recv_before_notify(e, e->t_recv_ns);
		}
		take_recv_seen(e);
	}
	bpf_map_update_elem(&waiting, &tid, &key, BPF_ANY);
	bpf_map_update_elem(&waiting_tgid, &tgid, &tid, BPF_ANY);
	/*
	 * Only after `waiting`, past a full barrier (the sender publishes,
	 * then looks for `waiting`): a sender that stores an early signal
	 * the buffer read misses finds this entry and moves it itself.
	 */
	full_barrier();
	take_early_signals(e, &key, tid);
	return e;
}

/* The notification @tid waits on, and its key (the entry's may change). */
static __always_inline struct nw_knotif_event *
knotif_and_key_of_tid(__u32 tid, struct nw_knotif_key *key)
{
	struct nw_knotif_key *found = bpf_map_lookup_elem(&waiting, &tid);

	if (!found)
		return NULL;
	*key = *found;
	return bpf_map_lookup_elem(&knotifs, key);
}

static __always_inline struct nw_knotif_event *knotif_of_tid(__u32 tid)
{
	struct nw_knotif_key key;

	return knotif_and_key_of_tid(tid, &key);
}

/* @sig's bit in a 64-bit signal mask; 0 for a number outside 1..64. */
static __always_inline __u64 sig_bit(__u32 sig)
{
	return sig >= 1 && sig <= 64 ? 1ULL << (sig - 1) : 0;
}

/* Unblocked signals pending for @task: its own and its group's. */
static __always_inline __u64 pending_unblocked(struct task_struct *task)
{
	__u64 pending = BPF_CORE_READ(task, pending.signal.sig[0]) |
			BPF_CORE_READ(task, signal, shared_pending.signal.sig[0]);

	return pending & ~BPF_CORE_READ(task, blocked.sig[0]);
}

/* Whether the current task has an unblocked signal pending. */
static __always_inline bool signal_pending_now(void)
{
	return pending_unblocked(bpf_get_current_task_btf()) != 0;
}

/*
 * A target not yet followed that turns out to be waiting on a listener.
 * Returns the notification's entry, also one another CPU is still filling
 * in (created, not yet in `waiting`), and its key; or NULL.
 */
static __always_inline struct nw_knotif_event *
detect_waiting(struct task_struct *task, __u8 source, __u64 now,
	       struct nw_knotif_key *key)
{
	struct nw_knotif_view v = {};
	struct nw_knotif_event *e;

	if (!task_find_knotif(task, &v))
		return NULL;
	/*
	 * The list is read without notify_lock and the knotif lives on the
	 * target's stack: one read as its syscall returns may be torn. Keep
	 * it only if the list still holds that id for that task.
	 */
	if (v.task != task || v.state > 2 ||
	    listener_find((struct seccomp_filter *)v.filter, 0, v.id) != v.kn)
		return NULL;
	key->filter = v.filter;
	key->id = v.id;
	e = bpf_map_lookup_elem(&knotifs, key);
	if (e)
		return e; /* followed from the other side already */
	if (bracket_traced || !target_wanted(task, v.nr, false))
		return NULL;
	return track_knotif(&v, source, now);
}

/*
 * A signal pending with none queued recorded (see queued_signals): it
 * was pending before the notification existed, or its sender's program has
 * not recorded it yet. Note the lowest unblocked pending one (the reporter
 * adds it with no send time), and let its delivery be matched.
 */
static __always_inline void note_prior_signal(struct task_struct *task,
					      struct nw_knotif_event *e)
{
	struct sigpend_key sk = { .tid = BPF_CORE_READ(task, pid) };
	struct sigpend_val sv = { .key = e->key }, *known;
	__u64 pending;
	int sig;

	pending = pending_unblocked(task);
	if (!pending)
		return;
	for (sig = 1; sig <= 64; sig++)
		if ((pending >> (sig - 1)) & 1)
			break;
	sk.sig = sig;
	known = bpf_map_lookup_elem(&sigpend, &sk);
	if (known && known->t_sent_ns && known->key.id == e->key.id &&
	    known->key.filter == e->key.filter)
		return; /* being recorded on the sender's CPU: its delivery completes it */
	e->prior_sig = sig;
	/* a sender's own entry, written meanwhile, knows more: keep it */
	bpf_map_update_elem(&sigpend, &sk, &sv, BPF_NOEXIST);
}

/*
 * The published signals of @e that were queued, as a mask. Without one, a
 * signal pending as the wait aborts or sleeps killable was sent before the
 * wait, or its sender's program has not written it (held on its CPU, or it
 * found the bracket over): what is recorded may be only later sends of the
 * same signal, coalesced into it.
 */
static __always_inline __u64 queued_signals(struct nw_knotif_event *e)
{
	__u32 i, n = *(volatile __u32 *)&e->nsignals;
	__u64 mask = 0;

	for (i = 0; i < NW_MAX_SIGNALS; i++) {
		if (i >= n)
			break;
		if (*(volatile __u64 *)&e->signals[i].t_sent_ns &&
		    e->signals[i].result == 0)
			mask |= sig_bit(e->signals[i].sig);
	}
	return mask;
}

/*
 * The target goes to sleep on its notification. The first killable sleep
 * after RECV is the interruptible -> killable switch; what woke it last
 * is the cause (nothing woke it: its first sleep came after RECV).
 */
static __always_inline void note_sleep(struct nw_knotif_event *e,
				       bool killable, __u64 now)
{
	if (!killable) {
		e->interruptible_sleeps++;
		return;
	}
	e->killable_sleeps++;
	if (e->t_killable_ns)
		return;
	e->t_killable_ns = now;
	e->killable_cause = e->wake_cause;
	/*
	 * The sender's signal_generate fires after the wake-up, so the
	 * target may get here first: a pending signal is the cause.
	 */
	if (!e->killable_cause)
		e->killable_cause = signal_pending_now() ? NW_CAUSE_SIGNAL :
							   NW_CAUSE_RECV;
	/*
	 * A signal pending before the wait began (RECV came before the
	 * first sleep) is held by this sleep like one sent during it.
	 */
	if (!queued_signals(e))
		note_prior_signal(bpf_get_current_task_btf(), e);
}

/*
 * Before the target stops being listed as waiting: a sender that then
 * misses `waiting` finds what it was woken by here.
 */
static __always_inline void note_unrecorded_pending(struct task_struct *task,
						    struct nw_knotif_event *e)
{
	struct nw_just_ended je = { .key = e->key, .tid = task->pid };
	__u32 tgid = task->tgid;

	/*
	 * SIGKILL only: in the demo under tracepoint a SIGURG sent after the
	 * return found its bit here and was claimed (how the bit outlived its
	 * delivery is not known); a SIGKILL sent to a dying task is ignored.
	 */
	je.sigmask = pending_unblocked(task) & sig_bit(SIGKILL) &
		     ~queued_signals(e);
	if (je.sigmask)
		bpf_map_update_elem(&just_ended, &tgid, &je, BPF_ANY);
}

/*
 * A queued signal whose target's wait is over and that no entry holds: the
 * one a wait that just ended was woken by? Then it goes to that record.
 */
static __always_inline bool claim_just_ended(struct task_struct *task,
					     int group, struct nw_signal *s)
{
	__u32 tgid = task->tgid;
	struct nw_just_ended *je;
	__u64 bit;

	if (s->result != 0)
		return false;
	je = bpf_map_lookup_elem(&just_ended, &tgid);
	if (!je || (!group && je->tid != (__u32)task->pid))
		return false;
	bit = sig_bit(s->sig);
	if (!(__sync_fetch_and_and(&je->sigmask, ~bit) & bit))
		return false;
	s->seen_after_return = 1;
	emit_late_signal(&je->key, s);
	note_sent_signal(je->tid, &je->key, s);
	return true;
}

/* The target returns: the notification is over. False: it followed none. */
static __always_inline bool finish_knotif(struct task_struct *task, __u32 tid,
					  long ret, bool exited)
{
	struct nw_knotif_key *key = bpf_map_lookup_elem(&waiting, &tid);
	struct nw_knotif_event *e;
	struct nw_knotif_key k;
	__u32 tgid;
	__u8 one = 1;

	if (!key)
		return false;
	k = *key;
	e = bpf_map_lookup_elem(&knotifs, &k);
	if (e) {
		if (ret == -ERESTARTSYS && !queued_signals(e))
			note_prior_signal(task, e);
		e->t_return_ns = bpf_ktime_get_ns();
		e->ret = ret;
		e->exited = exited;
		e->fatal_pending =
			(BPF_CORE_READ(task, pending.signal.sig[0]) >>
			 (SIGKILL - 1)) & 1;
		/*
		 * Marked ended before it is copied out: a RECV that writes
		 * into the entry during the copy then sees the mark and
		 * sends its time again (recv_late).
		 */
		bpf_map_update_elem(&ended, &k, &one, BPF_ANY);
		note_unrecorded_pending(task, e);
		/* a signal written from now on also travels alone */
		__sync_lock_test_and_set(&e->closed, 1);
		emit(e, sizeof(*e));
		bpf_map_delete_elem(&knotifs, &k);
	}
	bpf_map_delete_elem(&waiting, &tid);
	tgid = BPF_CORE_READ(task, tgid);
	bpf_map_delete_elem(&waiting_tgid, &tgid);
	return true;
}

#define NW_UNSEEN_LOOKBACK 4

/*
 * tracepoint backend: the current task's syscall exits with -ERESTARTSYS
 * without having passed sys_enter, and no notification was followed: one
 * was queued and aborted by a signal before the target slept or woke
 * anyone. Its id is the listener's newest one this run has not seen.
 */
static __always_inline void note_unseen_exit(struct task_struct *task, int nr)
{
	struct seccomp_filter *filter = task_listener_filter(task);
	struct nw_knotif_key key = {};
	struct nw_knotif_event *e;
	__u64 next_id;
	__u8 one = 1;
	int i;

	if (!filter || !target_wanted(task, nr, false))
		return;
	next_id = BPF_CORE_READ(filter, notif, next_id);
	key.filter = (__u64)filter;
	for (i = 1; i <= NW_UNSEEN_LOOKBACK; i++) {
		key.id = next_id - i;
		if (!bpf_map_lookup_elem(&knotifs, &key) &&
		    !bpf_map_lookup_elem(&ended, &key))
			break;
	}
	if (i > NW_UNSEEN_LOOKBACK)
		return;
	e = bpf_ringbuf_reserve(&records, sizeof(*e), 0);
	if (!e) {
		__sync_fetch_and_add(&counters.lost_records, 1);
		return;
	}
	__builtin_memset(e, 0, sizeof(*e));
	describe_knotif(e, &key, task, nr, NW_AUDIT_ARCH_X86_64,
			BPF_CORE_READ(filter, wait_killable_recv), NW_SEEN_EXIT);
	e->t_return_ns = bpf_ktime_get_ns();
	e->ret = -ERESTARTSYS;
	note_prior_signal(task, e);
	bpf_map_update_elem(&ended, &key, &one, BPF_ANY);
	bpf_ringbuf_submit(e, wakeup_flags());
}

/*
 * A signal for a task inside the fentry bracket whose notification is not
 * followed yet: kept for the notification's entry (take_early_signals).
 */
static __always_inline void note_early_signal(const struct nw_signal *sig,
					      __u32 tid)
{
	struct nw_early_signals fresh = {}, *early;
	struct nw_early_signal *slot;
	struct nw_knotif_event *e;
	struct nw_knotif_key key;
	struct nw_entered *en;
	__u64 t_entered;
	__u32 idx;

	en = bpf_map_lookup_elem(&entered, &tid);
	if (!en)
		return;
	t_entered = en->t_ns;
	fresh.t_entered = t_entered;
	bpf_map_update_elem(&early_signals, &tid, &fresh, BPF_NOEXIST);
	early = bpf_map_lookup_elem(&early_signals, &tid);
	if (early && early->t_entered < t_entered) {
		/* left by a sender held past an earlier bracket */
		bpf_map_update_elem(&early_signals, &tid, &fresh, BPF_ANY);
		early = bpf_map_lookup_elem(&early_signals, &tid);
	}
	/*
	 * A later bracket's buffer: this program was held past the end of
	 * its own, and a signal that aborted that wait was noted as pending
	 * by the target's exit (note_prior_signal).
	 */
	if (!early || early->t_entered != t_entered)
		return;
	idx = __sync_fetch_and_add(&early->n, 1);
	if (idx >= NW_EARLY_SIGNALS) {
		__sync_fetch_and_add(&counters.dropped_signals, 1);
		return;
	}
	slot = &early->slot[idx & (NW_EARLY_SIGNALS - 1)];
	publish_signal(&slot->s, sig);
	/*
	 * The target's side may have started following it meanwhile; an
	 * entry found while the bracket is still the same one is its own.
	 */
	e = knotif_and_key_of_tid(tid, &key);
	en = bpf_map_lookup_elem(&entered, &tid);
	if (e && en && en->t_ns == t_entered)
		adopt_early_signal(e, &key, tid, slot);
}

/* A signal generated for @task: recorded if it waits on a notification. */
static __always_inline void record_signal(int sig, struct task_struct *task,
					  int group, int result)
{
	/* first: the signal is queued already, and this program may be held */
	__u64 now = bpf_ktime_get_ns();
	bool ended_meanwhile = false;
	struct nw_signal s = {};
	struct nw_knotif_event *e;
	struct nw_knotif_key key;
	__u32 tid = task->pid, tgid = task->tgid, *waiter;

	e = knotif_and_key_of_tid(tid, &key);
	if (!e && group) {
		waiter = bpf_map_lookup_elem(&waiting_tgid, &tgid);
		if (waiter) {
			tid = *waiter;
			e = knotif_and_key_of_tid(tid, &key);
		}
	}
	if (!e && task_has_listener(task)) {
		/*
		 * Not seen yet: RECV may already have taken it (the kernel's
		 * state is SENT) while its sys_exit has not fired.
		 */
		key.filter = 0;
		e = detect_waiting(task, NW_SEEN_SIGNAL, now, &key);
		if (!e && key.filter && bpf_map_lookup_elem(&ended, &key))
			ended_meanwhile = true;
	}
	s.t_sent_ns = now;
	s.sig = sig;
	s.sender_tgid = bpf_get_current_pid_tgid() >> 32;
	s.result = result;
	s.masked = sig > 0 && sig <= 64 &&
		   ((BPF_CORE_READ(task, blocked.sig[0]) >> (sig - 1)) & 1);
	if (ended_meanwhile) {
		/* listed when sent, its record out since: it goes alone */
		emit_late_signal(&key, &s);
		note_sent_signal(tid, &key, &s);
		return;
	}
	if (!e) {
		if (!claim_just_ended(task, group, &s))
			note_early_signal(&s, task->pid);
		return;
	}
	s.after_recv = e->t_recv_ns != 0;
	s.in_killable_sleep = e->t_killable_ns != 0;
	add_wait_signal(e, &key, tid, &s);
}

/* Delivered: its sender's program has run (see just_ended). */
static __always_inline void clear_just_ended(struct task_struct *task, int sig)
{
	__u32 tgid = task->tgid;
	struct nw_just_ended *je;

	je = bpf_map_lookup_elem(&just_ended, &tgid);
	if (je)
		__sync_fetch_and_and(&je->sigmask, ~sig_bit(sig));
}

/* The current task is about to handle @sig: was it recorded in a wait? */
static __always_inline void record_delivery(int sig)
{
	struct sigpend_key sk = { .tid = (__u32)bpf_get_current_pid_tgid(),
				  .sig = sig };
	struct task_struct *cur = bpf_get_current_task_btf();
	struct nw_signal_delivered_event d = {};
	struct sigpend_val *sv;

	/*
	 * Signals are delivered on the way back to user space: a notification
	 * still open here ended unseen (followed from the sender's or the
	 * supervisor's side only after the target's syscall exit). The
	 * syscall's return value is still in the registers.
	 */
	if (sig != SIGKILL && bpf_map_lookup_elem(&waiting, &sk.tid))
		finish_knotif(cur, sk.tid,
			      BPF_CORE_READ((struct pt_regs *)bpf_task_pt_regs(cur),
					    ax),
			      false);
	clear_just_ended(cur, sig);
	sv = bpf_map_lookup_elem(&sigpend, &sk);
	if (!sv)
		return;
	d.kind = NW_REC_SIGNAL_DELIVERED;
	d.sig = sig;
	d.key = sv->key;
	d.t_sent_ns = sv->t_sent_ns;
	d.sender_tgid = sv->sender_tgid;
	d.t_delivered_ns = bpf_ktime_get_ns();
	emit(&d, sizeof(d));
	bpf_map_delete_elem(&sigpend, &sk);
}

#endif /* KNOTIF_STATE_BPF_H */
