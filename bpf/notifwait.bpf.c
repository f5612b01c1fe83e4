// SPDX-License-Identifier: GPL-2.0
/*
 * notifwait's BPF programs. Both backends fill the same per-notification
 * state (knotif_state.bpf.h) and emit the same records (notifwait.h); the
 * reporter turns on one group with bpf_program__set_autoload().
 *
 * tracepoint backend (tp_btf only, runs under lockdown): seccomp runs before
 * the sys_enter tracepoint, so nothing fires when a notification is
 * created. A target is recognised when it wakes the supervisor right after
 * queueing its knotif (sched_waking) or goes to sleep with it queued
 * (sched_switch); the supervisor's side comes from sys_enter/sys_exit of its
 * ioctls; the target's sys_exit ends the notification.
 *
 * fentry backend: the notification bracket is fentry/fexit on
 * seccomp_do_user_notification (or on __seccomp_filter where a compiler
 * clone hides it from BTF), each sleep is fentry/fexit on
 * wait_for_completion_interruptible/_killable on the knotif's ->ready, and
 * the supervisor's side is fentry/fexit on seccomp_notify_ioctl.
 *
 * Both: signals (signal_generate, signal_deliver) and the traced set
 * (sched_process_fork, sched_process_exit).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "notifwait.h"
#include "knotif_state.bpf.h"
#include "supervisor_ioctl.bpf.h"

/* ---- both backends ---------------------------------------------------- */

SEC("tp_btf/signal_generate")
int BPF_PROG(on_signal_generate, int sig, struct kernel_siginfo *info,
	     struct task_struct *task, int group, int result)
{
	record_signal(sig, task, group, result);
	return 0;
}

SEC("tp_btf/signal_deliver")
int BPF_PROG(on_signal_deliver, int sig, struct kernel_siginfo *info,
	     struct k_sigaction *ka)
{
	record_delivery(sig);
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
	bpf_map_delete_elem(&entered, &tid);
	bpf_map_delete_elem(&early_signals, &tid);
	return 0;
}

/* ---- tracepoint backend ----------------------------------------------- */

SEC("tp_btf/sched_waking")
int BPF_PROG(tp_sched_waking, struct task_struct *p)
{
	struct task_struct *cur = bpf_get_current_task_btf();
	struct nw_knotif_key key;
	__u32 tid = cur->pid;

	if (cur->seccomp.mode != NW_SECCOMP_MODE_FILTER)
		return 0;
	if (bpf_map_lookup_elem(&waiting, &tid) || !task_has_listener(cur))
		return 0;
	detect_waiting(cur, NW_SEEN_WAKEUP, bpf_ktime_get_ns(), &key);
	return 0;
}

SEC("tp_btf/sched_switch")
int BPF_PROG(tp_sched_switch, bool preempt, struct task_struct *prev,
	     struct task_struct *next, unsigned int prev_state)
{
	unsigned int state = prev_state & SLEEP_STATE_MASK;
	struct nw_knotif_event *e;
	struct nw_knotif_key key;

	if (preempt || (state != TASK_INTERRUPTIBLE && state != TASK_KILLABLE))
		return 0;
	if (prev->seccomp.mode != NW_SECCOMP_MODE_FILTER)
		return 0;
	e = knotif_of_tid(prev->pid);
	if (!e && task_has_listener(prev))
		e = detect_waiting(prev, NW_SEEN_SLEEP, bpf_ktime_get_ns(),
				   &key);
	if (!e)
		return 0;
	note_sleep(e, state == TASK_KILLABLE, bpf_ktime_get_ns());
	return 0;
}

SEC("tp_btf/sys_enter")
int BPF_PROG(tp_sys_enter, struct pt_regs *regs, long id)
{
	struct task_struct *cur = bpf_get_current_task_btf();
	struct nw_syscall_mark *m;

	if (cur->seccomp.mode == NW_SECCOMP_MODE_FILTER) {
		m = bpf_task_storage_get(&syscall_marks, cur, 0, 0);
		if (m)
			m->entered = 1;
	}
	if (id != NR_IOCTL)
		return 0;
	ioctl_enter(listener_of_fd(regs->di), regs->si, regs->dx);
	return 0;
}

SEC("tp_btf/sys_exit")
int BPF_PROG(tp_sys_exit, struct pt_regs *regs, long ret)
{
	struct task_struct *cur = bpf_get_current_task_btf();
	struct nw_syscall_mark *m;
	bool entered;

	if (regs->orig_ax == NR_IOCTL)
		ioctl_leave(ret);
	if (cur->seccomp.mode != NW_SECCOMP_MODE_FILTER)
		return 0;
	m = bpf_task_storage_get(&syscall_marks, cur, 0, 0);
	entered = m && m->entered;
	if (m)
		m->entered = 0;
	if (finish_knotif(cur, cur->pid, ret, false)) {
		/* a target: mark its syscalls from now on (note_unseen_exit) */
		if (!m)
			bpf_task_storage_get(&syscall_marks, cur, 0,
					     BPF_LOCAL_STORAGE_GET_F_CREATE);
		return 0;
	}
	if (m && !entered && ret == -ERESTARTSYS)
		note_unseen_exit(cur, regs->orig_ax);
	return 0;
}

/* ---- fentry backend --------------------------------------------------- */

static __always_inline void notify_enter(__u64 filter)
{
	__u32 tid = bpf_get_current_pid_tgid();
	struct nw_entered en = { .t_ns = bpf_ktime_get_ns(), .filter = filter };

	/* first: a sender that sees the entry from now on keeps its buffer */
	bpf_map_delete_elem(&early_signals, &tid);
	bpf_map_update_elem(&entered, &tid, &en, BPF_ANY);
}

/*
 * The bracket returns 0 for a CONTINUE reply (the syscall then runs, its
 * return value comes later) and -1 when the syscall is skipped, with the
 * return value already in the registers.
 */
static __always_inline void notify_leave(int bracket_ret)
{
	struct task_struct *cur = bpf_get_current_task_btf();
	struct pt_regs *regs = (struct pt_regs *)bpf_task_pt_regs(cur);
	__u32 tid = cur->pid;
	struct nw_knotif_event *e;

	bpf_map_delete_elem(&entered, &tid);
	bpf_map_delete_elem(&early_signals, &tid);
	e = knotif_of_tid(tid);
	if (!e)
		return;
	if (bracket_ret == 0)
		e->ret_unknown = 1;
	finish_knotif(cur, tid, BPF_CORE_READ(regs, ax), false);
}

/*
 * The fexit programs take the return value with bpf_get_func_ret(): the
 * argument lists differ between kernels (__seccomp_filter has three in 6.1,
 * two in 6.18), and with them the return value's slot.
 */
static __always_inline int func_ret(void *ctx)
{
	__u64 ret = 0;

	bpf_get_func_ret(ctx, &ret);
	return (int)ret;
}

SEC("fentry/seccomp_do_user_notification")
int BPF_PROG(fentry_notify)
{
	/* (this_syscall, match, sd): the filter is the second argument */
	notify_enter(ctx[1]);
	return 0;
}

SEC("fexit/seccomp_do_user_notification")
int BPF_PROG(fexit_notify)
{
	notify_leave(func_ret(ctx));
	return 0;
}

/* Where seccomp_do_user_notification is only a clone, bracket its caller. */
SEC("fentry/__seccomp_filter")
int BPF_PROG(fentry_filter)
{
	if (task_has_listener(bpf_get_current_task_btf()))
		notify_enter(0);
	return 0;
}

SEC("fexit/__seccomp_filter")
int BPF_PROG(fexit_filter)
{
	__u32 tid = bpf_get_current_pid_tgid();

	if (bpf_map_lookup_elem(&entered, &tid))
		notify_leave(func_ret(ctx));
	return 0;
}

/* A sleep inside the bracket on the target's own knotif->ready. */
static __always_inline void wait_begin(struct completion *x, bool killable)
{
	struct task_struct *cur = bpf_get_current_task_btf();
	__u32 tid = cur->pid;
	struct nw_knotif_event *e;
	struct nw_knotif_view v = {};
	struct nw_knotif_key key;
	struct seccomp_filter *filter;
	struct nw_entered *en;
	__u64 kn, now = bpf_ktime_get_ns();

	en = bpf_map_lookup_elem(&entered, &tid);
	if (!en)
		return; /* not a seccomp wait: most callers leave here */
	e = knotif_of_tid(tid);
	if (!e) {
		/* x is &knotif->ready: no list walk when the filter is known */
		kn = (__u64)x - bpf_core_field_offset(struct seccomp_knotif, ready);
		if (en->filter) {
			if (BPF_CORE_READ((struct seccomp_knotif *)kn, task) !=
			    cur)
				return;
			read_knotif(en->filter, kn, &v);
		} else if (BPF_CORE_READ((struct seccomp_knotif *)kn, task) !=
			   cur) {
			return;
		} else if (!task_find_knotif(cur, &v) || v.kn != kn) {
			/*
			 * The walk, torn by another target's list_del, missed
			 * the knotif: it is the newest listener's (nothing
			 * else creates this entry; see bracket_traced).
			 */
			filter = task_listener_filter(cur);
			if (!filter)
				return;
			read_knotif((__u64)filter, kn, &v);
		}
		key.filter = v.filter;
		key.id = v.id;
		e = bpf_map_lookup_elem(&knotifs, &key);
		if (!e) {
			if (!target_wanted(cur, v.nr, false))
				return;
			e = track_knotif(&v, NW_SEEN_ENTRY, en->t_ns);
			if (!e)
				return;
		}
	}
	note_sleep(e, killable, now);
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

SEC("fentry/seccomp_notify_ioctl")
int BPF_PROG(fentry_notify_ioctl, struct file *file, unsigned int cmd,
	     unsigned long arg)
{
	ioctl_enter((__u64)file->private_data, cmd, arg);
	return 0;
}

SEC("fexit/seccomp_notify_ioctl")
int BPF_PROG(fexit_notify_ioctl)
{
	__u64 ret = 0;

	bpf_get_func_ret(ctx, &ret);
	ioctl_leave((long)ret);
	return 0;
}

/* ---- kprobe backend ---------------------------------------------------- */
/*
 * The fentry backend's programs as kprobes, for kernels where the bracket
 * exists only as a compiler clone (seccomp_do_user_notification.isra.0)
 * that BTF lacks but kallsyms names. Attached by the reporter by symbol.
 */

SEC("kprobe")
int BPF_KPROBE(kp_notify_enter)
{
	/* a clone may have dropped arguments: find the filter by walking */
	notify_enter(0);
	return 0;
}

SEC("kretprobe")
int BPF_KRETPROBE(kp_notify_leave, int ret)
{
	notify_leave(ret);
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
int BPF_KPROBE(kp_notify_ioctl, struct file *file, unsigned int cmd,
	       unsigned long arg)
{
	ioctl_enter((__u64)BPF_CORE_READ(file, private_data), cmd, arg);
	return 0;
}

SEC("kretprobe")
int BPF_KRETPROBE(kp_notify_ioctl_ret, long ret)
{
	ioctl_leave(ret);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
