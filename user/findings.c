// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "findings.h"
#include "syscalls.h"

/* The evidence numbers of each kind: acc.num[i] is reported as keys[i]. */
static const char *const num_keys[FINDING_COUNT][NW_FINDING_NUMS] = {
	[FINDING_RESTART_STORM] = { "threshold", "max_restarts", "unfinished",
				    "restarted_waits", "before_recv",
				    "after_recv", "chains_untracked" },
	[FINDING_INTERRUPTED_WHILE_QUEUED] = { "interrupted_before_recv",
					       "share_percent", "max_queue_ns",
					       "total_queue_ns" },
	[FINDING_EINTR_TO_PROGRAM] = { "not_native" },
	[FINDING_LOST_REPLY] = { "failed_enoent", "succeeded_unreached",
				 "by_signal", "by_freezer", "by_other" },
	[FINDING_INTERRUPTED_BY_FREEZER] = { "before_recv", "after_recv",
					     "restarted", "replies_lost" },
	[FINDING_SIGNAL_DELAY_OVER_BUDGET] = { "budget_ns", "max_pending_ns",
					       "max_handle_ns" },
	[FINDING_SUPERVISOR_STARVED] = { "threshold_percent",
					 "max_runnable_percent", "runnable_ns",
					 "handle_ns" },
	[FINDING_SUPERVISOR_BLOCKED] = { "threshold_percent",
					 "max_blocked_percent", "blocked_ns",
					 "handle_ns", "top_stack_ns" },
};

enum {
	STORM_THRESHOLD,
	STORM_MAX,
	STORM_UNFINISHED,
	STORM_RESTARTED,
	STORM_BEFORE_RECV,
	STORM_AFTER_RECV,
	STORM_UNTRACKED,
};
enum { QUEUED_ALL, QUEUED_SHARE, QUEUED_MAX, QUEUED_TOTAL };
enum { EINTR_NOT_NATIVE };
enum { LOST_ENOENT, LOST_UNREACHED, LOST_SIGNAL, LOST_FREEZER, LOST_OTHER };
enum { FROZEN_BEFORE, FROZEN_AFTER, FROZEN_RESTARTED, FROZEN_LOST };
enum { BUDGET_NS, BUDGET_MAX_PENDING, BUDGET_MAX_HANDLE };

/* A storm of waits still queued: the killable flag was there, and no help. */
static const char queued_storm_advice[] =
	"the restarts hit waits not yet received, where SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV does not apply: receive eagerly (a thread that only receives) or run more receivers, or block the signal around the call";

static const char *const advice[FINDING_COUNT] = {
	[FINDING_RESTART_STORM] =
		"a signal (Go's SIGURG preemption) interrupts the wait again and again: set SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV on the filter (Linux 5.19+) or block the signal around the call (Go: GODEBUG=asyncpreemptoff=1)",
	[FINDING_INTERRUPTED_WHILE_QUEUED] =
		"a notification not yet received stays interruptible even with the killable flag: receive eagerly (a thread that only receives) or run more receivers",
	[FINDING_EINTR_TO_PROGRAM] =
		"a handler without SA_RESTART turns the interruption into EINTR: install handlers with SA_RESTART, or set SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV (Linux 5.19+) so a received notification is not interrupted",
	[FINDING_LOST_REPLY] =
		"the target's wait was interrupted before the reply reached it: set SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV (Linux 5.19+); a supervisor should read ENOENT from NOTIF_SEND as 'the syscall restarts' and undo what it did",
	[FINDING_INTERRUPTED_BY_FREEZER] =
		"the cgroup freezer (docker pause, systemd freezing a unit) interrupts waits without a signal and the syscall restarts as a new notification: handle requests idempotently and expect ENOENT on the old id",
	[FINDING_SUPERVISOR_STARVED] =
		"the supervisor waited for a CPU while it handled notifications: give it CPU time (cgroup cpu.weight or cpu.max, a CPU of its own away from busy targets) or fewer runnable threads beside it",
	[FINDING_SUPERVISOR_BLOCKED] =
		"the supervisor slept through most of its handle time (disk, a lock, a call to another process): see where with --supervisor-stacks; answer first and finish the work after, or hand slow work to more workers",
	[FINDING_SIGNAL_DELAY_OVER_BUDGET] =
		"the supervisor's handle time holds the target's signals past the budget: reply sooner (answer first, finish the work after) or run more workers",
};

static const char *const kind_names[FINDING_COUNT] = {
	[FINDING_RESTART_STORM] = "restart_storm",
	[FINDING_INTERRUPTED_WHILE_QUEUED] = "interrupted_while_queued",
	[FINDING_EINTR_TO_PROGRAM] = "eintr_to_program",
	[FINDING_LOST_REPLY] = "lost_reply",
	[FINDING_INTERRUPTED_BY_FREEZER] = "interrupted_by_freezer",
	[FINDING_SIGNAL_DELAY_OVER_BUDGET] = "signal_delay_over_budget",
	[FINDING_SUPERVISOR_STARVED] = "supervisor_starved",
	[FINDING_SUPERVISOR_BLOCKED] = "supervisor_blocked",
};

const char *finding_kind_name(enum finding_kind k)
{
	return k < FINDING_COUNT ? kind_names[k] : "unknown";
}

const char *finding_severity_name(enum finding_severity s)
{
	switch (s) {
	case FINDING_CRITICAL:
		return "critical";
	case FINDING_WARNING:
		return "warning";
	default:
		return "info";
	}
}

/*
 * Syscalls that can fail with EINTR on their own (signal(7): blocking I/O
 * on slow devices, waits, sleeps, locks): an EINTR from any other one is
 * seccomp's doing, and programs rarely expect it (close, fork, getppid).
 */
static const char *const native_eintr[] = {
	"accept",	  "accept4",	   "clock_nanosleep",
	"connect",	  "epoll_pwait",   "epoll_pwait2",
	"epoll_wait",	  "fcntl",	   "flock",
	"ftruncate",	  "futex",	   "futex_waitv",
	"getrandom",	  "io_getevents",  "io_pgetevents",
	"io_uring_enter", "ioctl",	   "mq_timedreceive",
	"mq_timedsend",	  "msgrcv",	   "msgsnd",
	"nanosleep",	  "open",	   "openat",
	"openat2",	  "pause",	   "poll",
	"ppoll",	  "pselect6",	   "read",
	"readv",	  "recvfrom",	   "recvmmsg",
	"recvmsg",	  "rt_sigsuspend", "rt_sigtimedwait",
	"select",	  "semop",	   "semtimedop",
	"sendfile",	  "sendmmsg",	   "sendmsg",
	"sendto",	  "splice",	   "tee",
	"truncate",	  "vmsplice",	   "wait4",
	"waitid",	  "write",	   "writev",
};

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

bool nw_syscall_native_eintr(const char *name)
{
	return bsearch(&name, native_eintr,
		       sizeof(native_eintr) / sizeof(native_eintr[0]),
		       sizeof(native_eintr[0]), cmp_name) != NULL;
}

void findings_init(struct findings *f, const struct findings_config *cfg)
{
	memset(f, 0, sizeof(*f));
	f->cfg = *cfg;
	if (!f->cfg.restart_threshold)
		f->cfg.restart_threshold = NW_DEFAULT_RESTART_THRESHOLD;
	f->acc[FINDING_RESTART_STORM].num[STORM_THRESHOLD] =
		f->cfg.restart_threshold;
	f->acc[FINDING_SIGNAL_DELAY_OVER_BUDGET].num[BUDGET_NS] =
		f->cfg.budget_ns;
	f->acc[FINDING_SUPERVISOR_STARVED].num[0] = NW_STARVED_PERCENT;
	f->acc[FINDING_SUPERVISOR_BLOCKED].num[0] = NW_BLOCKED_PERCENT;
}

static void names_add(struct finding_names *l, const char *name, bool flag)
{
	unsigned int i;

	for (i = 0; i < l->n; i++) {
		if (!strcmp(l->v[i].name, name)) {
			l->v[i].count++;
			return;
		}
	}
	if (l->n == NW_FINDING_NAMES) {
		l->others++;
		return;
	}
	snprintf(l->v[l->n].name, sizeof(l->v[l->n].name), "%s", name);
	l->v[l->n].count = 1;
	l->v[l->n].flag = flag;
	l->n++;
}

/* Keeps the NW_FINDING_EXAMPLES highest ranks, the earliest on a tie. */
static void example_add(struct finding_acc *a, __u64 id, __u64 rank)
{
	unsigned int i = a->nex < NW_FINDING_EXAMPLES ? a->nex++ :
							NW_FINDING_EXAMPLES;

	if (i == NW_FINDING_EXAMPLES) {
		if (rank <= a->ex[i - 1].rank)
			return;
		i--;
	}
	for (; i > 0 && a->ex[i - 1].rank < rank; i--)
		a->ex[i] = a->ex[i - 1];
	a->ex[i].id = id;
	a->ex[i].rank = rank;
}

static void max_into(unsigned long long *m, unsigned long long v)
{
	if (v > *m)
		*m = v;
}

/* ---- restart_storm: per thread, the syscall restarting now -------------- */

static struct finding_chain *chain_find(struct findings *f, __u32 tid,
					__u64 start)
{
	unsigned int i;

	for (i = 0; i < f->nchains; i++)
		if (f->chains[i].tid == tid && f->chains[i].start_ns == start)
			return &f->chains[i];
	return NULL;
}

static bool chain_ended(const struct findings *f, __u32 tid, __u64 start)
{
	unsigned int i,
		n = sizeof(f->ended_chains) / sizeof(f->ended_chains[0]);

	for (i = 0; i < n; i++)
		if (f->ended_chains[i].tid == tid &&
		    f->ended_chains[i].start_ns == start)
			return true;
	return false;
}

static void chain_drop(struct findings *f, struct finding_chain *c)
{
	unsigned int n = sizeof(f->ended_chains) / sizeof(f->ended_chains[0]);
	unsigned int slot = f->ended_chains_next++ % n;

	f->ended_chains[slot].tid = c->tid;
	f->ended_chains[slot].start_ns = c->start_ns;
	*c = f->chains[--f->nchains];
}

static void storm_count(struct findings *f, struct finding_chain *c)
{
	struct finding_acc *a = &f->acc[FINDING_RESTART_STORM];

	c->counted = true;
	a->count++;
	a->num[STORM_BEFORE_RECV] += c->before_recv;
	a->num[STORM_AFTER_RECV] += c->after_recv;
	f->storms_killable += c->killable;
	names_add(&a->syscalls, c->syscall, false);
	names_add(&a->supervisors, c->supervisor, false);
}

/* A call that never completed: still restarting at the end, or died so. */
static void storm_unfinished(struct findings *f, struct finding_chain *c)
{
	struct finding_acc *a = &f->acc[FINDING_RESTART_STORM];

	if (c->restarts < 2)
		return; /* one interruption cut by the end or the death */
	a->num[STORM_UNFINISHED]++;
	if (!c->counted)
		storm_count(f, c);
	example_add(a, c->last_id, c->restarts);
}

static void add_restart(struct findings *f, const struct knotif *k,
			const char *syscall, const char *supervisor)
{
	struct finding_acc *a = &f->acc[FINDING_RESTART_STORM];
	bool restarting = k->interrupt_result == NW_INTR_RESTARTED;
	__u32 attempt = k->attempt ? k->attempt : 1;
	__u32 restarts = restarting ? attempt : attempt - 1;
	__u64 start = knotif_chain_start(k);
	struct finding_chain *c;

	if (!restarting && attempt == 1)
		return; /* a call that was never restarted: the common case */
	a->num[STORM_RESTARTED] += restarting;
	max_into(&a->num[STORM_MAX], restarts);
	c = chain_find(f, k->ev.target_tid, start);
	if (!c) {
		if (chain_ended(f, k->ev.target_tid, start))
			return; /* an attempt handed over after its chain's end */
		if (f->nchains == NW_FINDING_CHAINS) {
			f->chains_untracked++;
			return;
		}
		c = &f->chains[f->nchains++];
		memset(c, 0, sizeof(*c));
		c->tid = k->ev.target_tid;
		c->start_ns = start;
	}
	if (restarts < c->restarts)
		return; /* an earlier attempt handed over late */
	c->restarts = restarts;
	c->last_id = k->ev.key.id;
	c->killable |= knotif_killable_rule(k);
	if (restarting) {
		bool received = k->ev.t_recv_ns != 0;

		c->before_recv += !received;
		c->after_recv += received;
		/* a storm already counted counts its restarts as they come */
		if (c->counted) {
			a->num[STORM_BEFORE_RECV] += !received;
			a->num[STORM_AFTER_RECV] += received;
		}
	}
	snprintf(c->syscall, sizeof(c->syscall), "%s", syscall);
	if (k->ev.supervisor_tgid || !c->supervisor[0])
		snprintf(c->supervisor, sizeof(c->supervisor), "%s",
			 supervisor);
	if (!c->counted && restarts >= f->cfg.restart_threshold)
		storm_count(f, c);
	if (restarting || k->pending)
		return; /* the chain goes on (or is still waiting at the end) */
	if (k->interrupt_result == NW_INTR_EXITED ||
	    k->outcome == NW_OUTCOME_KILLED) {
		/* it died restarting: the call never completed either */
		storm_unfinished(f, c);
		chain_drop(f, c);
		return;
	}
	if (c->counted)
		example_add(a, c->last_id, c->restarts);
	chain_drop(f, c);
}

/* At the end: a syscall still restarting never completed while traced. */
static void storm_finish(struct findings *f)
{
	unsigned int i;

	for (i = 0; i < f->nchains; i++)
		storm_unfinished(f, &f->chains[i]);
	f->nchains = 0;
}

/* ---- the other kinds: one notification each ---------------------------- */

static bool interrupted(const struct knotif *k)
{
	return k->outcome == NW_OUTCOME_INTERRUPTED_BEFORE_RECV ||
	       k->outcome == NW_OUTCOME_INTERRUPTED_AFTER_RECV;
}

/* The reply it got lost: ENOENT, or it succeeded after the target left. */
static bool reply_lost(const struct knotif *k, bool *enoent)
{
	*enoent = k->reply_failed && k->failure.ret == -ENOENT;
	return interrupted(k) &&
	       (*enoent || (k->ev.t_reply_ns && !k->reply_reached));
}

static void add_queued(struct findings *f, const struct knotif *k,
		       const char *syscall)
{
	struct finding_acc *a = &f->acc[FINDING_INTERRUPTED_WHILE_QUEUED];
	char busy[48];
	__u64 queue = 0;

	if (k->outcome != NW_OUTCOME_INTERRUPTED_BEFORE_RECV)
		return;
	f->interrupted_unreceived++;
	if (!k->have_queued_behind)
		return;
	a->count++;
	nw_span(k->ev.t_notify_ns, k->ev.t_return_ns, &queue);
	max_into(&a->num[QUEUED_MAX], queue);
	a->num[QUEUED_TOTAL] += queue;
	nw_supervisor_name(busy, sizeof(busy), k->busy_supervisor_comm,
			   k->busy_supervisor_tgid);
	names_add(&a->supervisors, busy, false);
	names_add(&a->syscalls, syscall, false);
	example_add(a, k->ev.key.id, queue);
}

static void add_eintr(struct findings *f, const struct knotif *k,
		      const char *syscall, const char *supervisor)
{
	struct finding_acc *a = &f->acc[FINDING_EINTR_TO_PROGRAM];
	bool native = nw_syscall_native_eintr(syscall);

	if (k->interrupt_result != NW_INTR_EINTR)
		return;
	a->count++;
	a->num[EINTR_NOT_NATIVE] += !native;
	names_add(&a->syscalls, syscall, !native);
	names_add(&a->supervisors, supervisor, false);
	/* the ones a program does not expect first */
	example_add(a, k->ev.key.id, !native);
}

/* A lost reply, by the cause of the interruption that lost it. */
static void lost_reply_of(struct findings *f, __u64 id,
			  enum nw_interrupt_cause cause, const char *syscall,
			  const char *supervisor)
{
	struct finding_acc *a = &f->acc[FINDING_LOST_REPLY];

	if (cause == NW_INTR_SIGNAL)
		a->num[LOST_SIGNAL]++;
	else if (cause == NW_INTR_FREEZER)
		a->num[LOST_FREEZER]++;
	else
		a->num[LOST_OTHER]++;
	if (cause == NW_INTR_FREEZER)
		f->acc[FINDING_INTERRUPTED_BY_FREEZER].num[FROZEN_LOST]++;
	names_add(&a->syscalls, syscall, false);
	names_add(&a->supervisors, supervisor, false);
	example_add(a, id, 1);
}

static void add_lost_reply(struct findings *f, const struct knotif *k,
			   const char *syscall, const char *supervisor)
{
	struct finding_acc *a = &f->acc[FINDING_LOST_REPLY];
	struct finding_ended *e;
	bool enoent;

	if (!interrupted(k))
		return;
	if (!reply_lost(k, &enoent)) {
		/* a reply still to come may fail: remember what ended it */
		e = &f->ended[f->ended_next++ % NW_FINDING_ENDED];
		e->key = k->ev.key;
		e->cause = k->interrupt_cause;
		snprintf(e->syscall, sizeof(e->syscall), "%s", syscall);
		snprintf(e->supervisor, sizeof(e->supervisor), "%s",
			 supervisor);
		return;
	}
	/* ENOENTs count as their failures arrive; the rest count here */
	if (!enoent) {
		a->count++;
		a->num[LOST_UNREACHED]++;
	}
	lost_reply_of(f, k->ev.key.id, k->interrupt_cause, syscall, supervisor);
}

static void add_freezer(struct findings *f, const struct knotif *k,
			const char *syscall, const char *supervisor)
{
	struct finding_acc *a = &f->acc[FINDING_INTERRUPTED_BY_FREEZER];

	if (k->interrupt_cause != NW_INTR_FREEZER)
		return;
	a->count++;
	if (k->outcome == NW_OUTCOME_INTERRUPTED_BEFORE_RECV)
		a->num[FROZEN_BEFORE]++;
	else
		a->num[FROZEN_AFTER]++;
	a->num[FROZEN_RESTARTED] += k->interrupt_result == NW_INTR_RESTARTED;
	names_add(&a->syscalls, syscall, false);
	names_add(&a->supervisors, supervisor, false);
	example_add(a, k->ev.key.id, k->ev.t_recv_ns != 0);
}

static void add_budget(struct findings *f, const struct knotif *k,
		       const char *syscall, const char *supervisor)
{
	struct finding_acc *a = &f->acc[FINDING_SIGNAL_DELAY_OVER_BUDGET];
	__u64 pending, handle = 0, worst = 0;
	unsigned int i, over = 0;

	if (!f->cfg.budget_ns)
		return;
	for (i = 0; i < k->ev.nsignals && i < NW_MAX_SIGNALS; i++) {
		if (k->effect[i] != NW_EFFECT_DEFERRED ||
		    !nw_span(k->ev.signals[i].t_sent_ns, k->t_delivered_ns[i],
			     &pending) ||
		    pending <= f->cfg.budget_ns)
			continue;
		over++;
		if (pending > worst)
			worst = pending;
	}
	if (!over)
		return;
	a->count += over;
	max_into(&a->num[BUDGET_MAX_PENDING], worst);
	if (k->reply_reached &&
	    nw_span(k->ev.t_recv_ns, k->ev.t_reply_ns, &handle))
		max_into(&a->num[BUDGET_MAX_HANDLE], handle);
	names_add(&a->syscalls, syscall, false);
	names_add(&a->supervisors, supervisor, false);
	example_add(a, k->ev.key.id, worst);
}

/* The share of handle time in one state that makes the finding. */
static unsigned long long sup_part(const struct finding_sup *p, bool blocked)
{
	return blocked ? p->blocked_ns : p->runnable_ns;
}

static bool over_share(const struct finding_sup *p, bool blocked)
{
	unsigned int percent = blocked ? NW_BLOCKED_PERCENT :
					 NW_STARVED_PERCENT;

	return p->n >= NW_STARVED_MIN_SPLITS && p->handle_ns &&
	       sup_part(p, blocked) * 100 >= p->handle_ns * percent;
}

/* The verdict per supervisor may change: recount from the table. */
static void judge_sups(struct findings *f, enum finding_kind kind,
		       const struct finding_sup *p, __u64 id, __u64 part)
{
	bool blocked = kind == FINDING_SUPERVISOR_BLOCKED;
	struct finding_acc *a = &f->acc[kind];
	unsigned int i;

	memset(&a->supervisors, 0, sizeof(a->supervisors));
	a->count = 0;
	a->num[1] = a->num[2] = a->num[3] = 0;
	for (i = 0; i < f->nsups; i++) {
		const struct finding_sup *q = &f->sups[i];
		struct finding_name *nm;

		if (!over_share(q, blocked))
			continue;
		a->count++;
		max_into(&a->num[1], sup_part(q, blocked) * 100 / q->handle_ns);
		a->num[2] += sup_part(q, blocked);
		a->num[3] += q->handle_ns;
		nm = &a->supervisors.v[a->supervisors.n++];
		_Static_assert(sizeof(nm->name) == sizeof(q->name), "names");
		memcpy(nm->name, q->name, sizeof(nm->name));
		nm->count = q->n;
	}
	if (over_share(p, blocked) && part)
		example_add(a, id, part);
}

/*
 * The supervisors runnable (supervisor_starved) or asleep
 * (supervisor_blocked) much of their handle time (handle_split).
 */
static void add_sup_shares(struct findings *f, const struct knotif *k,
			   const char *supervisor)
{
	struct finding_sup *p = NULL;
	unsigned int i;

	if (!k->reply_reached || !k->handle_split.known)
		return;
	for (i = 0; i < f->nsups && !p; i++)
		if (!strcmp(f->sups[i].name, supervisor))
			p = &f->sups[i];
	if (!p) {
		if (f->nsups == NW_FINDING_NAMES)
			return; /* the first 8 supervisors are judged */
		p = &f->sups[f->nsups++];
		snprintf(p->name, sizeof(p->name), "%s", supervisor);
	}
	p->n++;
	p->handle_ns += k->handle_split.running_ns +
			k->handle_split.runnable_ns +
			k->handle_split.blocked_ns;
	p->runnable_ns += k->handle_split.runnable_ns;
	p->blocked_ns += k->handle_split.blocked_ns;
	judge_sups(f, FINDING_SUPERVISOR_STARVED, p, k->ev.key.id,
		   k->handle_split.runnable_ns);
	judge_sups(f, FINDING_SUPERVISOR_BLOCKED, p, k->ev.key.id,
		   k->handle_split.blocked_ns);
}

void findings_set_top_stack(struct findings *f, const char *text,
			    __u64 weight_ns)
{
	snprintf(f->top_stack, sizeof(f->top_stack), "%s", text ? text : "");
	f->acc[FINDING_SUPERVISOR_BLOCKED].num[4] = text ? weight_ns : 0;
}

void findings_add(struct findings *f, const struct knotif *k)
{
	const char *syscall = nw_syscall_name(k->ev.nr);
	char supervisor[48];

	nw_supervisor_name(supervisor, sizeof(supervisor),
			   k->ev.supervisor_comm, k->ev.supervisor_tgid);
	add_restart(f, k, syscall, supervisor);
	add_queued(f, k, syscall);
	add_eintr(f, k, syscall, supervisor);
	add_lost_reply(f, k, syscall, supervisor);
	add_freezer(f, k, syscall, supervisor);
	add_budget(f, k, syscall, supervisor);
	add_sup_shares(f, k, supervisor);
}

void findings_add_reply_failed(struct findings *f,
			       const struct nw_reply_failed_event *r)
{
	struct finding_acc *a = &f->acc[FINDING_LOST_REPLY];
	unsigned int i;

	/* ENOENT: the notification left the listener, its target gone on */
	if (r->ret != -ENOENT)
		return;
	a->count++;
	a->num[LOST_ENOENT]++;
	/* its record went out first (no failure in it): attribute it now */
	for (i = 0; i < NW_FINDING_ENDED; i++) {
		struct finding_ended *e = &f->ended[i];

		if (e->key.id != r->key.id || e->key.filter != r->key.filter ||
		    !e->syscall[0])
			continue;
		lost_reply_of(f, e->key.id, e->cause, e->syscall,
			      e->supervisor);
		e->syscall[0] = 0; /* one failure per notification */
		return;
	}
}

void findings_finish(struct findings *f)
{
	if (f->finished)
		return;
	f->finished = true;
	storm_finish(f);
}

unsigned long long findings_count(const struct findings *f,
				  enum finding_kind kind)
{
	return f && kind < FINDING_COUNT ? f->acc[kind].count : 0;
}

static enum finding_severity severity_of(const struct findings *f,
					 enum finding_kind kind)
{
	const struct finding_acc *a = &f->acc[kind];

	switch (kind) {
	case FINDING_RESTART_STORM:
		return a->num[STORM_UNFINISHED] ? FINDING_CRITICAL :
						  FINDING_WARNING;
	case FINDING_EINTR_TO_PROGRAM:
		return a->num[EINTR_NOT_NATIVE] ? FINDING_CRITICAL :
						  FINDING_WARNING;
	case FINDING_INTERRUPTED_BY_FREEZER:
		return a->num[FROZEN_LOST] ? FINDING_WARNING : FINDING_INFO;
	default:
		return FINDING_WARNING;
	}
}

unsigned int findings_report(const struct findings *f,
			     struct finding out[FINDING_COUNT])
{
	unsigned int n = 0, i, j;
	int kind;

	for (kind = 0; kind < FINDING_COUNT; kind++) {
		const struct finding_acc *a = &f->acc[kind];
		struct finding *o = &out[n];

		if (!a->count)
			continue;
		memset(o, 0, sizeof(*o));
		o->kind = kind;
		o->severity = severity_of(f, kind);
		o->count = a->count;
		for (i = 0; i < NW_FINDING_NUMS && num_keys[kind][i]; i++) {
			o->num[i].key = num_keys[kind][i];
			o->num[i].v = a->num[i];
		}
		o->nnum = i;
		if (kind == FINDING_INTERRUPTED_WHILE_QUEUED)
			o->num[QUEUED_SHARE].v =
				f->interrupted_unreceived ?
					a->count * 100 /
						f->interrupted_unreceived :
					0;
		if (kind == FINDING_INTERRUPTED_WHILE_QUEUED)
			o->num[QUEUED_ALL].v = f->interrupted_unreceived;
		o->syscalls = a->syscalls.n ? &a->syscalls : NULL;
		o->supervisors = a->supervisors.n ? &a->supervisors : NULL;
		if (kind == FINDING_EINTR_TO_PROGRAM)
			o->syscalls_flag = "not_native";
		o->ex = a->ex;
		o->nex = a->nex;
		o->advice = advice[kind];
		if (kind == FINDING_SUPERVISOR_BLOCKED && f->top_stack[0])
			o->top_stack = f->top_stack;
		if (kind == FINDING_RESTART_STORM)
			o->num[STORM_UNTRACKED].v = f->chains_untracked;
		if (kind == FINDING_RESTART_STORM &&
		    !a->num[STORM_AFTER_RECV] && f->storms_killable == a->count)
			o->advice = queued_storm_advice;
		n++;
	}
	/* most severe first; the kinds' order otherwise (stable) */
	for (i = 1; i < n; i++) {
		struct finding x = out[i];

		for (j = i; j > 0 && out[j - 1].severity < x.severity; j--)
			out[j] = out[j - 1];
		out[j] = x;
	}
	return n;
}
