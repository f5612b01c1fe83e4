/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Facts: what one BPF program saw, at one moment, in one thread's context.
 * BPF emits them to the ring buffer and joins nothing; the reporter's joiner
 * (user/joiner.c) orders them by t_ns and builds the notification records.
 *
 * Every fact starts with struct nw_fact_hdr and is at most 64 bytes. The
 * header's tid/tgid are the thread that emitted it (bpf_get_current_pid_tgid,
 * init pid namespace). t_ns is bpf_ktime_get_ns() (CLOCK_MONOTONIC), taken
 * first thing in the program. Facts reach the ring buffer in reservation
 * order, which is not t_ns order across CPUs.
 *
 * The layout is also the on-disk layout of a recording (docs/recording.md):
 * change a fact only with NW_FACTS_VERSION.
 */
#ifndef NOTIFWAIT_FACTS_H
#define NOTIFWAIT_FACTS_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

/*
 * 2 adds NW_FACT_FROZEN and the DELIVER flags, 3 NW_FACT_SWITCH, 4
 * NW_FACT_STACK and the SWITCH flags WAITING and EXIT; an older stream is
 * valid (it lacks what it lacks)
 */
#define NW_FACTS_VERSION 4
#define NW_FACT_MAX_SIZE 64

enum nw_fact_kind {
	/* the emitting thread's name and its tid in its own pid namespace */
	NW_FACT_TASK = 1,
	/* the emitting thread (a target) waits on knotif (filter, id) */
	NW_FACT_WAIT,
	/* the emitting thread's notified syscall returned (or it exited) */
	NW_FACT_RETURN,
	/* NOTIF_RECV returned a notification to the emitting thread */
	NW_FACT_RECV,
	/* NOTIF_SEND or NOTIF_ADDFD entered by the emitting thread */
	NW_FACT_REPLY,
	/* ... and returned */
	NW_FACT_REPLY_DONE,
	/* the emitting thread sent a signal to a thread under a listener */
	NW_FACT_SIGNAL,
	/* the emitting thread (one under a listener) takes a signal */
	NW_FACT_DELIVER,
	/* the emitting thread freezes right after its wait was interrupted */
	NW_FACT_FROZEN,
	/* a watched thread left the CPU runnable, or got it back */
	NW_FACT_SWITCH,
	/* the stacks a supervisor thread blocked in (--supervisor-stacks) */
	NW_FACT_STACK,
	NW_FACT_KIND_MAX,
};

struct nw_fact_hdr {
	__u8 kind; /* enum nw_fact_kind */
	__u8 flags; /* per kind: NW_<KIND>_* below */
	__u16 size; /* of the whole fact */
	__u32 tid;
	__u32 tgid;
	__u32 cpu;
	__u64 t_ns;
};

/*
 * Emitted before a thread's first WAIT, RETURN or RECV fact, and again
 * when its comm changed since (exec, prctl): the joiner keeps the newest.
 */
struct nw_fact_task {
	struct nw_fact_hdr h;
	char comm[16];
	__u32 vtid; /* tid in the thread's own pid namespace */
	__u32 pad;
};

/* NW_FACT_WAIT: h.flags */
#define NW_WAIT_HOW_MASK 0x03
#define NW_WAIT_WAKEUP \
	1 /* tracepoint: woke the listener right after queueing */
#define NW_WAIT_SLEEP 2 /* tracepoint: sched_switch out, asleep on it */
#define NW_WAIT_ENTRY 3 /* fentry/kprobe: wait_for_completion_*(&kn->ready) */
#define NW_WAIT_KILLABLE \
	0x04 /* SLEEP/ENTRY: TASK_KILLABLE (else interruptible) */
#define NW_WAIT_FILTER_KILLABLE \
	0x08 /* SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV */
#define NW_WAIT_SEED_KILLABLE 0x10 /* seed series: knotif->wait_killable */

struct nw_fact_wait {
	struct nw_fact_hdr h;
	__u64 filter; /* the listener's struct seccomp_filter */
	__u64 id;
	/*
	 * fentry/kprobe: when the thread entered the notification bracket
	 * (seccomp_do_user_notification or its caller); 0 for tracepoint.
	 */
	__u64 t_start_ns;
	/* unblocked signals pending (thread's and group's), bit sig - 1 */
	__u64 pending;
	__s32 nr; /* the notified syscall */
	__u32 arch; /* AUDIT_ARCH_* */
};

/* NW_FACT_RETURN: h.flags */
#define NW_RET_NO_KEY 0x01 /* the thread's wait was not seen: id is next_id */
#define NW_RET_EXITED 0x02 /* sched_process_exit inside the wait */
#define NW_RET_FATAL 0x04 /* SIGKILL pending */
#define NW_RET_UNKNOWN 0x08 /* fentry: CONTINUE, the syscall runs on */
#define NW_RET_FILTER_KILLABLE 0x10 /* NO_KEY: the listener's filter flag */

/*
 * The end of a wait the thread was seen in (id), or, tracepoint only, the
 * exit of a syscall that never passed sys_enter while the thread's wait
 * was not seen (NW_RET_NO_KEY: seccomp skipped it, so a notification may
 * have been answered or aborted unseen; id then holds the listener's
 * notif->next_id and filter its newest listener, 0 if none).
 */
struct nw_fact_return {
	struct nw_fact_hdr h;
	__u64 filter;
	__u64 id;
	__s64 ret; /* the syscall's return value (ax), or -ERESTARTSYS */
	__u64 pending; /* as in struct nw_fact_wait */
	__s32 nr;
	/*
	 * NO_KEY with -ERESTARTSYS: bit i set when id - 1 - i was still
	 * queued at this exit (another thread's notification, not this one)
	 */
	__u32 queued;
};

/* NW_FACT_RECV: h.flags */
#define NW_RECV_SEED_FLAG \
	0x01 /* RECV asked SECCOMP_USER_NOTIF_FLAG_WAIT_KILLABLE */
#define NW_RECV_FILTER_KILLABLE \
	0x02 /* the listener's filter->wait_killable_recv */

struct nw_fact_recv {
	struct nw_fact_hdr h;
	__u64 filter;
	__u64 id;
	__u32 seen_pid; /* seccomp_notif.pid: the target as the supervisor sees it */
	__u32 flags_in; /* seccomp_notif.flags as RECV was called */
	/* the knotif's task, found on the listener's list; 0: not found */
	__u32 target_tid;
	__u32 target_tgid;
	/* seccomp_notif.data: what a wait seen only at RECV is about */
	__s32 nr;
	__u32 arch;
};

/* NW_FACT_REPLY and NW_FACT_REPLY_DONE: h.flags */
#define NW_REPLY_OP_SEND 1
#define NW_REPLY_OP_ADDFD 2
#define NW_REPLY_OP_MASK 0x03

struct nw_fact_reply {
	struct nw_fact_hdr h;
	__u64 filter;
	__u64 id;
	__s64 val; /* SEND: resp.val */
	__s32 error; /* SEND: resp.error */
	__u32 flags; /* SEND: resp.flags; ADDFD: addfd.flags */
	__u32 newfd; /* ADDFD */
	__u32 cmd; /* the ioctl command as called */
};

struct nw_fact_reply_done {
	struct nw_fact_hdr h;
	__u64 filter;
	__u64 id;
	__s64 ret; /* the ioctl's return: 0, the fd installed, or -errno */
};

/* NW_FACT_SIGNAL: h.flags */
#define NW_SIG_GROUP 0x01 /* process-directed */
#define NW_SIG_MASKED 0x02 /* in the target's blocked mask */
#define NW_SIG_HAVE_KEY \
	0x04 /* filter/id: the target's knotif on its listener */
#define NW_SIG_FILTER_KILLABLE 0x08 /* HAVE_KEY: the listener's filter flag */

struct nw_fact_signal {
	struct nw_fact_hdr h; /* the sender */
	__u32 target_tid; /* signal_generate's task */
	__u32 target_tgid;
	__u32 sig;
	__s32 result; /* TRACE_SIGNAL_* */
	__u64 filter;
	__u64 id;
	__s32 nr; /* HAVE_KEY: the knotif's syscall */
	__u32 pad;
};

/* NW_FACT_DELIVER: h.flags (0 in version 1: not known) */
#define NW_DELIVER_HANDLER 0x01 /* a handler runs (else default action) */
#define NW_DELIVER_IGNORED 0x02 /* SIG_IGN */

struct nw_fact_deliver {
	struct nw_fact_hdr h; /* the thread taking it */
	__u32 sig;
	__u32 sa_flags; /* its handler's, e.g. SA_RESTART */
};

/*
 * NW_FACT_FROZEN: the thread, its wait just ended by -ERESTARTSYS, went to
 * sleep in the freezer before its next syscall: the freezer's fake signal
 * (a pending flag with no signal queued) was what interrupted it.
 */
#define NW_FROZEN_REFRIGERATOR 1 /* __refrigerator: system or cgroup v1 */
#define NW_FROZEN_CGROUP2 2 /* cgroup v2 cgroup.freeze (task->frozen) */

struct nw_fact_frozen {
	struct nw_fact_hdr h;
	__u32 how; /* NW_FROZEN_* */
	__u32 pad;
};

/*
 * NW_FACT_SWITCH: a context switch of a watched thread, emitted in the
 * switching CPU's current (prev) context; tid names the watched one.
 * Watched: a target whose wait just ended with a signal pending, until the
 * delivery or its next syscall (only its runnable switch-outs: the
 * scheduler's share of the signal's wait, --check-bound's pending_split);
 * a supervisor thread, from its first RECV's return or reply on, every
 * switch (handle_split, queue_split; version 3: only while it held a
 * notification, from its RECV's return to its next RECV, SEND or
 * ADDFD+SEND).
 */
#define NW_SWITCH_OUT 0x01 /* tid was switched out */
#define NW_SWITCH_IN 0x02 /* tid was switched in */
#define NW_SWITCH_RUNNABLE 0x04 /* OUT: runnable (preempted), else asleep */
/* OUT asleep in NOTIF_RECV or a poll, select or epoll wait: receiving */
#define NW_SWITCH_WAITING 0x08
#define NW_SWITCH_EXIT 0x10 /* the supervisor thread exits: no more */

struct nw_fact_switch {
	struct nw_fact_hdr h;
	__u32 tid;
	__u32 pad;
};

/*
 * NW_FACT_STACK: right after a supervisor thread's asleep SWITCH OUT (not
 * a receiving one), with --supervisor-stacks: the ids of its kernel
 * and user stacks in the object's stack map, or -errno where
 * bpf_get_stackid() failed (counted in lost_stacks).
 */
#define NW_STACK_DEPTH 127 /* frames kept: the kernel's default maximum */
#define NW_STACK_ENTRIES 4096 /* distinct stacks: 4 MiB of map */

struct nw_fact_stack {
	struct nw_fact_hdr h;
	__s32 kstack;
	__s32 ustack;
};

/* Counters the reporter reads from the BPF object's .bss. */
struct nw_fact_counters {
	__u64 lost_facts; /* ring buffer full */
	/* a listener walk gave up (bpf_loop's bound) before finding the knotif */
	__u64 walk_exhausted;
	/* --supervisor-stacks: a stack not taken (map full, a fault) */
	__u64 lost_stacks;
};

/* The size of a fact of this kind, 0 for an unknown kind. */
static inline unsigned int nw_fact_size(unsigned int kind)
{
	switch (kind) {
	case NW_FACT_TASK:
		return sizeof(struct nw_fact_task);
	case NW_FACT_WAIT:
		return sizeof(struct nw_fact_wait);
	case NW_FACT_RETURN:
		return sizeof(struct nw_fact_return);
	case NW_FACT_RECV:
		return sizeof(struct nw_fact_recv);
	case NW_FACT_REPLY:
		return sizeof(struct nw_fact_reply);
	case NW_FACT_REPLY_DONE:
		return sizeof(struct nw_fact_reply_done);
	case NW_FACT_SIGNAL:
		return sizeof(struct nw_fact_signal);
	case NW_FACT_DELIVER:
		return sizeof(struct nw_fact_deliver);
	case NW_FACT_FROZEN:
		return sizeof(struct nw_fact_frozen);
	case NW_FACT_SWITCH:
		return sizeof(struct nw_fact_switch);
	case NW_FACT_STACK:
		return sizeof(struct nw_fact_stack);
	}
	return 0;
}

#endif /* NOTIFWAIT_FACTS_H */
