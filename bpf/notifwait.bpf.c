// SPDX-License-Identifier: GPL-2.0
/*
 * notifwait, tracepoint backend: follows each seccomp user notification from
 * the target's side (sched_waking, sched_switch, sys_exit, signals) and the
 * supervisor's side (its NOTIF_* ioctls), joins them per notification in
 * @knotifs and emits one record when the target returns.
 *
 * seccomp runs before the sys_enter tracepoint, so nothing fires when a
 * notification is created: the target is recognised when it wakes the
 * supervisor or goes to sleep while its own knotif sits on a listener's list.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "notifwait.h"
#include "seccomp_walk.bpf.h"

#define NR_IOCTL 16 /* x86_64 */
#define ERESTARTSYS 512
#define SIGKILL 9
#define EEXIST 17
#define TASK_INTERRUPTIBLE 0x1
#define TASK_UNINTERRUPTIBLE 0x2
#define TASK_WAKEKILL 0x100
#define TASK_KILLABLE (TASK_WAKEKILL | TASK_UNINTERRUPTIBLE)
#define SLEEP_STATE_MASK (TASK_INTERRUPTIBLE | TASK_KILLABLE)
#define WAKEUP_BATCH_BYTES (64 * 1024)

/* Filters, set before load so the verifier prunes what is unused. */
const volatile __u32 targ_tgid = 0;
const volatile __s32 targ_nr = -1;
const volatile bool filter_traced = false;

struct nw_counters counters = {};

struct sigpend_key {
	__u32 tid;
	__u32 sig;
};

struct sigpend_val {
	struct nw_knotif_key key;
	__u64 t_sent_ns;
};

/* A supervisor's NOTIF_* ioctl between sys_enter and sys_exit. */
struct ioctl_inflight {
	__u64 t_enter_ns;
	__u64 uptr;
	struct nw_knotif_key key;
	__u32 cmd;
	__u32 flags;
	__u32 newfd;
	__u8 set_reply;
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

/* LRU: a signal that stays blocked is never delivered, nor deleted. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 10240);
	__type(key, struct sigpend_key);
	__type(value, struct sigpend_val);
} sigpend SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, struct ioctl_inflight);
} inflight SEC(".maps");

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

/* tgids of a traced COMMAND and its descendants */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 8192);
	__type(key, __u32);
	__type(value, __u8);
} traced SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct nw_knotif_event);
} scratch SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4 * 1024 * 1024);
} records SEC(".maps");

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

/* Start following a notification; returns its state or NULL. */
static __always_inline struct nw_knotif_event *
track_knotif(const struct nw_knotif_view *v, __u8 source, __u64 now)
{
	struct nw_knotif_key key = { .filter = v->filter, .id = v->id };
	struct task_struct *task = v->task;
	struct nw_knotif_event *e;
	__u32 zero = 0, tid, tgid;
	long err;

	e = bpf_map_lookup_elem(&scratch, &zero);
	if (!e)
		return NULL;
	__builtin_memset(e, 0, sizeof(*e));
	e->kind = NW_REC_KNOTIF;
	e->key = key;
	tid = BPF_CORE_READ(task, pid);
	tgid = BPF_CORE_READ(task, tgid);
	e->target_tid = tid;
	e->target_tgid = tgid;
	e->target_vtid = task_vtid(task);
	e->nr = v->nr;
	e->arch = v->arch;
	e->filter_killable = v->filter_killable;
	e->notify_source = source;
	if (source != NW_SEEN_RECV)
		e->t_notify_ns = now;
	BPF_CORE_READ_STR_INTO(&e->comm, task, comm);
	err = bpf_map_update_elem(&knotifs, &key, e, BPF_NOEXIST);
	if (err && err != -EEXIST) {
		__sync_fetch_and_add(&counters.dropped_knotifs, 1);
		return NULL;
	}
	/* -EEXIST: the other side (target or supervisor) was first */
	bpf_map_update_elem(&waiting, &tid, &key, BPF_ANY);
	bpf_map_update_elem(&waiting_tgid, &tgid, &tid, BPF_ANY);
	return bpf_map_lookup_elem(&knotifs, &key);
}

static __always_inline struct nw_knotif_event *knotif_of_tid(__u32 tid)
{
	struct nw_knotif_key *key = bpf_map_lookup_elem(&waiting, &tid);

	return key ? bpf_map_lookup_elem(&knotifs, key) : NULL;
}

/* A target not yet followed that turns out to be waiting on a listener. */
static __always_inline void detect_waiting(struct task_struct *task,
					   __u8 source, __u64 now)
{
	struct nw_knotif_view v = {};
	struct nw_knotif_key key;

	if (!task_find_knotif(task, &v))
		return;
	key.filter = v.filter;
	key.id = v.id;
	if (bpf_map_lookup_elem(&knotifs, &key))
		return; /* seen from the supervisor's side already */
	if (!target_wanted(task, v.nr, false))
		return;
	track_knotif(&v, source, now);
}

SEC("tp_btf/sched_waking")
int BPF_PROG(on_sched_waking, struct task_struct *p)
{
	struct task_struct *cur = bpf_get_current_task_btf();
	__u32 tid = cur->pid;

	if (cur->seccomp.mode != NW_SECCOMP_MODE_FILTER)
		return 0;
	if (bpf_map_lookup_elem(&waiting, &tid) || !task_has_listener(cur))
		return 0;
	detect_waiting(cur, NW_SEEN_WAKEUP, bpf_ktime_get_ns());
	return 0;
}

SEC("tp_btf/sched_switch")
int BPF_PROG(on_sched_switch, bool preempt, struct task_struct *prev,
	     struct task_struct *next, unsigned int prev_state)
{
	unsigned int state = prev_state & SLEEP_STATE_MASK;
	struct nw_knotif_event *e;
	__u32 tid;

	if (preempt || (state != TASK_INTERRUPTIBLE && state != TASK_KILLABLE))
		return 0;
	if (prev->seccomp.mode != NW_SECCOMP_MODE_FILTER)
		return 0;
	tid = prev->pid;
	e = knotif_of_tid(tid);
	if (!e) {
		if (task_has_listener(prev))
			detect_waiting(prev, NW_SEEN_SLEEP, bpf_ktime_get_ns());
		e = knotif_of_tid(tid);
		if (!e)
			return 0;
	}
	if (state == TASK_KILLABLE) {
		e->killable_sleeps++;
		if (!e->t_killable_ns && e->t_recv_ns) {
			e->t_killable_ns = bpf_ktime_get_ns();
			/* nothing woke it: its first sleep came after RECV */
			e->killable_cause = e->wake_cause ? e->wake_cause :
							    NW_CAUSE_RECV;
		}
	} else {
		e->interruptible_sleeps++;
	}
	return 0;
}

static __always_inline void on_recv_exit(struct ioctl_inflight *io, long ret,
					 __u64 now)
{
	struct task_struct *cur = bpf_get_current_task_btf();
	struct nw_knotif_event *e;
	struct nw_knotif_view v = {};
	struct seccomp_notif unotif = {};
	struct nw_knotif_key key;
	__u64 kn;

	if (ret != 0)
		return;
	if (bpf_probe_read_user(&unotif, sizeof(unotif), (void *)io->uptr))
		return;
	key.filter = io->key.filter;
	key.id = unotif.id;
	e = bpf_map_lookup_elem(&knotifs, &key);
	if (!e) {
		/* The target never slept or woke anyone before RECV. */
		kn = listener_find((struct seccomp_filter *)key.filter, 0,
				   key.id);
		if (!kn)
			return;
		read_knotif(key.filter, kn, &v);
		if (!target_wanted(v.task, v.nr,
				   filter_traced && is_traced(cur->tgid)))
			return;
		e = track_knotif(&v, NW_SEEN_RECV, now);
		if (!e)
			return;
	}
	e->t_recv_ns = now;
	e->supervisor_tgid = cur->tgid;
	e->supervisor_seen_pid = unotif.pid;
	BPF_CORE_READ_STR_INTO(&e->supervisor_comm, cur, comm);
	if (io->flags & NW_USER_NOTIF_FLAG_WAIT_KILLABLE) {
		/* seed: RECV completes ->ready so the target re-sleeps killable */
		e->recv_flag = 1;
		e->wake_cause = NW_CAUSE_RECV;
	}
}

static __always_inline void note_reply(struct ioctl_inflight *io, __u8 kind,
				       __s64 val, __s32 error)
{
	struct nw_knotif_event *e = bpf_map_lookup_elem(&knotifs, &io->key);

	if (!e)
		return;
	e->t_reply_ns = io->t_enter_ns;
	e->reply_kind = kind;
	e->reply_val = val;
	e->reply_error = error;
	io->set_reply = 1;
}

SEC("tp_btf/sys_enter")
int BPF_PROG(on_sys_enter, struct pt_regs *regs, long id)
{
	struct ioctl_inflight io = {};
	struct seccomp_notif_resp resp;
	struct seccomp_notif_addfd addfd;
	struct nw_knotif_event *e;
	__u32 tid, in_flags = 0;
	__u8 kind;

	if (id != NR_IOCTL)
		return 0;
	io.cmd = regs->si;
	if (io.cmd != NW_IOCTL_NOTIF_RECV && io.cmd != NW_IOCTL_NOTIF_SEND &&
	    io.cmd != NW_IOCTL_NOTIF_ADDFD)
		return 0;
	io.key.filter = listener_of_fd(regs->di);
	if (!io.key.filter)
		return 0;
	io.uptr = regs->dx;
	io.t_enter_ns = bpf_ktime_get_ns();

	if (io.cmd == NW_IOCTL_NOTIF_RECV) {
		bpf_probe_read_user(&in_flags, sizeof(in_flags),
				    (void *)io.uptr +
					    offsetof(struct seccomp_notif, flags));
		io.flags = in_flags;
	} else if (io.cmd == NW_IOCTL_NOTIF_SEND) {
		if (bpf_probe_read_user(&resp, sizeof(resp), (void *)io.uptr))
			return 0;
		io.key.id = resp.id;
		io.flags = resp.flags;
		if (resp.flags & NW_USER_NOTIF_FLAG_CONTINUE)
			kind = NW_REPLY_CONTINUE;
		else if (resp.error)
			kind = NW_REPLY_ERROR;
		else
			kind = NW_REPLY_VALUE;
		note_reply(&io, kind, resp.val, resp.error);
	} else {
		if (bpf_probe_read_user(&addfd, sizeof(addfd), (void *)io.uptr))
			return 0;
		io.key.id = addfd.id;
		io.flags = addfd.flags;
		io.newfd = addfd.newfd;
		e = bpf_map_lookup_elem(&knotifs, &io.key);
		if (e)
			e->wake_cause = NW_CAUSE_ADDFD;
		if (addfd.flags & NW_ADDFD_FLAG_SEND)
			note_reply(&io, NW_REPLY_ADDFD_SEND, 0, 0);
	}
	tid = bpf_get_current_pid_tgid();
	bpf_map_update_elem(&inflight, &tid, &io, BPF_ANY);
	return 0;
}

static __always_inline void on_ioctl_exit(struct ioctl_inflight *io, long ret,
					  __u64 now)
{
	struct nw_reply_failed_event failed = {};
	struct nw_addfd_event added = {};
	struct nw_knotif_event *e;
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;

	if (io->cmd == NW_IOCTL_NOTIF_RECV) {
		on_recv_exit(io, ret, now);
		return;
	}
	if (ret < 0 && io->set_reply) {
		/* The reply did not happen: forget it. */
		e = bpf_map_lookup_elem(&knotifs, &io->key);
		if (e && e->t_reply_ns == io->t_enter_ns) {
			e->t_reply_ns = 0;
			e->reply_kind = NW_REPLY_NONE;
		}
	}
	if (!bpf_map_lookup_elem(&knotifs, &io->key) &&
	    !bpf_map_lookup_elem(&ended, &io->key))
		return; /* not a notification this run follows */
	if (io->cmd == NW_IOCTL_NOTIF_ADDFD) {
		added.kind = NW_REC_ADDFD;
		added.flags = io->flags;
		added.key = io->key;
		added.t_enter_ns = io->t_enter_ns;
		added.t_exit_ns = now;
		added.ret = ret;
		added.supervisor_tgid = tgid;
		added.newfd = io->newfd;
		emit(&added, sizeof(added));
	} else if (ret < 0) {
		failed.kind = NW_REC_REPLY_FAILED;
		failed.supervisor_tgid = tgid;
		failed.key = io->key;
		failed.t_ns = io->t_enter_ns;
		failed.ret = ret;
		failed.op = io->cmd;
		emit(&failed, sizeof(failed));
	}
}

/*
 * A wait aborted with no signal seen: the signal was pending before the
 * notification existed. Record the lowest unblocked pending one, with no
 * send time, so its delivery is still matched.
 */
static __always_inline void note_prior_signal(struct task_struct *task,
					      struct nw_knotif_event *e)
{
	struct sigpend_key sk = { .tid = BPF_CORE_READ(task, pid) };
	struct sigpend_val sv = { .key = e->key };
	__u64 pending;
	int sig;

	pending = BPF_CORE_READ(task, pending.signal.sig[0]) |
		  BPF_CORE_READ(task, signal, shared_pending.signal.sig[0]);
	pending &= ~BPF_CORE_READ(task, blocked.sig[0]);
	if (!pending)
		return;
	for (sig = 1; sig <= 64; sig++)
		if ((pending >> (sig - 1)) & 1)
			break;
	e->signals[0].sig = sig;
	e->signals[0].sender_tgid = 0;
	e->signals[0].before_wait = 1;
	e->nsignals = 1;
	sk.sig = sig;
	bpf_map_update_elem(&sigpend, &sk, &sv, BPF_ANY);
}

/* The target returns: the notification is over. */
static __always_inline void finish_knotif(struct task_struct *task, __u32 tid,
					  long ret, bool exited)
{
	struct nw_knotif_key *key = bpf_map_lookup_elem(&waiting, &tid);
	struct nw_knotif_event *e;
	struct nw_knotif_key k;
	__u32 tgid;
	__u8 one = 1;

	if (!key)
		return;
	k = *key;
	e = bpf_map_lookup_elem(&knotifs, &k);
	if (e) {
		if (ret == -ERESTARTSYS && !e->nsignals)
			note_prior_signal(task, e);
		e->t_return_ns = bpf_ktime_get_ns();
		e->ret = ret;
		e->exited = exited;
		e->fatal_pending =
			(BPF_CORE_READ(task, pending.signal.sig[0]) >>
			 (SIGKILL - 1)) & 1;
		emit(e, sizeof(*e));
		bpf_map_update_elem(&ended, &k, &one, BPF_ANY);
		bpf_map_delete_elem(&knotifs, &k);
	}
	bpf_map_delete_elem(&waiting, &tid);
	tgid = BPF_CORE_READ(task, tgid);
	bpf_map_delete_elem(&waiting_tgid, &tgid);
}

SEC("tp_btf/sys_exit")
int BPF_PROG(on_sys_exit, struct pt_regs *regs, long ret)
{
	struct task_struct *cur = bpf_get_current_task_btf();
	struct ioctl_inflight *io;
	__u32 tid;

	if (regs->orig_ax == NR_IOCTL) {
		tid = bpf_get_current_pid_tgid();
		io = bpf_map_lookup_elem(&inflight, &tid);
		if (io) {
			on_ioctl_exit(io, ret, bpf_ktime_get_ns());
			bpf_map_delete_elem(&inflight, &tid);
		}
	}
	if (cur->seccomp.mode != NW_SECCOMP_MODE_FILTER)
		return 0;
	finish_knotif(cur, cur->pid, ret, false);
	return 0;
}

SEC("tp_btf/signal_generate")
int BPF_PROG(on_signal_generate, int sig, struct kernel_siginfo *info,
	     struct task_struct *task, int group, int result)
{
	struct sigpend_key sk = { .sig = sig };
	struct sigpend_val sv = {};
	struct nw_knotif_event *e;
	struct nw_signal *s;
	__u32 tid = task->pid, tgid = task->tgid, *waiter;
	__u64 now;
	__u8 n;

	e = knotif_of_tid(tid);
	if (!e && group) {
		waiter = bpf_map_lookup_elem(&waiting_tgid, &tgid);
		if (waiter) {
			tid = *waiter;
			e = knotif_of_tid(tid);
		}
	}
	if (!e)
		return 0;
	now = bpf_ktime_get_ns();
	n = e->nsignals;
	if (n >= NW_MAX_SIGNALS) {
		e->signals_dropped++;
		__sync_fetch_and_add(&counters.dropped_signals, 1);
		return 0;
	}
	s = &e->signals[n & (NW_MAX_SIGNALS - 1)];
	s->t_sent_ns = now;
	s->sig = sig;
	s->sender_tgid = bpf_get_current_pid_tgid() >> 32;
	s->result = result;
	s->after_recv = e->t_recv_ns != 0;
	s->in_killable_sleep = e->t_killable_ns != 0;
	s->masked = sig > 0 && sig <= 64 &&
		    ((BPF_CORE_READ(task, blocked.sig[0]) >> (sig - 1)) & 1);
	e->nsignals = n + 1;
	if (e->t_recv_ns)
		e->wake_cause = NW_CAUSE_SIGNAL;
	if (result == 0) { /* TRACE_SIGNAL_DELIVERED: queued for the task */
		sk.tid = tid;
		sv.key = e->key;
		sv.t_sent_ns = now;
		bpf_map_update_elem(&sigpend, &sk, &sv, BPF_ANY);
	}
	return 0;
}

SEC("tp_btf/signal_deliver")
int BPF_PROG(on_signal_deliver, int sig, struct kernel_siginfo *info,
	     struct k_sigaction *ka)
{
	struct sigpend_key sk = { .tid = (__u32)bpf_get_current_pid_tgid(),
				  .sig = sig };
	struct nw_signal_delivered_event d = {};
	struct sigpend_val *sv;

	sv = bpf_map_lookup_elem(&sigpend, &sk);
	if (!sv)
		return 0;
	d.kind = NW_REC_SIGNAL_DELIVERED;
	d.sig = sig;
	d.key = sv->key;
	d.t_sent_ns = sv->t_sent_ns;
	d.t_delivered_ns = bpf_ktime_get_ns();
	emit(&d, sizeof(d));
	bpf_map_delete_elem(&sigpend, &sk);
	return 0;
}

SEC("tp_btf/sched_process_fork")
int BPF_PROG(on_process_fork, struct task_struct *parent,
	     struct task_struct *child)
{
	__u32 ptgid = parent->tgid, ctgid = child->tgid;
	__u8 one = 1;

	if (!filter_traced || ptgid == ctgid || !is_traced(ptgid))
		return 0;
	bpf_map_update_elem(&traced, &ctgid, &one, BPF_ANY);
	return 0;
}

SEC("tp_btf/sched_process_exit")
int BPF_PROG(on_process_exit, struct task_struct *p)
{
	__u32 tid = p->pid;
	struct sigpend_key sk = { .tid = tid, .sig = SIGKILL };

	/* A target killed in its wait may never reach sys_exit. */
	finish_knotif(p, tid, -ERESTARTSYS, true);
	bpf_map_delete_elem(&sigpend, &sk);
	bpf_map_delete_elem(&inflight, &tid);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
