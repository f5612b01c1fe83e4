/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A supervisor thread's recent context switches (SWITCH and STACK facts),
 * and the split of a span of its time into running, runnable and blocked
 * by them: handle_split for the RECV thread and for a worker that replies
 * what another thread received. Plain data, no allocation.
 */
#ifndef NW_SUP_HISTORY_H
#define NW_SUP_HISTORY_H

#include <linux/types.h>
#include <stdbool.h>

/* Switches kept per thread: a handling with more is not split. */
#define NW_SUP_HISTORY 256

enum sup_switch_what {
	SUP_IN, /* it got a CPU */
	SUP_OUT_RUNNABLE, /* preempted: off the CPU, still runnable */
	SUP_OUT_BLOCKED, /* asleep */
};

struct sup_switch {
	__u64 t_ns;
	__s32 kstack, ustack; /* stack map ids, when have_stack */
	__u8 what; /* enum sup_switch_what */
	bool have_stack;
};

struct sup_history {
	struct sup_switch ring[NW_SUP_HISTORY];
	__u64 pushed; /* ever: the ring holds the newest NW_SUP_HISTORY */
};

struct sup_split {
	__u64 running_ns, runnable_ns, blocked_ns;
};

/* A blocked interval inside the split span, with the stacks it slept in. */
typedef void (*sup_blocked_fn)(void *ctx, const struct sup_switch *out,
			       __u64 weight_ns);

/* In time order, whatever order the switches come in. */
void sup_history_push(struct sup_history *h, __u64 t_ns, __u8 what);
/* The stacks of a recent OUT asleep at @t_ns; else ignored. */
void sup_history_stack(struct sup_history *h, __u64 t_ns, __s32 kstack,
		       __s32 ustack);

enum sup_split_result {
	SUP_SPLIT_OK,
	/* @from before @known_since, or its switches no longer all kept */
	SUP_SPLIT_UNKNOWN,
	/*
	 * two INs or two OUTs in a row inside the span: a switch between
	 * them never came (a fact lost, a probe run missed, or a switch
	 * the kernel did not trace)
	 */
	SUP_SPLIT_GAP,
};

/*
 * Split [@from, @to] of a thread that was on a CPU at @known_since (its
 * first RECV or reply, from which on every switch of it is a fact) and at
 * @to; *@out only on SUP_SPLIT_OK. @blocked (may be NULL) is called for
 * each blocked interval that has stacks, clipped to the span.
 */
enum sup_split_result sup_history_split(const struct sup_history *h,
					__u64 known_since, __u64 from, __u64 to,
					struct sup_split *out,
					sup_blocked_fn blocked, void *ctx);

#endif /* NW_SUP_HISTORY_H */
