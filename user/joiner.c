// SPDX-License-Identifier: GPL-2.0
/*
 * The joiner: facts in t_ns order -> notification records. Each fact
 * handler below is one rule of docs/joiner.md; the facts were seen by one
 * thread each, so every question "who saw what first" is answered here,
 * on one thread, by the facts' timestamps.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <uthash.h>
#include "facts.h"
#include "joiner.h"
#include "key_set.h"
#include "reorder.h"
#include "knotif_table.h"
#include "sup_history.h"

#define ERESTARTSYS 512
#define SIGKILL 9
#define SIGRTMIN_KERNEL 32
#define NW_UNSEEN_LOOKBACK 4
#define NW_EARLY_SIGNALS 4
#define NW_ENDED_KEYS 8192
#define NW_DEFAULT_MAX_KNOTIFS 10240

#define SA_RESTART 0x10000000

union fact {
	struct nw_fact_hdr h;
	struct nw_fact_task task;
	struct nw_fact_wait wait;
	struct nw_fact_return ret;
	struct nw_fact_recv recv;
	struct nw_fact_reply reply;
	struct nw_fact_reply_done done;
	struct nw_fact_signal sig;
	struct nw_fact_deliver deliver;
	struct nw_fact_frozen frozen;
	struct nw_fact_switch sw;
	struct nw_fact_stack stack;
	unsigned char bytes[NW_FACT_MAX_SIZE];
};

/* A signal seen before its thread's wait was: fentry's bracket adopts it. */
struct early_signal {
	struct nw_signal s;
};

/* The end of a wait, for a signal whose sender's program ran after it. */
struct just_ended {
	struct nw_knotif_key key;
	__u64 unclaimed; /* pending standard signals no queued one explains */
};

struct thread {
	__u32 tid, tgid, vtid;
	char comm[NW_COMM_LEN];
	struct knotif_ref {
		bool set;
		struct nw_knotif_key key;
	} wait;
	struct early_signal early[NW_EARLY_SIGNALS];
	unsigned int nearly;
	struct just_ended ended;
	/* its last wait ended -ERESTARTSYS: the next may be its restart */
	struct {
		bool open;
		struct nw_knotif_key key;
		__u32 attempt;
		__u64 t_start_ns;
		__s32 nr;
	} chain;
	struct {
		bool set;
		__u64 t_enter_ns;
		struct nw_fact_reply r;
	} reply;
	/* since its last wait's end: runnable, off the CPU (SWITCH facts) */
	__u64 t_switched_out_ns;
	__u64 preempted_ns;
	struct sup_thread *sup; /* a supervisor thread: it received or replied */
	UT_hash_handle hh;
};

/* What a supervisor thread is doing, for its listener's queue_split. */
enum sup_state {
	SUP_RUNNING, /* on a CPU or preempted, not waiting to receive */
	SUP_RECEIVING, /* asleep in RECV or a poll, or woken from there */
	SUP_ASLEEP, /* asleep elsewhere */
};

struct sup_thread {
	__u64 filter; /* the listener it last received from or replied to */
	__u8 state; /* enum sup_state */
	__u64 known_since_ns; /* every switch of it since is a fact */
	struct sup_history history;
};

/* A queued signal waiting for its delivery, by (tid, sig): like sigpend. */
struct sigpend {
	struct sigpend_key {
		__u32 tid;
		__u32 sig;
	} k;
	struct nw_knotif_key key;
	__u64 t_sent_ns;
	__u32 sender_tgid;
	UT_hash_handle hh;
};

/*
 * A listener's received notifications not yet answered: a wait that ends
 * unreceived while one is held was queued behind a busy supervisor.
 */
struct listener {
	__u64 filter;
	unsigned int held;
	/* its supervisor threads, those receiving, those asleep elsewhere */
	unsigned int sup_threads, receiving, asleep;
	__u64 t_totals_ns; /* totals[] run up to here */
	__u64 totals[NW_QUEUE_STATES]; /* ns in each enum nw_queue_state */
	__u64 last_id; /* the newest one held */
	__u32 holder_tgid, holder_tid;
	UT_hash_handle hh;
};

struct joiner {
	struct joiner_config cfg;
	struct joiner_counters c;
	struct reorder window;
	__u64 applied_ns;
	struct knotif_table *table;
	struct thread *threads;
	struct sigpend *sigpend;
	/* notifications handed over (or dropped) lately: late facts */
	struct key_set *ended;
	struct listener *listeners;
};

/* ---- state ---------------------------------------------------------------- */

static struct thread *thread_of(struct joiner *j, __u32 tid, __u32 tgid)
{
	struct thread *t;

	HASH_FIND(hh, j->threads, &tid, sizeof(tid), t);
	if (t || !tid)
		return t;
	t = calloc(1, sizeof(*t));
	if (!t) {
		j->c.no_memory++;
		return NULL;
	}
	t->tid = tid;
	t->tgid = tgid;
	HASH_ADD(hh, j->threads, tid, sizeof(t->tid), t);
	return t;
}

static struct thread *thread_find(struct joiner *j, __u32 tid)
{
	struct thread *t;

	HASH_FIND(hh, j->threads, &tid, sizeof(tid), t);
	return t;
}

static bool ended_find(struct joiner *j, const struct nw_knotif_key *key)
{
	return key_set_has(j->ended, key);
}

/* Remembered for late facts; the oldest of NW_ENDED_KEYS is forgotten. */
static void ended_add(struct joiner *j, const struct nw_knotif_key *key)
{
	key_set_add(j->ended, key);
}

static struct knotif *knotif_find(struct joiner *j,
				  const struct nw_knotif_key *key)
{
	return knotif_table_find(j->table, key);
}

static void queue_snapshot(struct joiner *j, struct knotif *k);

/* A notification to follow from now on; NULL when ended, dropped or full. */
static struct knotif *knotif_start(struct joiner *j,
				   const struct nw_knotif_key *key)
{
	struct knotif *k;

	if (ended_find(j, key))
		return NULL;
	if (knotif_table_size(j->table) >= j->cfg.max_knotifs) {
		j->c.dropped_knotifs++;
		ended_add(j, key);
		return NULL;
	}
	k = knotif_table_get(j->table, key);
	if (!k) {
		j->c.no_memory++;
		return NULL;
	}
	k->ev.kind = NW_REC_KNOTIF;
	k->ev.arch = NW_AUDIT_ARCH_X86_64;
	queue_snapshot(j, k);
	return k;
}

static bool knotif_open(const struct knotif *k)
{
	return !k->have_event;
}

static struct listener *listener_of(struct joiner *j, __u64 filter)
{
	struct listener *l;

	HASH_FIND(hh, j->listeners, &filter, sizeof(filter), l);
	if (l)
		return l;
	l = calloc(1, sizeof(*l));
	if (!l) {
		j->c.no_memory++;
		return NULL;
	}
	l->filter = filter;
	HASH_ADD(hh, j->listeners, filter, sizeof(l->filter), l);
	return l;
}

/* ---- queue_split: the listener's supervisor threads over time ------------ */

static enum nw_queue_state listener_state(const struct listener *l)
{
	if (l->receiving)
		return NW_QUEUE_RUNNABLE;
	if (l->held)
		return NW_QUEUE_BUSY;
	if (l->asleep)
		return NW_QUEUE_BLOCKED;
	if (l->sup_threads)
		return NW_QUEUE_NO_RECEIVER;
	return NW_QUEUE_UNKNOWN;
}

/* Run the totals up to the fact being applied, before a count changes. */
static void listener_advance(struct joiner *j, struct listener *l)
{
	__u64 now = j->applied_ns;

	if (now <= l->t_totals_ns)
		return;
	if (l->t_totals_ns)
		l->totals[listener_state(l)] += now - l->t_totals_ns;
	l->t_totals_ns = now;
}

static void sup_count(struct joiner *j, struct sup_thread *s, int delta)
{
	struct listener *l;

	HASH_FIND(hh, j->listeners, &s->filter, sizeof(__u64), l);
	if (!l)
		return;
	listener_advance(j, l);
	l->sup_threads += delta;
	if (s->state == SUP_RECEIVING)
		l->receiving += delta;
	else if (s->state == SUP_ASLEEP)
		l->asleep += delta;
}

static void sup_set_state(struct joiner *j, struct sup_thread *s, __u8 state)
{
	if (s->state == state)
		return;
	sup_count(j, s, -1);
	s->state = state;
	sup_count(j, s, 1);
}

/* A thread received from or replied to @filter: it serves that listener. */
static struct sup_thread *sup_of(struct joiner *j, struct thread *t,
				 __u64 filter, __u64 t_ns)
{
	struct sup_thread *s = t->sup;

	if (!s) {
		s = calloc(1, sizeof(*s));
		if (!s) {
			j->c.no_memory++;
			return NULL;
		}
		s->known_since_ns = t_ns;
		t->sup = s;
	} else if (s->filter == filter) {
		sup_set_state(j, s, SUP_RUNNING);
		return s;
	} else {
		sup_count(j, s, -1);
	}
	if (!listener_of(j, filter))
		return s;
	s->filter = filter;
	s->state = SUP_RUNNING;
	sup_count(j, s, 1);
	return s;
}

/* A new notification: its listener's totals now, to subtract at RECV. */
static void queue_snapshot(struct joiner *j, struct knotif *k)
{
	struct listener *l = listener_of(j, k->ev.key.filter);

	if (!l)
		return;
	listener_advance(j, l);
	memcpy(k->queue_snap, l->totals, sizeof(k->queue_snap));
	k->queue_snap_ns = j->applied_ns;
	k->queue_snap_state = listener_state(l);
}

/*
 * At its RECV's return: the totals since it was first seen, and the time
 * from its start to that sighting in the state the listener was in then.
 * The parts add up to queue_ns (t_notify_ns to t_recv_ns) exactly.
 */
static void queue_split(struct joiner *j, struct knotif *k)
{
	struct listener *l;
	__u64 sum = 0, whole;
	unsigned int i, top = 0;

	HASH_FIND(hh, j->listeners, &k->ev.key.filter, sizeof(__u64), l);
	if (!l || !k->queue_snap_ns ||
	    !nw_span(k->ev.t_notify_ns, k->ev.t_recv_ns, &whole))
		return;
	listener_advance(j, l);
	for (i = 0; i < NW_QUEUE_STATES; i++) {
		k->queue_split[i] = l->totals[i] - k->queue_snap[i];
		sum += k->queue_split[i];
		if (k->queue_split[i] > k->queue_split[top])
			top = i;
	}
	if (whole >= sum) {
		k->queue_split[k->queue_snap_state] += whole - sum;
	} else {
		/* its start moved after the sighting (fentry's bracket) */
		i = k->queue_split[k->queue_snap_state] >= sum - whole ?
			    k->queue_snap_state :
			    top;
		if (k->queue_split[i] < sum - whole)
			return;
		k->queue_split[i] -= sum - whole;
	}
	k->have_queue_split = true;
}

/* The supervisor answers (or gives up on) a notification it received. */
static void release_held(struct joiner *j, struct knotif *k)
{
	struct listener *l;

	if (!k->held)
		return;
	k->held = false;
	HASH_FIND(hh, j->listeners, &k->ev.key.filter, sizeof(__u64), l);
	if (l && l->held) {
		listener_advance(j, l);
		l->held--;
	}
}

/* Unreceived at its end: was the listener's supervisor busy with another? */
static void note_queued_behind(struct joiner *j, struct knotif *k)
{
	struct listener *l;
	struct thread *s;

	if (k->ev.t_recv_ns)
		return;
	HASH_FIND(hh, j->listeners, &k->ev.key.filter, sizeof(__u64), l);
	if (!l || !l->held)
		return;
	k->have_queued_behind = true;
	k->queued_behind = l->last_id;
	k->busy_supervisor_tgid = l->holder_tgid;
	s = thread_find(j, l->holder_tid);
	if (s)
		memcpy(k->busy_supervisor_comm, s->comm, NW_COMM_LEN);
}

static struct knotif *waiting_of(struct joiner *j, struct thread *t)
{
	struct knotif *k;

	if (!t || !t->wait.set)
		return NULL;
	k = knotif_find(j, &t->wait.key);
	if (!k || !knotif_open(k)) {
		t->wait.set = false;
		return NULL;
	}
	return k;
}

/* A waiting thread of @tgid, for a process-directed signal. */
static struct thread *waiting_thread_of_group(struct joiner *j, __u32 tgid)
{
	struct thread *t, *tmp;

	HASH_ITER(hh, j->threads, t, tmp)
		if (t->tgid == tgid && waiting_of(j, t))
			return t;
	return NULL;
}

/*
 * The thread's first wait after one it left with -ERESTARTSYS, for the same
 * syscall, is the kernel's restart of it (a signal handler's own trapped
 * call in between has another number, or is taken for it: docs/joiner.md).
 * Call with k->ev.nr set.
 */
static void set_target(struct knotif *k, struct thread *t)
{
	if (!t || k->ev.target_tid)
		return;
	k->ev.target_tid = t->tid;
	k->ev.target_tgid = t->tgid;
	k->attempt = 1;
	if (t->chain.open && t->chain.nr == k->ev.nr &&
	    memcmp(&t->chain.key, &k->ev.key, sizeof(k->ev.key))) {
		k->have_restart_of = true;
		k->restart_of = t->chain.key.id;
		k->attempt = t->chain.attempt + 1;
		k->t_chain_start_ns = t->chain.t_start_ns;
	}
	t->chain.open = false;
}

/* ---- signals ------------------------------------------------------------ */

static __u64 sig_bit(__u32 sig)
{
	return sig >= 1 && sig <= 64 ? 1ULL << (sig - 1) : 0;
}

static __u64 queued_mask(const struct knotif *k)
{
	__u64 mask = 0;
	unsigned int i;

	for (i = 0; i < k->ev.nsignals && i < NW_MAX_SIGNALS; i++)
		if (k->ev.signals[i].t_sent_ns && k->ev.signals[i].result == 0)
			mask |= sig_bit(k->ev.signals[i].sig);
	return mask;
}

static void sigpend_set(struct joiner *j, __u32 tid, __u32 sig,
			const struct nw_knotif_key *key, __u64 t_sent,
			__u32 sender, bool only_new)
{
	struct sigpend_key sk = { .tid = tid, .sig = sig };
	struct sigpend *p;

	HASH_FIND(hh, j->sigpend, &sk, sizeof(sk), p);
	if (p && only_new)
		return;
	if (!p) {
		p = calloc(1, sizeof(*p));
		if (!p) {
			j->c.no_memory++;
			return;
		}
		p->k = sk;
		HASH_ADD(hh, j->sigpend, k, sizeof(p->k), p);
	}
	p->key = *key;
	p->t_sent_ns = t_sent;
	p->sender_tgid = sender;
}

/*
 * A wait aborted, or slept killable, with no queued signal recorded: the
 * lowest unblocked pending one was sent before it (or its sender's fact
 * comes later: knotif_derive() then drops the guess).
 */
static void note_prior_signal(struct joiner *j, struct knotif *k, __u64 pending)
{
	int sig;

	if (!pending)
		return;
	sig = __builtin_ctzll(pending) + 1;
	k->ev.prior_sig = sig;
	sigpend_set(j, k->ev.target_tid, sig, &k->ev.key, 0, 0, true);
}

static void add_signal(struct joiner *j, struct knotif *k, __u32 tid,
		       const struct nw_signal *s)
{
	unsigned int n = k->ev.nsignals;

	if (n >= NW_MAX_SIGNALS) {
		j->c.dropped_signals++;
		if (k->ev.signals_dropped < 255)
			k->ev.signals_dropped++;
		return;
	}
	k->ev.signals[n] = *s;
	k->t_delivered_ns[n] = 0;
	k->ev.nsignals = n + 1;
	if (s->result == 0)
		sigpend_set(j, tid, s->sig, &k->ev.key, s->t_sent_ns,
			    s->sender_tgid, false);
}

static struct nw_signal signal_of(const struct nw_fact_signal *f)
{
	return (struct nw_signal){
		.t_sent_ns = f->h.t_ns,
		.sig = f->sig,
		.sender_tgid = f->h.tgid,
		.result = f->result,
		.masked = !!(f->h.flags & NW_SIG_MASKED),
	};
}

/* ---- the target's side --------------------------------------------------- */

static void note_sleep(struct joiner *j, struct knotif *k, bool killable,
		       __u64 t, __u64 pending)
{
	if (!killable) {
		k->ev.interruptible_sleeps++;
		return;
	}
	k->ev.killable_sleeps++;
	if (k->ev.t_killable_ns)
		return;
	k->ev.t_killable_ns = t;
	k->ev.killable_cause = k->ev.wake_cause;
	/* signal_generate fires after the wake-up: a pending one is the cause */
	if (!k->ev.killable_cause)
		k->ev.killable_cause = pending ? NW_CAUSE_SIGNAL :
						 NW_CAUSE_RECV;
	if (!queued_mask(k))
		note_prior_signal(j, k, pending);
}

/* fentry: signals sent after the bracket's entry, before its knotif was known */
static void adopt_early_signals(struct joiner *j, struct knotif *k,
				struct thread *t, __u64 t_start)
{
	unsigned int i;

	for (i = 0; i < t->nearly; i++)
		if (t_start && t->early[i].s.t_sent_ns >= t_start) {
			k->ev.wake_cause = NW_CAUSE_SIGNAL;
			add_signal(j, k, t->tid, &t->early[i].s);
		}
	t->nearly = 0;
}

static void close_wait(struct joiner *j, struct knotif *k, struct thread *t,
		       __u64 t_ns, __s64 ret, __u64 pending, __u8 flags);

static void on_wait(struct joiner *j, const struct nw_fact_wait *f)
{
	struct nw_knotif_key key = { .filter = f->filter, .id = f->id };
	struct thread *t = thread_of(j, f->h.tid, f->h.tgid);
	__u8 how = f->h.flags & NW_WAIT_HOW_MASK;
	struct knotif *k, *old;

	if (!t)
		return;
	old = waiting_of(j, t);
	if (old && memcmp(&old->ev.key, &key, sizeof(key)))
		/* a wait whose end was not seen: the thread is in a new one */
		close_wait(j, old, t, f->h.t_ns, 0, 0, NW_RET_UNKNOWN);
	k = knotif_find(j, &key);
	if (!k) {
		k = knotif_start(j, &key);
		if (!k)
			return;
		k->ev.notify_source = how == NW_WAIT_WAKEUP ? NW_SEEN_WAKEUP :
				      how == NW_WAIT_SLEEP  ? NW_SEEN_SLEEP :
							      NW_SEEN_ENTRY;
		k->ev.t_notify_ns = how == NW_WAIT_ENTRY && f->t_start_ns ?
					    f->t_start_ns :
					    f->h.t_ns;
	} else if (!knotif_open(k)) {
		return; /* a stale read of a knotif already over */
	} else if (how == NW_WAIT_ENTRY && f->t_start_ns) {
		/* fentry: whoever saw it first, the bracket's entry is the start */
		k->ev.t_notify_ns = f->t_start_ns;
		k->ev.notify_source = NW_SEEN_ENTRY;
	}
	k->ev.nr = f->nr;
	k->ev.arch = f->arch;
	set_target(k, t);
	k->ev.filter_killable = !!(f->h.flags & NW_WAIT_FILTER_KILLABLE);
	t->wait.set = true;
	t->wait.key = key;
	t->ended.unclaimed = 0;
	if (how == NW_WAIT_ENTRY)
		adopt_early_signals(j, k, t, f->t_start_ns);
	if (how != NW_WAIT_WAKEUP)
		note_sleep(j, k, f->h.flags & NW_WAIT_KILLABLE, f->h.t_ns,
			   f->pending);
}

static void close_wait(struct joiner *j, struct knotif *k, struct thread *t,
		       __u64 t_ns, __s64 ret, __u64 pending, __u8 flags)
{
	if (ret == -ERESTARTSYS && !queued_mask(k))
		note_prior_signal(j, k, pending);
	k->ev.t_return_ns = t_ns;
	k->ev.ret = ret;
	k->ev.exited = !!(flags & NW_RET_EXITED);
	k->ev.fatal_pending = !!(flags & NW_RET_FATAL);
	k->ev.ret_unknown = !!(flags & NW_RET_UNKNOWN);
	k->t_closed_ns = t_ns;
	k->have_event = true;
	note_queued_behind(j, k);
	knotif_add_prior_guess(k);
	if (t) {
		t->wait.set = false;
		t->nearly = 0;
		t->ended.key = k->ev.key;
		t->chain.open = ret == -ERESTARTSYS && !k->ev.exited &&
				!k->ev.fatal_pending;
		t->chain.key = k->ev.key;
		t->chain.attempt = k->attempt ? k->attempt : 1;
		t->chain.t_start_ns = knotif_chain_start(k);
		t->chain.nr = k->ev.nr;
		t->t_switched_out_ns = 0;
		t->preempted_ns = 0;
		/* pending standard signals no queued one explains yet */
		t->ended.unclaimed = pending & ~queued_mask(k) &
				     ((1ULL << (SIGRTMIN_KERNEL - 1)) - 1);
	}
}

/*
 * tracepoint: a skipped syscall's exit, its wait unseen: the newest id not
 * seen, not ended and not still queued by another thread at this exit
 */
static void on_unseen_return(struct joiner *j, const struct nw_fact_return *f,
			     struct thread *t)
{
	struct nw_knotif_key key = { .filter = f->filter };
	struct knotif *k;
	int i, known;

	if (f->ret != -ERESTARTSYS || !f->filter)
		return;
	/* skip ids others still had queued at this exit; count the rest */
	for (i = 1, known = 0; known < NW_UNSEEN_LOOKBACK && (__u64)i <= f->id;
	     i++) {
		if (i <= 32 && (f->queued >> (i - 1)) & 1)
			continue;
		key.id = f->id - i;
		if (!knotif_find(j, &key) && !ended_find(j, &key))
			break;
		known++;
	}
	if (known == NW_UNSEEN_LOOKBACK || (__u64)i > f->id) {
		j->c.unidentified++;
		return;
	}
	k = knotif_start(j, &key);
	if (!k)
		return;
	k->ev.notify_source = NW_SEEN_EXIT;
	k->ev.nr = f->nr;
	k->ev.filter_killable = !!(f->h.flags & NW_RET_FILTER_KILLABLE);
	set_target(k, t);
	close_wait(j, k, t, f->h.t_ns, f->ret, f->pending, f->h.flags);
}

static void on_return(struct joiner *j, const struct nw_fact_return *f)
{
	struct nw_knotif_key key = { .filter = f->filter, .id = f->id };
	struct thread *t = thread_of(j, f->h.tid, f->h.tgid);
	struct knotif *k;

	if (f->h.flags & NW_RET_NO_KEY) {
		k = waiting_of(j, t);
		if (!k) {
			on_unseen_return(j, f, t);
			return;
		}
	} else {
		k = knotif_find(j, &key);
		if (!k || !knotif_open(k))
			return; /* not followed (dropped, filtered) */
	}
	if (!k->ev.nr)
		k->ev.nr = f->nr;
	close_wait(j, k, t, f->h.t_ns, f->ret, f->pending, f->h.flags);
}

/* ---- signals and their delivery ---------------------------------------- */

/* Woken by this signal, the target returned before its sender's fact. */
static bool claim_just_ended(struct joiner *j, struct thread *t,
			     const struct nw_fact_signal *f)
{
	struct nw_signal s = signal_of(f);
	struct knotif *k;

	if (!t || f->result != 0 || !(t->ended.unclaimed & sig_bit(f->sig)))
		return false;
	t->ended.unclaimed &= ~sig_bit(f->sig);
	k = knotif_find(j, &t->ended.key);
	if (!k)
		return false;
	s.seen_after_return = 1;
	s.after_recv = k->ev.t_recv_ns && k->ev.t_recv_ns <= s.t_sent_ns;
	s.in_killable_sleep = k->ev.t_killable_ns != 0;
	add_signal(j, k, t->tid, &s);
	return true;
}

static void on_signal(struct joiner *j, const struct nw_fact_signal *f)
{
	struct nw_knotif_key key = { .filter = f->filter, .id = f->id };
	struct thread *t = thread_of(j, f->target_tid, f->target_tgid), *g;
	struct nw_signal s = signal_of(f);
	struct knotif *k = waiting_of(j, t);

	if (!t)
		return;
	if (!k && (f->h.flags & NW_SIG_GROUP)) {
		g = waiting_thread_of_group(j, f->target_tgid);
		if (g) {
			t = g;
			k = waiting_of(j, g);
		}
	}
	if (!k && (f->h.flags & NW_SIG_HAVE_KEY)) {
		/* tracepoint: the sender saw the knotif before its target did */
		k = knotif_find(j, &key);
		if (!k && !ended_find(j, &key)) {
			k = knotif_start(j, &key);
			if (k) {
				k->ev.notify_source = NW_SEEN_SIGNAL;
				k->ev.t_notify_ns = f->h.t_ns;
				k->ev.nr = f->nr;
				k->ev.filter_killable =
					!!(f->h.flags & NW_SIG_FILTER_KILLABLE);
			}
		}
		if (k && knotif_open(k)) {
			set_target(k, t);
			if (k->ev.target_tid == t->tid) {
				t->wait.set = true;
				t->wait.key = key;
			}
		} else {
			k = NULL;
		}
	}
	if (k) {
		s.after_recv = k->ev.t_recv_ns != 0;
		s.in_killable_sleep = k->ev.t_killable_ns != 0;
		k->ev.wake_cause = NW_CAUSE_SIGNAL;
		add_signal(j, k, t->tid, &s);
		return;
	}
	if (claim_just_ended(j, t, f))
		return;
	if ((f->h.flags & NW_SIG_GROUP) && t->tgid) {
		struct thread *x, *tmp;

		HASH_ITER(hh, j->threads, x, tmp)
			if (x != t && x->tgid == f->target_tgid &&
			    claim_just_ended(j, x, f))
				return;
	}
	/* maybe inside fentry's bracket before the knotif is known */
	if (t->nearly < NW_EARLY_SIGNALS)
		t->early[t->nearly++].s = s;
}

/* The scheduler's share of this delivery's wait (--check-bound's split). */
static void note_preempted(struct knotif *k, const struct nw_fact_deliver *f,
			   __u64 preempted)
{
	unsigned int i;

	for (i = 0; i < k->ev.nsignals && i < NW_MAX_SIGNALS; i++)
		if (k->ev.signals[i].sig == f->sig &&
		    k->t_delivered_ns[i] == f->h.t_ns)
			k->preempted_ns[i] = preempted;
}

static void on_deliver(struct joiner *j, const struct nw_fact_deliver *f)
{
	struct sigpend_key sk = { .tid = f->h.tid, .sig = f->sig };
	struct thread *t = thread_find(j, f->h.tid);
	struct sigpend *p;
	struct knotif *k;

	if (t) {
		t->ended.unclaimed &= ~sig_bit(f->sig);
		/* delivered on the way out: a wait still open here is over */
		k = waiting_of(j, t);
		if (k && f->sig != SIGKILL)
			close_wait(j, k, t, f->h.t_ns, 0, 0, NW_RET_UNKNOWN);
		/* a handler without SA_RESTART: the program gets EINTR */
		if (t->chain.open && (f->h.flags & NW_DELIVER_HANDLER) &&
		    !(f->sa_flags & SA_RESTART)) {
			t->chain.open = false;
			k = knotif_find(j, &t->chain.key);
			if (k)
				k->eintr = true;
		}
	}
	HASH_FIND(hh, j->sigpend, &sk, sizeof(sk), p);
	if (!p)
		return;
	k = knotif_find(j, &p->key);
	if (k) {
		knotif_set_delivered(k, f->sig, p->t_sent_ns, f->h.t_ns,
				     p->sender_tgid);
		if (t)
			note_preempted(k, f, t->preempted_ns);
	}
	HASH_DEL(j->sigpend, p);
	free(p);
}

/* The switches of a target on its way to a signal's delivery. */
static void target_switch(struct thread *t, const struct nw_fact_switch *f)
{
	if (f->h.flags & NW_SWITCH_OUT) {
		if (f->h.flags & NW_SWITCH_RUNNABLE)
			t->t_switched_out_ns = f->h.t_ns;
		return;
	}
	if (t->t_switched_out_ns) {
		t->preempted_ns += f->h.t_ns - t->t_switched_out_ns;
		t->t_switched_out_ns = 0;
	}
}

/* A supervisor thread's switch: its history, its listener's state. */
static void sup_switch(struct joiner *j, struct thread *t,
		       const struct nw_fact_switch *f)
{
	struct sup_thread *s = t->sup;

	if (f->h.flags & NW_SWITCH_EXIT) {
		sup_count(j, s, -1);
		free(s);
		t->sup = NULL;
		return;
	}
	if (f->h.flags & NW_SWITCH_IN) {
		sup_history_push(&s->history, f->h.t_ns, SUP_IN);
		if (s->state == SUP_ASLEEP)
			sup_set_state(j, s, SUP_RUNNING);
		return;
	}
	if (f->h.flags & NW_SWITCH_RUNNABLE) {
		sup_history_push(&s->history, f->h.t_ns, SUP_OUT_RUNNABLE);
		return;
	}
	sup_history_push(&s->history, f->h.t_ns, SUP_OUT_BLOCKED);
	sup_set_state(j, s,
		      f->h.flags & NW_SWITCH_WAITING ? SUP_RECEIVING :
						       SUP_ASLEEP);
}

static void on_switch(struct joiner *j, const struct nw_fact_switch *f)
{
	struct thread *t = thread_find(j, f->tid);

	if (!t)
		return;
	target_switch(t, f);
	if (t->sup)
		sup_switch(j, t, f);
}

static void on_stack(struct joiner *j, const struct nw_fact_stack *f)
{
	struct thread *t = thread_find(j, f->h.tid);

	if (t && t->sup)
		sup_history_stack(&t->sup->history, f->h.t_ns, f->kstack,
				  f->ustack);
}

static __u8 reply_kind(const struct nw_fact_reply *r);

struct blocked_ctx {
	struct joiner *j;
	const struct thread *t;
};

static void blocked_stack(void *ctx, const struct sup_switch *out,
			  __u64 weight_ns)
{
	struct blocked_ctx *b = ctx;

	b->j->cfg.stack(b->t->tgid, b->t->tid, b->t->comm, out->kstack,
			out->ustack, weight_ns, b->j->cfg.ctx);
}

/*
 * The reply ends the handling: the replier's time since the RECV, split
 * by its switches, whichever thread received it (worker pools). A replier
 * first seen at this reply was not followed before it: no split.
 */
static void end_handling(struct joiner *j, struct knotif *k,
			 const struct nw_fact_reply *f, struct thread *t)
{
	struct blocked_ctx b = { .j = j, .t = t };
	struct sup_split split;

	if (k->have_handle_split || !k->ev.t_recv_ns || !reply_kind(f))
		return;
	k->have_handle_split = true;
	k->handle_split.thread = f->h.tid;
	k->handle_split.recv_thread = k->supervisor_tid;
	if (!t->sup)
		return;
	switch (sup_history_split(&t->sup->history, t->sup->known_since_ns,
				  k->ev.t_recv_ns, f->h.t_ns, &split,
				  j->cfg.stack ? blocked_stack : NULL, &b)) {
	case SUP_SPLIT_OK:
		break;
	case SUP_SPLIT_GAP:
		j->c.switch_gaps++;
		return;
	default:
		return;
	}
	k->handle_split.known = true;
	k->handle_split.running_ns = split.running_ns;
	k->handle_split.runnable_ns = split.runnable_ns;
	k->handle_split.blocked_ns = split.blocked_ns;
}

/* ---- the supervisor's side ---------------------------------------------- */

static void hold(struct joiner *j, struct knotif *k, __u32 tgid, __u32 tid)
{
	struct listener *l = listener_of(j, k->ev.key.filter);

	if (!l || k->held)
		return;
	k->held = true;
	listener_advance(j, l);
	l->held++;
	l->last_id = k->ev.key.id;
	l->holder_tgid = tgid;
	l->holder_tid = tid;
}

static void on_recv(struct joiner *j, const struct nw_fact_recv *f)
{
	struct nw_knotif_key key = { .filter = f->filter, .id = f->id };
	struct knotif *k = knotif_find(j, &key);
	struct thread *sup = thread_of(j, f->h.tid, f->h.tgid);
	struct thread *target = NULL;

	if (f->target_tid)
		target = thread_of(j, f->target_tid, f->target_tgid);
	if (!k) {
		k = knotif_start(j, &key);
		if (!k)
			return;
		/* the supervisor took it before its target was seen waiting */
		k->ev.notify_source = NW_SEEN_RECV;
		k->ev.nr = f->nr;
		k->ev.arch = f->arch;
		k->ev.filter_killable =
			!!(f->h.flags & NW_RECV_FILTER_KILLABLE);
		if (target && !waiting_of(j, target)) {
			set_target(k, target);
			target->wait.set = true;
			target->wait.key = key;
		}
	}
	if (k->ev.t_recv_ns)
		return;
	k->ev.t_recv_ns = f->h.t_ns;
	k->ev.supervisor_tgid = f->h.tgid;
	k->supervisor_tid = f->h.tid;
	queue_split(j, k);
	if (sup)
		sup_of(j, sup, f->filter, f->h.t_ns);
	hold(j, k, f->h.tgid, f->h.tid);
	k->ev.supervisor_seen_pid = f->seen_pid;
	if (f->h.flags & NW_RECV_FILTER_KILLABLE)
		k->ev.filter_killable = 1;
	if (f->h.flags & NW_RECV_SEED_FLAG) {
		/* seed: RECV completes ->ready so the target re-sleeps killable */
		k->ev.recv_flag = 1;
		if (knotif_open(k))
			k->ev.wake_cause = NW_CAUSE_RECV;
	}
}

static __u8 reply_kind(const struct nw_fact_reply *r)
{
	if ((r->h.flags & NW_REPLY_OP_MASK) == NW_REPLY_OP_ADDFD)
		return r->flags & NW_ADDFD_FLAG_SEND ? NW_REPLY_ADDFD_SEND :
						       NW_REPLY_NONE;
	if (r->flags & NW_USER_NOTIF_FLAG_CONTINUE)
		return NW_REPLY_CONTINUE;
	return r->error ? NW_REPLY_ERROR : NW_REPLY_VALUE;
}

static void on_reply(struct joiner *j, const struct nw_fact_reply *f)
{
	struct nw_knotif_key key = { .filter = f->filter, .id = f->id };
	struct thread *t = thread_of(j, f->h.tid, f->h.tgid);
	struct knotif *k = knotif_find(j, &key);

	if (!t)
		return;
	sup_of(j, t, f->filter, f->h.t_ns);
	if (t->reply.set) {
		/* its REPLY_DONE was lost: that reply holds its record no more */
		struct knotif *prev = knotif_find(
			j, &(struct nw_knotif_key){ .filter = t->reply.r.filter,
						    .id = t->reply.r.id });

		if (prev && prev->replies_in_flight)
			prev->replies_in_flight--;
	}
	t->reply.set = true;
	t->reply.t_enter_ns = f->h.t_ns;
	t->reply.r = *f;
	if (!k)
		return;
	release_held(j, k);
	end_handling(j, k, f, t);
	k->replies_in_flight++;
	if ((f->h.flags & NW_REPLY_OP_MASK) == NW_REPLY_OP_ADDFD &&
	    knotif_open(k))
		k->ev.wake_cause = NW_CAUSE_ADDFD;
}

static void set_reply(struct knotif *k, const struct nw_fact_reply *r,
		      __u64 t_enter)
{
	k->ev.t_reply_ns = t_enter;
	k->ev.reply_kind = reply_kind(r);
	k->ev.reply_val = r->val;
	k->ev.reply_error = r->error;
}

static void on_reply_done(struct joiner *j, const struct nw_fact_reply_done *f)
{
	struct nw_knotif_key key = { .filter = f->filter, .id = f->id };
	struct thread *t = thread_find(j, f->h.tid);
	struct knotif *k = knotif_find(j, &key);
	struct nw_reply_failed_event failed = {};
	struct nw_fact_reply r = {};
	__u64 t_enter = f->h.t_ns;
	struct nw_addfd_event a = {};

	if (t && t->reply.set && t->reply.r.filter == f->filter &&
	    t->reply.r.id == f->id) {
		r = t->reply.r;
		t_enter = t->reply.t_enter_ns;
		t->reply.set = false;
		if (k && k->replies_in_flight)
			k->replies_in_flight--;
	} else {
		r.h.flags = f->h.flags; /* its REPLY was lost: what DONE says */
	}
	if (!k && !ended_find(j, &key))
		return; /* not a notification this run follows */
	if ((f->h.flags & NW_REPLY_OP_MASK) == NW_REPLY_OP_ADDFD) {
		if (!k)
			return;
		a.kind = NW_REC_ADDFD;
		a.key = key;
		a.flags = r.flags;
		a.newfd = r.newfd;
		a.t_enter_ns = t_enter;
		a.t_exit_ns = f->h.t_ns;
		a.ret = f->ret;
		a.supervisor_tgid = f->h.tgid;
		knotif_add_addfd(k, &a);
		if (f->ret >= 0 && reply_kind(&r) == NW_REPLY_ADDFD_SEND)
			set_reply(k, &r, t_enter);
		return;
	}
	if (f->ret >= 0) {
		if (k)
			set_reply(k, &r, t_enter);
		return;
	}
	failed.kind = NW_REC_REPLY_FAILED;
	failed.supervisor_tgid = f->h.tgid;
	failed.key = key;
	failed.t_ns = t_enter;
	failed.ret = f->ret;
	failed.op = r.cmd ? r.cmd : NW_IOCTL_NOTIF_SEND;
	if (k) {
		k->reply_failed = true;
		k->failure.t_ns = failed.t_ns;
		k->failure.ret = failed.ret;
		k->failure.op = failed.op;
		k->failure.supervisor_tgid = failed.supervisor_tgid;
	}
	if (j->cfg.reply_failed)
		j->cfg.reply_failed(&failed, j->cfg.ctx);
}

/* Frozen on the way out of a wait that ended -ERESTARTSYS (facts.h). */
static void on_frozen(struct joiner *j, const struct nw_fact_frozen *f)
{
	struct thread *t = thread_find(j, f->h.tid);
	struct knotif *k;

	if (!t)
		return;
	k = knotif_find(j, &t->ended.key);
	if (k && k->have_event && k->ev.ret == -ERESTARTSYS)
		k->frozen = true;
}

static void on_task(struct joiner *j, const struct nw_fact_task *f)
{
	struct thread *t = thread_of(j, f->h.tid, f->h.tgid);

	if (!t)
		return;
	memcpy(t->comm, f->comm, NW_COMM_LEN);
	t->comm[NW_COMM_LEN - 1] = 0;
	t->vtid = f->vtid;
	t->tgid = f->h.tgid;
}

/* ---- applying and handing over -------------------------------------------- */

static void apply(struct joiner *j, const union fact *f)
{
	switch (f->h.kind) {
	case NW_FACT_TASK:
		on_task(j, &f->task);
		break;
	case NW_FACT_WAIT:
		on_wait(j, &f->wait);
		break;
	case NW_FACT_RETURN:
		on_return(j, &f->ret);
		break;
	case NW_FACT_RECV:
		on_recv(j, &f->recv);
		break;
	case NW_FACT_REPLY:
		on_reply(j, &f->reply);
		break;
	case NW_FACT_REPLY_DONE:
		on_reply_done(j, &f->done);
		break;
	case NW_FACT_SIGNAL:
		on_signal(j, &f->sig);
		break;
	case NW_FACT_DELIVER:
		on_deliver(j, &f->deliver);
		break;
	case NW_FACT_FROZEN:
		on_frozen(j, &f->frozen);
		break;
	case NW_FACT_SWITCH:
		on_switch(j, &f->sw);
		break;
	case NW_FACT_STACK:
		on_stack(j, &f->stack);
		break;
	}
}

/* Names come from the threads' TASK facts, whenever those arrived. */
static void hand_over(struct knotif *k, void *ctx)
{
	struct joiner *j = ctx;
	struct thread *t = thread_find(j, k->ev.target_tid);
	struct thread *s = thread_find(j, k->supervisor_tid);

	if (t) {
		if (!k->ev.comm[0])
			memcpy(k->ev.comm, t->comm, NW_COMM_LEN);
		if (!k->ev.target_vtid)
			k->ev.target_vtid = t->vtid;
	}
	if (s && !k->ev.supervisor_comm[0])
		memcpy(k->ev.supervisor_comm, s->comm, NW_COMM_LEN);
	release_held(j, k);
	ended_add(j, &k->ev.key);
	if (j->cfg.knotif)
		j->cfg.knotif(k, j->cfg.ctx);
}

struct joiner *joiner_new(const struct joiner_config *cfg)
{
	struct joiner *j = calloc(1, sizeof(*j));

	if (!j)
		return NULL;
	j->cfg = *cfg;
	if (!j->cfg.max_knotifs)
		j->cfg.max_knotifs = NW_DEFAULT_MAX_KNOTIFS;
	if (!j->cfg.reorder_ns)
		j->cfg.reorder_ns = NW_REORDER_NS;
	j->table = knotif_table_new(hand_over, j);
	j->ended = key_set_new(NW_ENDED_KEYS);
	if (!j->table || !j->ended) {
		joiner_free(j);
		return NULL;
	}
	return j;
}

void joiner_free(struct joiner *j)
{
	struct thread *t, *tt;
	struct sigpend *p, *pt;
	struct listener *l, *lt;

	if (!j)
		return;
	knotif_table_free(j->table);
	key_set_free(j->ended);
	HASH_ITER(hh, j->listeners, l, lt) {
		HASH_DEL(j->listeners, l);
		free(l);
	}
	HASH_ITER(hh, j->threads, t, tt) {
		HASH_DEL(j->threads, t);
		free(t->sup);
		free(t);
	}
	HASH_ITER(hh, j->sigpend, p, pt) {
		HASH_DEL(j->sigpend, p);
		free(p);
	}
	reorder_free(&j->window);
	free(j);
}

int joiner_feed(struct joiner *j, const void *fact, size_t size)
{
	struct nw_fact_hdr h;

	if (size < sizeof(h))
		goto bad;
	memcpy(&h, fact, sizeof(h));
	if (!nw_fact_size(h.kind) || size != nw_fact_size(h.kind) ||
	    h.size != size)
		goto bad;
	if (reorder_push(&j->window, h.t_ns, fact, size)) {
		j->c.no_memory++;
		return -ENOMEM;
	}
	j->c.facts++;
	return 0;
bad:
	j->c.malformed++;
	return -EINVAL;
}

static void apply_until(struct joiner *j, __u64 until_ns, bool all)
{
	union fact f;
	__u64 t;

	while (reorder_peek(&j->window, &t) && (all || t <= until_ns)) {
		reorder_pop(&j->window, &f);
		if (f.h.t_ns < j->applied_ns)
			j->c.late++; /* held past the window: applied as it comes */
		else
			j->applied_ns = f.h.t_ns;
		apply(j, &f);
	}
}

void joiner_tick(struct joiner *j, __u64 now_ns)
{
	__u64 until = now_ns > j->cfg.reorder_ns ? now_ns - j->cfg.reorder_ns :
						   0;

	apply_until(j, until, false);
	knotif_table_flush(j->table, until);
}

static void mark_pending(struct knotif *k, void *ctx)
{
	struct joiner *j = ctx;

	if (k->have_event)
		return;
	if (!k->ev.target_tid) {
		/* seen only at RECV, its target never: no record to give */
		j->c.unidentified++;
		return;
	}
	k->pending = true;
	k->have_event = true;
	knotif_add_prior_guess(k);
}

void joiner_finish(struct joiner *j)
{
	apply_until(j, 0, true);
	knotif_table_for_each(j->table, mark_pending, j);
	knotif_table_flush_all(j->table);
}

void joiner_counters(const struct joiner *j, struct joiner_counters *out)
{
	*out = j->c;
}
