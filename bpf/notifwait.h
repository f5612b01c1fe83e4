/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The records the joiner (user/joiner.c) builds from the facts (facts.h):
 * one struct nw_knotif_event per notification, with its addfd results and
 * failed replies as records of their own; and the constants of the
 * kernel's seccomp uapi both sides use.
 */
#ifndef NOTIFWAIT_H
#define NOTIFWAIT_H

#define NW_COMM_LEN 16
#define NW_MAX_SIGNALS 16

/* The supervisor's ioctls (include/uapi/linux/seccomp.h, x86_64 values). */
#define NW_IOCTL_NOTIF_RECV 0xc0502100U
#define NW_IOCTL_NOTIF_SEND 0xc0182101U
#define NW_IOCTL_NOTIF_ID_VALID 0x40082102U
#define NW_IOCTL_NOTIF_ADDFD 0x40182103U
/*
 * ADDFD is an extensible-argument ioctl: the kernel matches it by type and
 * number only (EA_IOCTL in seccomp_notify_ioctl), so any size >= 24 bytes
 * and any direction bits are the same command.
 */
#define NW_IOCTL_EA_MASK 0x0000ffffU
#define NW_IOCTL_IS_ADDFD(cmd) \
	(((cmd)&NW_IOCTL_EA_MASK) == (NW_IOCTL_NOTIF_ADDFD & NW_IOCTL_EA_MASK))

#define NW_USER_NOTIF_FLAG_CONTINUE 1U
/* The seed series' RECV flag (bit 0 of struct seccomp_notif.flags). */
#define NW_USER_NOTIF_FLAG_WAIT_KILLABLE 1U
#define NW_ADDFD_FLAG_SETFD 1U
#define NW_ADDFD_FLAG_SEND 2U
#define NW_AUDIT_ARCH_X86_64 0xc000003eU

enum nw_record_kind {
	NW_REC_KNOTIF = 1, /* a notification ended (target returned) */
	NW_REC_ADDFD = 3, /* a supervisor's NOTIF_ADDFD returned */
	NW_REC_REPLY_FAILED, /* a supervisor's NOTIF_SEND failed */
};

/* Where the tracer first saw the notification. */
enum nw_notify_source {
	NW_SEEN_NONE = 0,
	NW_SEEN_WAKEUP, /* target woke the supervisor right after queueing it */
	NW_SEEN_SLEEP, /* target went to sleep waiting for it */
	NW_SEEN_RECV, /* only the supervisor's RECV showed it */
	NW_SEEN_ENTRY, /* fentry: the target entered the notification path */
	NW_SEEN_SIGNAL, /* a signal was sent to it */
	NW_SEEN_EXIT, /* only its syscall's exit: aborted before anyone saw it */
};

enum nw_wake_cause {
	NW_CAUSE_NONE = 0,
	NW_CAUSE_RECV,
	NW_CAUSE_SIGNAL,
	NW_CAUSE_ADDFD,
};

enum nw_reply_kind {
	NW_REPLY_NONE = 0,
	NW_REPLY_VALUE,
	NW_REPLY_ERROR,
	NW_REPLY_CONTINUE,
	NW_REPLY_ADDFD_SEND,
};

/* A listener's notifications are numbered per filter: the pair is unique. */
struct nw_knotif_key {
	__u64 filter;
	__u64 id;
};

struct nw_signal {
	__u64 t_sent_ns; /* written last: a slot without it is not filled in */
	__u32 sig;
	__u32 sender_tgid;
	__s32 result; /* signal_generate's TRACE_SIGNAL_* */
	__u8 after_recv;
	__u8 in_killable_sleep;
	__u8 masked; /* in the target's blocked mask when sent */
	__u8 before_wait; /* pending before the wait began: no send time */
	/*
	 * Its sender's program ran only after the wait had ended (the target,
	 * woken by it, returned first): queued before the return, seen later.
	 */
	__u8 seen_after_return;
	__u8 pad[7];
};

struct nw_knotif_event {
	__u32 kind; /* NW_REC_KNOTIF */
	__u32 target_tgid;
	struct nw_knotif_key key;
	__u64 t_notify_ns;
	__u64 t_recv_ns;
	__u64 t_killable_ns;
	__u64 t_reply_ns;
	__u64 t_return_ns;
	__s64 ret;
	__s64 reply_val;
	__s32 reply_error;
	__u32 target_tid;
	__u32 target_vtid; /* the target's tid in its own pid namespace */
	__u32 supervisor_tgid;
	__u32 supervisor_seen_pid; /* what RECV told the supervisor */
	__s32 nr;
	__u32 arch;
	__u32 interruptible_sleeps;
	__u32 killable_sleeps;
	__u32 nsignals; /* in signals[]; more are counted in signals_dropped */
	__u32 pad0;
	__u8 notify_source;
	__u8 killable_cause;
	__u8 wake_cause; /* the last wake-up, kept for killable_cause */
	__u8 reply_kind;
	__u8 filter_killable; /* SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV */
	__u8 recv_flag; /* seed RECV flag SECCOMP_USER_NOTIF_FLAG_WAIT_KILLABLE */
	__u8 fatal_pending; /* SIGKILL pending at return */
	__u8 exited; /* target exited without a sys_exit */
	__u8 signals_dropped;
	__u8 ret_unknown; /* CONTINUE under fentry: the syscall ran after */
	/*
	 * The wait aborted with no signal recorded: the lowest unblocked
	 * one pending then, guessed as sent before the wait (knotif.c turns
	 * it into a signal, or drops it when its sender's fact comes).
	 */
	__u8 prior_sig;
	__u8 pad[5];
	char comm[NW_COMM_LEN];
	char supervisor_comm[NW_COMM_LEN];
	struct nw_signal signals[NW_MAX_SIGNALS];
};

struct nw_addfd_event {
	__u32 kind; /* NW_REC_ADDFD */
	__u32 flags;
	struct nw_knotif_key key;
	__u64 t_enter_ns;
	__u64 t_exit_ns;
	__s64 ret; /* the fd installed, or -errno */
	__u32 supervisor_tgid;
	__u32 newfd;
};

struct nw_reply_failed_event {
	__u32 kind; /* NW_REC_REPLY_FAILED */
	__u32 supervisor_tgid;
	struct nw_knotif_key key;
	__u64 t_ns;
	__s64 ret; /* -errno */
	__u32 op; /* the ioctl command */
	__u32 pad;
};

/* What the run lost, for the lost record and the metrics. */
struct nw_counters {
	__u64 lost_records; /* facts: ring buffer full */
	__u64 dropped_knotifs; /* the joiner's --max-notifs reached */
	__u64 dropped_signals; /* more than NW_MAX_SIGNALS in one wait */
	/*
	 * Filled by the reporter, not by BPF: runs the kernel skipped because
	 * the same program was already active on that CPU (bpf_prog_info's
	 * recursion_misses; a preempted fentry program causes them).
	 */
	__u64 missed_runs;
	/*
	 * Filled by the reporter: waits whose notification the tracer could
	 * not identify (the joiner's unidentified count).
	 */
	__u64 unidentified;
	/* --supervisor-stacks: stacks BPF could not take (map full, a fault) */
	__u64 lost_stacks;
};

#endif /* NOTIFWAIT_H */
