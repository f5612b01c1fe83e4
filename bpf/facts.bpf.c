// SPDX-License-Identifier: GPL-2.0
/*
 * The facts emitter (issue #14): each program writes what it saw in its own
 * thread's context to the ring buffer (bpf/facts.h) and joins nothing; the
 * reporter's joiner (user/joiner.c) builds the records.
 *
 * The only state is the thread's own task storage, written only by that
 * thread: its wait key, whether its syscall passed sys_enter, its
 * supervisor ioctl in flight, the comm it last sent. Other programs read a
 * thread's storage without creating it.
 *
 * Tracepoint backend (tp_btf): seccomp runs before sys_enter, so nothing
 * fires when a notification is created. A target shows itself when it wakes
 * its supervisor right after queueing (sched_waking) or sleeps with its
 * knotif queued (sched_switch); its sys_exit ends the wait.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "notifwait.h"
#include "facts.h"
#include "kernel_defs.bpf.h"
#include "knotif_view.bpf.h"
#include "walk_facts.bpf.h"

/* Filters, set before load so the verifier prunes what is unused. */
const volatile __u32 targ_tgid = 0;
const volatile __s32 targ_nr = -1;
const volatile bool filter_traced = false;

/* A thread's own view; see the top of the file. */
struct nw_thread {
	/* the wait: the knotif it is queued as (have_key) */
	__u64 filter;
	__u64 id;
	__u64 kn;
	__s32 nr;
	__u32 arch;
	__u8 have_key;
	__u8 wanted; /* the filters' decision for this wait */
	__u8 wflags; /* NW_WAIT_FILTER_KILLABLE | NW_WAIT_SEED_KILLABLE */
	__u8 entered; /* its current syscall passed sys_enter */
	__u8 task_sent; /* comm below went out in a TASK fact */
	__u8 in_bracket; /* fentry/kprobe: inside the notification bracket */
	__u8 interrupted; /* its wait ended -ERESTARTSYS, no syscall since */
	/* its wait ended with a signal pending: SWITCH facts until delivery */
	__u8 watch_switch;
	/* a supervisor thread (it received or replied): SWITCH facts */
	__u8 is_sup;
	/* ... handling what its RECV returned: STACK facts when it blocks */
	__u8 watch_sup;
	char comm[16];
	/* fentry/kprobe: the bracket's entry and its filter (0: unknown) */
	__u64 t_bracket;
	__u64 bracket_filter;
	/* a supervisor's NOTIF_* ioctl between sys_enter and sys_exit */
	__u64 io_filter;
	__u64 io_uptr;
	__u64 io_id;
	__u32 io_cmd; /* 0: none */
	__u32 io_flags_in; /* RECV: seccomp_notif.flags as called */
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct nw_thread);
} threads SEC(".maps");

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
} facts SEC(".maps");

/*
 * Supervisor threads alive (a counter, the one shared write): while 0, a
 * switch of a thread without a seccomp filter needs no lookup.
 */
__u64 sup_threads = 0;

/* --supervisor-stacks: STACK facts, the stacks themselves here */
const volatile bool want_stacks = false;

struct {
	__uint(type, BPF_MAP_TYPE_STACK_TRACE);
	__uint(max_entries, 1); /* --supervisor-stacks: NW_STACK_ENTRIES */
	__type(key, __u32);
	__uint(value_size, NW_STACK_DEPTH * sizeof(__u64));
} stacks SEC(".maps");

/* ---- helpers ------------------------------------------------------------ */

/*
 * Facts are built in the ring buffer itself: the stack is short where a
 * walk's bpf_loop callback adds its frame.
 */
static __always_inline void *fact_reserve(__u64 size)
{
	void *f = bpf_ringbuf_reserve(&facts, size, 0);

	if (!f) {
		__sync_fetch_and_add(&counters.lost_facts, 1);
		return NULL;
	}
	__builtin_memset(f, 0, size);
	return f;
}

/* Wake the reader only when a batch has piled up; it also polls on a timer. */
static __always_inline void fact_submit(void *f)
{
	long flags = BPF_RB_NO_WAKEUP;

	if (bpf_ringbuf_query(&facts, BPF_RB_AVAIL_DATA) >= WAKEUP_BATCH_BYTES)
		flags = BPF_RB_FORCE_WAKEUP;
	bpf_ringbuf_submit(f, flags);
}

static __always_inline void fill_hdr(struct nw_fact_hdr *h, __u8 kind,
				     __u8 flags, __u16 size, __u64 t)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();

	h->kind = kind;
	h->flags = flags;
	h->size = size;
	h->tid = (__u32)pid_tgid;
	h->tgid = pid_tgid >> 32;
	h->cpu = bpf_get_smp_processor_id();
	h->t_ns = t;
}

static __always_inline bool is_traced(__u32 tgid)
{
	return bpf_map_lookup_elem(&traced, &tgid) != NULL;
}

static __always_inline bool tgid_wanted(__u32 tgid, int nr,
					bool supervisor_traced)
{
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
	struct pid *pid = task->thread_pid;
	struct upid upid = {};

	bpf_probe_read_kernel(&upid, sizeof(upid),
			      &pid->numbers[pid->level & 31]);
	return upid.nr;
}

static __always_inline __u64 sig_bit(__u32 sig)
{
	return sig >= 1 && sig <= 64 ? 1ULL << (sig - 1) : 0;
}

static __always_inline __u64 pending_all(struct task_struct *task)
{
	return task->pending.signal.sig[0] |
	       task->signal->shared_pending.signal.sig[0];
}

/* Unblocked signals pending for @task: its own and its group's. */
static __always_inline __u64 pending_unblocked(struct task_struct *task)
{
	return pending_all(task) & ~task->blocked.sig[0];
}

/* A TASK fact first, and again when the comm changed since the last one. */
static __always_inline void maybe_task(struct nw_thread *st, __u64 t)
{
	struct task_struct *cur = bpf_get_current_task_btf();
	struct nw_fact_task *f;
	__u64 a[2], *b = (__u64 *)st->comm;

	bpf_get_current_comm(a, sizeof(a));
	if (st->task_sent && a[0] == b[0] && a[1] == b[1])
		return;
	f = fact_reserve(sizeof(*f));
	if (!f)
		return;
	fill_hdr(&f->h, NW_FACT_TASK, 0, sizeof(*f), t);
	__builtin_memcpy(f->comm, a, sizeof(a));
	f->vtid = task_vtid(cur);
	fact_submit(f);
	b[0] = a[0];
	b[1] = a[1];
	st->task_sent = 1;
}

static __always_inline struct nw_thread *own_state(bool create)
{
	return bpf_task_storage_get(&threads, bpf_get_current_task_btf(), 0,
				    create ? BPF_LOCAL_STORAGE_GET_F_CREATE :
					     0);
}

static __always_inline __u8 view_wflags(const struct nw_knotif_view *v)
{
	return (v->filter_killable ? NW_WAIT_FILTER_KILLABLE : 0) |
	       (v->seed_killable ? NW_WAIT_SEED_KILLABLE : 0);
}

/* The stored kn still is this thread's knotif with the stored id. */
static __always_inline bool key_valid(struct nw_thread *st,
				      struct task_struct *task)
{
	union nw_knotif_copy c;

	return !knotif_copy(&c, st->kn) && c.k.id == st->id &&
	       c.k.task == task && c.k.state <= NW_KNOTIF_STATE_MAX;
}

static __always_inline void store_key(struct nw_thread *st,
				      struct task_struct *task,
				      const struct nw_knotif_view *v)
{
	st->filter = v->filter;
	st->id = v->id;
	st->kn = v->kn;
	st->nr = v->nr;
	st->arch = v->arch;
	st->wflags = view_wflags(v);
	st->wanted = tgid_wanted(task->tgid, v->nr, false);
	st->have_key = 1;
}

static __always_inline void
emit_wait(struct nw_thread *st, struct task_struct *task, __u8 how, __u64 t)
{
	struct nw_fact_wait *f;

	if (!st->wanted)
		return;
	maybe_task(st, t);
	f = fact_reserve(sizeof(*f));
	if (!f)
		return;
	fill_hdr(&f->h, NW_FACT_WAIT, how | st->wflags, sizeof(*f), t);
	f->filter = st->filter;
	f->id = st->id;
	f->t_start_ns = st->t_bracket;
	f->pending = pending_unblocked(task);
	f->nr = st->nr;
	f->arch = st->arch;
	fact_submit(f);
}

static __always_inline void emit_return(struct nw_thread *st,
					struct task_struct *task, __s64 ret,
					int nr, __u8 flags, __u32 queued,
					__u64 t)
{
	__u64 pending = pending_all(task);
	struct nw_fact_return *f;

	maybe_task(st, t);
	/* SIGKILL cannot be blocked */
	if (pending & sig_bit(SIGKILL))
		flags |= NW_RET_FATAL;
	/* the freezer may be why: it acts on the way out (frozen_fact) */
	st->interrupted = ret == -ERESTARTSYS;
	st->watch_switch = (pending & ~task->blocked.sig[0]) != 0;
	f = fact_reserve(sizeof(*f));
	if (!f)
		return;
	/*
	 * Stamped after pending was read: a signal it shows was sent before
	 * its t_ns. A TCG vCPU stalled 256 us between the hook's timestamp
	 * and this read, and a SIGURG sent in between looked sent after.
	 */
	fill_hdr(&f->h, NW_FACT_RETURN, flags, sizeof(*f),
		 bpf_ktime_get_ns());
	f->filter = st->filter;
	f->id = st->id;
	f->ret = ret;
	f->pending = pending & ~task->blocked.sig[0];
	f->nr = nr;
	f->queued = queued;
	fact_submit(f);
}

/*
 * The current thread goes to sleep in the freezer: a fact only when its
 * last wait ended -ERESTARTSYS and it made no syscall since, so the
 * freezer's fake signal is what interrupted that wait.
 */
static __always_inline void frozen_fact(__u32 how)
{
	__u64 t = bpf_ktime_get_ns();
	struct nw_thread *st = own_state(false);
	struct nw_fact_frozen *f;

	if (!st || !st->interrupted)
		return;
	st->interrupted = 0;
	f = fact_reserve(sizeof(*f));
	if (!f)
		return;
	fill_hdr(&f->h, NW_FACT_FROZEN, 0, sizeof(*f), t);
	f->how = how;
	fact_submit(f);
}

/* ---- the target's side ----------------------------------------------- */

SEC("tp_btf/sched_waking")
int BPF_PROG(tp_sched_waking, struct task_struct *p)
{
	struct task_struct *cur = bpf_get_current_task_btf();
	struct nw_knotif_view v = {};
	struct nw_thread *st;
	__u64 t;

	if (cur->seccomp.mode != NW_SECCOMP_MODE_FILTER)
		return 0;
	t = bpf_ktime_get_ns();
	st = own_state(false);
	/* a syscall that passed sys_enter is past seccomp: no wait */
	if (st && (st->have_key || st->entered))
		return 0;
	if (!listener_filter(cur) || !task_find_knotif_deep(cur, &v))
		return 0;
	st = own_state(true);
	if (!st)
		return 0;
	store_key(st, cur, &v);
	emit_wait(st, cur, NW_WAIT_WAKEUP, t);
	return 0;
}

static __always_inline void emit_switch(__u8 how, __u32 tid, __u64 t)
{
	struct nw_fact_switch *f = fact_reserve(sizeof(*f));

	if (!f)
		return;
	fill_hdr(&f->h, NW_FACT_SWITCH, how, sizeof(*f), t);
	f->tid = tid;
	fact_submit(f);
}

/* Asleep waiting for a notification: in NOTIF_RECV, or polling for one. */
static __always_inline bool receiving(struct nw_thread *st,
				      struct task_struct *task)
{
	long nr = -1;

	if (st->io_cmd == NW_IOCTL_NOTIF_RECV)
		return true;
#if defined(__TARGET_ARCH_x86)
	nr = ((struct pt_regs *)bpf_task_pt_regs(task))->orig_ax;
#endif
	return nr == NR_POLL || nr == NR_SELECT || nr == NR_EPOLL_WAIT ||
	       nr == NR_PSELECT6 || nr == NR_PPOLL || nr == NR_EPOLL_PWAIT ||
	       nr == NR_EPOLL_PWAIT2;
}

/* The stacks a supervisor thread blocks in while it holds a notification. */
static __always_inline void emit_stack(void *ctx, __u64 t)
{
	struct nw_fact_stack *f = fact_reserve(sizeof(*f));

	if (!f)
		return;
	fill_hdr(&f->h, NW_FACT_STACK, 0, sizeof(*f), t);
	f->kstack = bpf_get_stackid(ctx, &stacks, 0);
	f->ustack = bpf_get_stackid(ctx, &stacks, BPF_F_USER_STACK);
	if (f->kstack < 0 || f->ustack < 0)
		__sync_fetch_and_add(&counters.lost_stacks, 1);
	fact_submit(f);
}

/*
 * A task with no BPF local storage at all (nearly every task) has none of
 * ours: a load instead of a helper call, on every context switch of the
 * system while a supervisor thread exists.
 */
static __always_inline bool has_storage(struct task_struct *task)
{
	return task->bpf_storage;
}

/*
 * Watched threads' switches: a target between its wait's end and its
 * signal's delivery (was it preempted, when did it run again?), every
 * switch of a supervisor thread. prev's storage is its own; next's is only
 * read.
 */
static __always_inline void watch_switch(void *ctx, bool preempt,
					 struct task_struct *prev,
					 struct task_struct *next,
					 unsigned int prev_state)
{
	bool runnable = preempt || prev_state == TASK_RUNNING;
	bool sup = sup_threads != 0;
	struct nw_thread *st;
	__u8 how = NW_SWITCH_OUT;
	__u64 t;

	if ((prev->seccomp.mode == NW_SECCOMP_MODE_FILTER || sup) &&
	    has_storage(prev)) {
		st = own_state(false);
		if (st && (st->is_sup || (st->watch_switch && runnable))) {
			if (runnable)
				how |= NW_SWITCH_RUNNABLE;
			else if (st->is_sup && receiving(st, prev))
				how |= NW_SWITCH_WAITING;
			t = bpf_ktime_get_ns();
			emit_switch(how, prev->pid, t);
			/*
			 * every asleep switch-out but a receiving one: which
			 * handling it belongs to (a worker's too) is the
			 * joiner's to say
			 */
			if (want_stacks && st->is_sup &&
			    !(how & (NW_SWITCH_RUNNABLE | NW_SWITCH_WAITING)))
				emit_stack(ctx, t);
		}
	}
	if ((next->seccomp.mode == NW_SECCOMP_MODE_FILTER || sup) &&
	    has_storage(next)) {
		st = bpf_task_storage_get(&threads, next, 0, 0);
		if (st && (st->watch_switch || st->is_sup))
			emit_switch(NW_SWITCH_IN, next->pid,
				    bpf_ktime_get_ns());
	}
}

/* Its first RECV or reply makes a thread a supervisor thread, for good. */
static __always_inline void mark_supervisor(struct nw_thread *st)
{
	if (st->is_sup)
		return;
	st->is_sup = 1;
	__sync_fetch_and_add(&sup_threads, 1);
}

SEC("tp_btf/sched_switch")
int BPF_PROG(tp_sched_switch, bool preempt, struct task_struct *prev,
	     struct task_struct *next, unsigned int prev_state)
{
	unsigned int state = prev_state & SLEEP_STATE_MASK;
	struct nw_knotif_view v = {};
	struct nw_thread *st;
	__u8 how;
	__u64 t;

	watch_switch(ctx, preempt, prev, next, prev_state);
	if (prev->seccomp.mode != NW_SECCOMP_MODE_FILTER || preempt)
		return 0;
	if (prev_state & TASK_FROZEN) {
		frozen_fact(NW_FROZEN_REFRIGERATOR);
		return 0;
	}
	if (state != TASK_INTERRUPTIBLE && state != TASK_KILLABLE)
		return 0;
	if (bpf_core_field_exists(prev->frozen) &&
	    BPF_CORE_READ_BITFIELD(prev, frozen)) {
		frozen_fact(NW_FROZEN_CGROUP2); /* do_freezer_trap */
		return 0;
	}
	t = bpf_ktime_get_ns();
	/* prev is current until the switch: this is its own storage */
	st = own_state(false);
	if (st && st->entered)
		return 0;
	how = NW_WAIT_SLEEP | (state == TASK_KILLABLE ? NW_WAIT_KILLABLE : 0);
	if (st && st->have_key) {
		if (key_valid(st, prev)) {
			emit_wait(st, prev, how, t);
			return 0;
		}
		st->have_key = 0; /* its end was not seen */
	}
	if (!listener_filter(prev) || !task_find_knotif_deep(prev, &v))
		return 0;
	if (!st)
		st = own_state(true);
	if (!st)
		return 0;
	store_key(st, prev, &v);
	emit_wait(st, prev, how, t);
	return 0;
}

/* ---- supervisor ioctls --------------------------------------------------- */

static __always_inline void emit_reply_send(struct nw_thread *st,
					    struct seccomp_notif_resp *resp,
					    __u32 cmd, __u64 t)
{
	struct nw_fact_reply *f;

	f = fact_reserve(sizeof(*f));
	if (!f)
		return;
	fill_hdr(&f->h, NW_FACT_REPLY, NW_REPLY_OP_SEND, sizeof(*f), t);
	f->filter = st->io_filter;
	f->id = resp->id;
	f->val = resp->val;
	f->error = resp->error;
	f->flags = resp->flags;
	f->cmd = cmd;
	fact_submit(f);
}

/* The seccomp filter behind the current task's listener fd @fd, or 0. */
static __always_inline __u64 fd_listener(int fd)
{
	struct fdtable *fdt = bpf_get_current_task_btf()->files->fdt;
	struct file **fds = fdt->fd;
	struct file *file = NULL;

	if (fd < 0 || (unsigned int)fd >= fdt->max_fds)
		return 0;
	bpf_probe_read_kernel(&file, sizeof(file), &fds[fd]);
	if (!file)
		return 0;
	return (__u64)BPF_CORE_READ(file, private_data);
}

static __always_inline bool notif_ioctl(__u32 cmd)
{
	return cmd == NW_IOCTL_NOTIF_RECV || cmd == NW_IOCTL_NOTIF_SEND ||
	       NW_IOCTL_IS_ADDFD(cmd);
}

/* A NOTIF_* ioctl on the listener of @filter, with its argument @uptr. */
static __always_inline void ioctl_enter(__u64 filter, __u32 cmd, __u64 uptr,
					__u64 t)
{
	struct seccomp_notif_resp resp;
	struct seccomp_notif_addfd addfd;
	struct nw_fact_reply *f;
	struct nw_thread *st;
	__u32 flags_in = 0;

	if (!filter)
		return;
	st = own_state(true);
	if (!st)
		return;
	st->io_cmd = cmd;
	st->io_filter = filter;
	st->io_uptr = uptr;
	/* its handling ends: a reply, or the next notification (ADDFD below) */
	if (cmd == NW_IOCTL_NOTIF_SEND || cmd == NW_IOCTL_NOTIF_RECV)
		st->watch_sup = 0;
	if (cmd != NW_IOCTL_NOTIF_RECV)
		mark_supervisor(st);
	if (cmd == NW_IOCTL_NOTIF_RECV) {
		bpf_probe_read_user(
			&flags_in, sizeof(flags_in),
			(void *)uptr + offsetof(struct seccomp_notif, flags));
		st->io_flags_in = flags_in;
	} else if (cmd == NW_IOCTL_NOTIF_SEND) {
		if (bpf_probe_read_user(&resp, sizeof(resp), (void *)uptr)) {
			st->io_cmd = 0;
			return;
		}
		st->io_id = resp.id;
		emit_reply_send(st, &resp, cmd, t);
	} else {
		if (bpf_probe_read_user(&addfd, sizeof(addfd), (void *)uptr)) {
			st->io_cmd = 0;
			return;
		}
		st->io_id = addfd.id;
		if (addfd.flags & NW_ADDFD_FLAG_SEND)
			st->watch_sup = 0;
		f = fact_reserve(sizeof(*f));
		if (!f)
			return;
		fill_hdr(&f->h, NW_FACT_REPLY, NW_REPLY_OP_ADDFD, sizeof(*f),
			 t);
		f->filter = filter;
		f->id = addfd.id;
		f->flags = addfd.flags;
		f->newfd = addfd.newfd;
		f->cmd = cmd;
		fact_submit(f);
	}
}

static __always_inline void recv_exit(struct nw_thread *st, __u64 t)
{
	struct task_struct *cur = bpf_get_current_task_btf();
	struct seccomp_filter *filter = (void *)st->io_filter;
	/* seccomp_notif's id, pid, flags and data's nr and arch, no more */
	struct {
		__u64 id;
		__u32 pid;
		__u32 flags;
		__s32 nr;
		__u32 arch;
	} unotif;
	__u32 target_tid = 0, target_tgid = 0;
	struct task_struct *target;
	struct notification *notif;
	struct nw_fact_recv *f;
	struct nw_walk w;
	__u8 flags = 0;

	if (bpf_probe_read_user(&unotif, sizeof(unotif), (void *)st->io_uptr))
		return;
	/* io_filter is a file's private_data: no BTF type, probe reads */
	notif = BPF_CORE_READ(filter, notif);
	if (notif && listener_walk(&w, notif, 0, unotif.id)) {
		target = (void *)w.found_task;
		target_tid = BPF_CORE_READ(target, pid);
		target_tgid = BPF_CORE_READ(target, tgid);
		if (!tgid_wanted(target_tgid, unotif.nr,
				 filter_traced && is_traced(cur->tgid)))
			return;
	}
	maybe_task(st, t);
	if (st->io_flags_in & NW_USER_NOTIF_FLAG_WAIT_KILLABLE)
		flags |= NW_RECV_SEED_FLAG;
	if (BPF_CORE_READ(filter, wait_killable_recv))
		flags |= NW_RECV_FILTER_KILLABLE;
	f = fact_reserve(sizeof(*f));
	if (!f)
		return;
	fill_hdr(&f->h, NW_FACT_RECV, flags, sizeof(*f), t);
	f->filter = st->io_filter;
	f->id = unotif.id;
	f->seen_pid = unotif.pid;
	f->target_tid = target_tid;
	f->target_tgid = target_tgid;
	f->flags_in = st->io_flags_in;
	f->nr = unotif.nr;
	f->arch = unotif.arch;
	fact_submit(f);
	st->watch_sup = 1;
	mark_supervisor(st);
}

static __always_inline void ioctl_exit(long ret, __u64 t)
{
	struct nw_thread *st = own_state(false);
	struct nw_fact_reply_done *f;
	__u32 cmd;

	if (!st || !st->io_cmd)
		return;
	cmd = st->io_cmd;
	st->io_cmd = 0;
	if (cmd == NW_IOCTL_NOTIF_RECV) {
		if (ret == 0)
			recv_exit(st, t);
		return;
	}
	f = fact_reserve(sizeof(*f));
	if (!f)
		return;
	fill_hdr(&f->h, NW_FACT_REPLY_DONE,
		 cmd == NW_IOCTL_NOTIF_SEND ? NW_REPLY_OP_SEND :
					      NW_REPLY_OP_ADDFD,
		 sizeof(*f), t);
	f->filter = st->io_filter;
	f->id = st->io_id;
	f->ret = ret;
	fact_submit(f);
}

/* ---- syscalls ------------------------------------------------------------ */

SEC("tp_btf/sys_enter")
int BPF_PROG(tp_sys_enter, struct pt_regs *regs, long id)
{
	struct task_struct *cur = bpf_get_current_task_btf();
	struct nw_thread *st;

	if (cur->seccomp.mode == NW_SECCOMP_MODE_FILTER) {
		st = own_state(false);
		if (!st && listener_filter(cur))
			st = own_state(true);
		if (st) {
			st->entered = 1;
			st->interrupted = 0;
			st->watch_switch = 0;
		}
	}
	if (id == NR_IOCTL && notif_ioctl(regs->si))
		ioctl_enter(fd_listener(regs->di), regs->si, regs->dx,
			    bpf_ktime_get_ns());
	return 0;
}

SEC("tp_btf/sys_exit")
int BPF_PROG(tp_sys_exit, struct pt_regs *regs, long ret)
{
	struct task_struct *cur = bpf_get_current_task_btf();
	struct seccomp_filter *filter;
	struct nw_thread *st;
	int nr = regs->orig_ax;
	bool entered;
	__u64 t;

	if (nr == NR_IOCTL)
		ioctl_exit(ret, bpf_ktime_get_ns());
	if (cur->seccomp.mode != NW_SECCOMP_MODE_FILTER)
		return 0;
	st = own_state(false);
	if (!st)
		return 0;
	t = bpf_ktime_get_ns();
	entered = st->entered;
	st->entered = 0;
	if (st->have_key) {
		st->have_key = 0;
		if (st->wanted)
			emit_return(st, cur, ret, nr, 0, 0, t);
		return 0;
	}
	if (entered)
		return 0;
	/* skipped by seccomp, its wait unseen: the joiner looks back from next_id */
	filter = listener_filter(cur);
	if (!filter || !tgid_wanted(cur->tgid, nr, false))
		return 0;
	st->filter = (__u64)filter;
	st->id = filter->notif->next_id;
	emit_return(st, cur, ret, nr,
		    NW_RET_NO_KEY | (filter->wait_killable_recv ?
					     NW_RET_FILTER_KILLABLE :
					     0),
		    ret == -ERESTARTSYS ? queued_below(filter->notif, st->id) :
					  0,
		    t);
	return 0;
}

/* ---- fentry and kprobe backends ------------------------------------------ */
/*
 * The bracket (seccomp_do_user_notification, or __seccomp_filter where a
 * compiler clone hides it) marks the thread's own storage; each sleep in
 * it is wait_for_completion_*(&knotif->ready), which names the knotif
 * without a walk; the bracket's exit ends the wait with the return value
 * seccomp put in the registers.
 */

static __always_inline void bracket_enter(__u64 filter)
{
	struct task_struct *cur = bpf_get_current_task_btf();
	__u64 t = bpf_ktime_get_ns();
	struct nw_thread *st;

	if (!filter && !listener_filter(cur))
		return;
	st = own_state(true);
	if (!st)
		return;
	st->in_bracket = 1;
	st->interrupted = 0;
	st->have_key = 0;
	st->t_bracket = t;
	st->bracket_filter = filter;
}

/*
 * CONTINUE (the bracket returns 0) lets the syscall run: its return value
 * comes later, unseen here.
 */
static __always_inline void bracket_leave(bool continued)
{
	struct task_struct *cur = bpf_get_current_task_btf();
	struct pt_regs *regs = (struct pt_regs *)bpf_task_pt_regs(cur);
	__u64 t = bpf_ktime_get_ns();
	struct nw_thread *st = own_state(false);

	if (!st || !st->in_bracket)
		return;
	st->in_bracket = 0;
	st->t_bracket = 0;
	if (!st->have_key)
		return; /* no wait: the filter did not notify */
	st->have_key = 0;
	if (st->wanted)
		emit_return(st, cur, BPF_CORE_READ(regs, ax),
			    BPF_CORE_READ(regs, orig_ax),
			    continued ? NW_RET_UNKNOWN : 0, 0, t);
}

/*
 * A clone's caller or a kprobe does not see the filter: the knotif was just
 * added at its listener's tail, so the list leads from @next to that
 * listener's head in a step or a few (others queued since).
 */
#define NW_HEAD_STEPS 4
static __always_inline struct seccomp_filter *
listener_of_knotif(struct task_struct *cur, __u64 next)
{
	struct seccomp_filter *filter, *newest = NULL;
	__u64 pos;
	int depth, i;

	filter = cur->seccomp.filter;
	for (depth = 0; depth < NW_MAX_FILTER_DEPTH && filter; depth++) {
		if (filter->notif) {
			if (!newest)
				newest = filter;
			pos = next;
			for (i = 0; i < NW_HEAD_STEPS && walk_kernel_addr(pos);
			     i++) {
				if (pos == (__u64)&filter->notif->notifications)
					return filter;
				pos = (__u64)BPF_CORE_READ(
					(struct list_head *)pos, next);
			}
		}
		filter = filter->prev;
	}
	return newest; /* a walk torn by a list_del: the likeliest */
}

/* @kn is the current thread's knotif: which listener's is it? */
static __always_inline bool view_of_knotif(struct task_struct *cur,
					   struct nw_thread *st, __u64 kn,
					   struct nw_knotif_view *v)
{
	struct seccomp_filter *filter = (void *)st->bracket_filter;
	union nw_knotif_copy c;
	__u32 nr_arch[2] = {};

	if (knotif_copy(&c, kn) || c.k.task != cur)
		return false;
	if (!filter)
		filter = listener_of_knotif(cur, (__u64)c.k.list.next);
	if (!filter)
		return false;
	v->filter = (__u64)filter;
	v->kn = kn;
	v->id = c.k.id;
	v->task = cur;
	bpf_probe_read_kernel(nr_arch, sizeof(nr_arch), c.k.data);
	v->nr = nr_arch[0];
	v->arch = nr_arch[1];
	v->filter_killable = BPF_CORE_READ(filter, wait_killable_recv);
	v->seed_killable = 0;
	if (bpf_core_field_exists(
		    ((struct seccomp_knotif___seed *)0)->wait_killable))
		v->seed_killable =
			((struct seccomp_knotif___seed *)&c)->wait_killable;
	return true;
}

static __always_inline void wait_begin(struct completion *x, bool killable)
{
	struct task_struct *cur = bpf_get_current_task_btf();
	struct nw_knotif_view v = {};
	struct nw_thread *st;
	__u64 t;

	if (cur->seccomp.mode != NW_SECCOMP_MODE_FILTER)
		return;
	t = bpf_ktime_get_ns();
	st = own_state(false);
	if (!st || !st->in_bracket)
		return; /* not a seccomp wait: most callers leave here */
	if (!st->have_key) {
		if (!view_of_knotif(cur, st,
				    (__u64)x - bpf_core_field_offset(
						       struct seccomp_knotif,
						       ready),
				    &v))
			return;
		store_key(st, cur, &v);
	}
	emit_wait(st, cur, NW_WAIT_ENTRY | (killable ? NW_WAIT_KILLABLE : 0),
		  t);
}

/*
 * The fexit programs take the return value with bpf_get_func_ret(): the
 * argument lists differ between kernels (__seccomp_filter has three in 6.1,
 * two in 6.18), and with them the return value's slot.
 */
static __always_inline long func_ret(void *ctx)
{
	__u64 ret = 0;

	bpf_get_func_ret(ctx, &ret);
	return (long)ret;
}

/* fentry and kprobe: their waits need no sched_switch, the watch does */
SEC("tp_btf/sched_switch")
int BPF_PROG(tp_switch_watch, bool preempt, struct task_struct *prev,
	     struct task_struct *next, unsigned int prev_state)
{
	watch_switch(ctx, preempt, prev, next, prev_state);
	return 0;
}

SEC("fentry/seccomp_do_user_notification")
int BPF_PROG(fentry_notify)
{
	/* (this_syscall, match, sd): the filter is the second argument */
	bracket_enter(ctx[1]);
	return 0;
}

SEC("fexit/seccomp_do_user_notification")
int BPF_PROG(fexit_notify)
{
	bracket_leave((int)func_ret(ctx) == 0);
	return 0;
}

SEC("fentry/__seccomp_filter")
int BPF_PROG(fentry_filter)
{
	bracket_enter(0);
	return 0;
}

SEC("fexit/__seccomp_filter")
int BPF_PROG(fexit_filter)
{
	bracket_leave((int)func_ret(ctx) == 0);
	return 0;
}

SEC("fentry/wait_for_completion_interruptible")
int BPF_PROG(fentry_wait_interruptible, struct completion *x)
{
	wait_begin(x, false);
	return 0;
}

SEC("fentry/wait_for_completion_killable")
int BPF_PROG(fentry_wait_killable, struct completion *x)
{
	wait_begin(x, true);
	return 0;
}

SEC("fentry/__refrigerator")
int BPF_PROG(fentry_refrigerator)
{
	frozen_fact(NW_FROZEN_REFRIGERATOR);
	return 0;
}

SEC("fentry/cgroup_enter_frozen")
int BPF_PROG(fentry_enter_frozen)
{
	frozen_fact(NW_FROZEN_CGROUP2);
	return 0;
}

SEC("fentry/seccomp_notify_ioctl")
int BPF_PROG(fentry_notify_ioctl, struct file *file, unsigned int cmd,
	     unsigned long arg)
{
	if (notif_ioctl(cmd))
		ioctl_enter((__u64)file->private_data, cmd, arg,
			    bpf_ktime_get_ns());
	return 0;
}

SEC("fexit/seccomp_notify_ioctl")
int BPF_PROG(fexit_notify_ioctl)
{
	ioctl_exit(func_ret(ctx), bpf_ktime_get_ns());
	return 0;
}

/* The same as kprobes, attached by symbol (a clone BTF lacks). */

SEC("kprobe")
int BPF_KPROBE(kp_notify_enter)
{
	/* a clone may have dropped arguments: the wait finds the filter */
	bracket_enter(0);
	return 0;
}

SEC("kretprobe")
int BPF_KRETPROBE(kp_notify_leave, int ret)
{
	bracket_leave(ret == 0);
	return 0;
}

SEC("kprobe")
int BPF_KPROBE(kp_wait_interruptible, struct completion *x)
{
	wait_begin(x, false);
	return 0;
}

SEC("kprobe")
int BPF_KPROBE(kp_wait_killable, struct completion *x)
{
	wait_begin(x, true);
	return 0;
}

SEC("kprobe")
int BPF_KPROBE(kp_refrigerator)
{
	frozen_fact(NW_FROZEN_REFRIGERATOR);
	return 0;
}

SEC("kprobe")
int BPF_KPROBE(kp_enter_frozen)
{
	frozen_fact(NW_FROZEN_CGROUP2);
	return 0;
}

SEC("kprobe")
int BPF_KPROBE(kp_notify_ioctl, struct file *file, unsigned int cmd,
	       unsigned long arg)
{
	if (notif_ioctl(cmd))
		ioctl_enter((__u64)BPF_CORE_READ(file, private_data), cmd, arg,
			    bpf_ktime_get_ns());
	return 0;
}

SEC("kretprobe")
int BPF_KRETPROBE(kp_notify_ioctl_ret, long ret)
{
	ioctl_exit(ret, bpf_ktime_get_ns());
	return 0;
}

/* ---- signals and the traced set ------------------------------------------ */

SEC("tp_btf/signal_generate")
int BPF_PROG(on_signal_generate, int sig, struct kernel_siginfo *info,
	     struct task_struct *task, int group, int result)
{
	struct nw_knotif_view v = {};
	struct nw_fact_signal *f;
	struct nw_thread *st;
	__u32 tgid;
	__u8 flags;
	__u64 t;

	if (task->seccomp.mode != NW_SECCOMP_MODE_FILTER)
		return 0;
	t = bpf_ktime_get_ns();
	tgid = task->tgid;
	if (targ_tgid && tgid != targ_tgid)
		return 0;
	if (filter_traced && !is_traced(tgid))
		return 0;
	if (!listener_filter(task))
		return 0;
	flags = group ? NW_SIG_GROUP : 0;
	if (task->blocked.sig[0] & sig_bit(sig))
		flags |= NW_SIG_MASKED;
	/* the target's own storage, read only; else a walk of its listener */
	st = bpf_task_storage_get(&threads, task, 0, 0);
	if (st && st->have_key && key_valid(st, task)) {
		flags |= NW_SIG_HAVE_KEY;
		if (st->wflags & NW_WAIT_FILTER_KILLABLE)
			flags |= NW_SIG_FILTER_KILLABLE;
		v.filter = st->filter;
		v.id = st->id;
		v.nr = st->nr;
	} else if (task_find_knotif_deep(task, &v)) {
		if (targ_nr >= 0 && v.nr != targ_nr)
			return 0;
		flags |= NW_SIG_HAVE_KEY;
		if (v.filter_killable)
			flags |= NW_SIG_FILTER_KILLABLE;
	}
	f = fact_reserve(sizeof(*f));
	if (!f)
		return 0;
	fill_hdr(&f->h, NW_FACT_SIGNAL, flags, sizeof(*f), t);
	f->target_tid = task->pid;
	f->target_tgid = tgid;
	f->sig = sig;
	f->result = result;
	f->filter = v.filter;
	f->id = v.id;
	f->nr = v.nr;
	fact_submit(f);
	return 0;
}

SEC("tp_btf/signal_deliver")
int BPF_PROG(on_signal_deliver, int sig, struct kernel_siginfo *info,
	     struct k_sigaction *ka)
{
	struct task_struct *cur = bpf_get_current_task_btf();
	struct nw_fact_deliver *f;
	struct nw_thread *st;
	__u64 t, handler;

	if (cur->seccomp.mode != NW_SECCOMP_MODE_FILTER)
		return 0;
	t = bpf_ktime_get_ns();
	if (targ_tgid && (__u32)cur->tgid != targ_tgid)
		return 0;
	st = own_state(false);
	if (st)
		st->watch_switch = 0; /* the rest follow at once */
	else if (!listener_filter(cur))
		return 0;
	f = fact_reserve(sizeof(*f));
	if (!f)
		return 0;
	handler = (__u64)ka->sa.sa_handler;
	fill_hdr(&f->h, NW_FACT_DELIVER,
		 handler == 1 ? NW_DELIVER_IGNORED :
		 handler      ? NW_DELIVER_HANDLER :
				0,
		 sizeof(*f), t);
	f->sig = sig;
	f->sa_flags = ka->sa.sa_flags;
	fact_submit(f);
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
	struct nw_thread *st;
	__u64 t;

	if (sup_threads) {
		st = own_state(false);
		if (st && st->is_sup) {
			st->is_sup = 0;
			__sync_fetch_and_add(&sup_threads, -1);
			emit_switch(NW_SWITCH_OUT | NW_SWITCH_EXIT, p->pid,
				    bpf_ktime_get_ns());
		}
	}
	if (p->seccomp.mode != NW_SECCOMP_MODE_FILTER)
		return 0;
	t = bpf_ktime_get_ns();
	/* p is current: a target killed in its wait never reaches sys_exit */
	st = own_state(false);
	if (!st || !st->have_key)
		return 0;
	st->have_key = 0;
	if (st->wanted)
		emit_return(st, p, -ERESTARTSYS, st->nr, NW_RET_EXITED, 0, t);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
