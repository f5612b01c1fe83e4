/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Listener walks at any depth, for facts.bpf.c: a listener's list holds one
 * entry per waiting thread, so it can be 10,000 long. A few plain steps
 * first (the answer is almost always at the end the walk starts from, and
 * that path must not depend on bpf_loop), then bpf_loop up to
 * NW_WALK_LOOP_STEPS. The list is read without notify_lock: a match counts
 * only with the right task (or id) and a sane state.
 */
#ifndef WALK_FACTS_BPF_H
#define WALK_FACTS_BPF_H

#define NW_WALK_FAST_STEPS 16
#define NW_WALK_LOOP_STEPS 65536
#define NW_WALK_RESTARTS 4
#define NW_KNOTIF_STATE_MAX 2 /* SECCOMP_NOTIFY_REPLIED */

struct nw_fact_counters counters = {};

/*
 * A knotif copied with one probe read: its fields are read at their CO-RE
 * offsets inside the copy. Room for fields a kernel may add (the seed
 * series' wait_killable).
 */
union nw_knotif_copy {
	struct seccomp_knotif k;
	char raw[128];
};

struct nw_walk {
	__u64 head; /* &notif->notifications */
	__u64 pos; /* the list_head to look at next */
	__u64 task; /* search by task (from the tail) if set, else by id */
	__u64 id;
	__u64 found; /* the knotif's address, and what the facts need of it: */
	__u64 found_id;
	__u64 found_task;
	__u64 found_data;
	__u32 restarts;
	__u8 found_seed;
	__u8 done; /* reached the head again: not listed */
};

/* Poisoned by a list_del under the walk (LIST_POISON*), or a failed read. */
static __always_inline bool walk_kernel_addr(__u64 p)
{
	return p >= 0xffff800000000000ULL;
}

static __always_inline int knotif_copy(union nw_knotif_copy *c, __u64 kn)
{
	__u32 size = bpf_core_type_size(struct seccomp_knotif);

	if (size > sizeof(*c))
		size = sizeof(*c);
	return bpf_probe_read_kernel(c, size, (void *)kn);
}

static __always_inline __u64 walk_first(struct nw_walk *w)
{
	struct list_head *h = (struct list_head *)w->head;

	return w->task ? (__u64)BPF_CORE_READ(h, prev) :
			 (__u64)BPF_CORE_READ(h, next);
}

/*
 * One entry; 1: stop (found, done or given up). The plain steps leave a
 * restart to bpf_loop: counting restarts there would multiply the
 * verifier's states.
 */
static __always_inline int walk_step(struct nw_walk *w, bool plain)
{
	__u64 kn = w->pos - bpf_core_field_offset(struct seccomp_knotif, list);
	union nw_knotif_copy copy, *c = &copy;

	if (w->pos == w->head) {
		w->done = 1;
		return 1;
	}
	if (!walk_kernel_addr(w->pos) || knotif_copy(c, kn)) {
		/* an entry deleted under us leads nowhere: start again */
		if (plain) {
			w->pos = 0;
			return 1;
		}
		if (++w->restarts > NW_WALK_RESTARTS)
			return 1;
		w->pos = walk_first(w);
		return 0;
	}
	if (c->k.state <= NW_KNOTIF_STATE_MAX &&
	    (w->task ? (__u64)c->k.task == w->task : c->k.id == w->id)) {
		w->found = kn;
		w->found_id = c->k.id;
		w->found_task = (__u64)c->k.task;
		w->found_data = (__u64)c->k.data;
		w->found_seed = 0;
		if (bpf_core_field_exists(
			    ((struct seccomp_knotif___seed *)0)->wait_killable))
			w->found_seed = ((struct seccomp_knotif___seed *)c)
						->wait_killable;
		return 1;
	}
	w->pos = w->task ? (__u64)c->k.list.prev : (__u64)c->k.list.next;
	return 0;
}

static long walk_loop_cb(__u64 i, void *ctx)
{
	return walk_step(ctx, false);
}

/*
 * One listener's list: by task from the tail (a target that just queued is
 * the newest), by id from the head (RECV takes the oldest). Returns the
 * knotif's address (what facts need of it in w->found_*) or 0.
 */
static __always_inline __u64 listener_walk(struct nw_walk *w,
					   struct notification *notif,
					   __u64 task, __u64 id)
{
	int i;

	w->head = (__u64)&notif->notifications;
	w->task = task;
	w->id = id;
	w->found = 0;
	w->done = 0;
	w->restarts = 0;
	w->pos = walk_first(w);
	for (i = 0; i < NW_WALK_FAST_STEPS; i++)
		if (walk_step(w, true))
			break;
	if (w->found || w->done)
		goto out;
	bpf_loop(NW_WALK_LOOP_STEPS, walk_loop_cb, w, 0);
out:
	if (!w->found && !w->done)
		__sync_fetch_and_add(&counters.walk_exhausted, 1);
	return w->found;
}

/* What a fact says of the knotif a walk found. */
static __always_inline void view_of_walk(struct seccomp_filter *filter,
					 struct nw_walk *w,
					 struct nw_knotif_view *v)
{
	__u32 nr_arch[2] = {};

	v->filter = (__u64)filter;
	v->kn = w->found;
	v->id = w->found_id;
	v->task = (void *)w->found_task;
	/* struct seccomp_data is uapi: nr, then arch */
	bpf_probe_read_kernel(nr_arch, sizeof(nr_arch), (void *)w->found_data);
	v->nr = nr_arch[0];
	v->arch = nr_arch[1];
	v->filter_killable = filter->wait_killable_recv;
	v->seed_killable = w->found_seed;
}

/*
 * Which of the NW_QUEUED_IDS ids below @next_id are still on the listener's
 * list, bit i for id next_id - 1 - i: at an aborted wait's unseen exit they
 * are other threads' notifications, not the exiting one's. The list is in
 * id order, so the walk from the tail stops at the first older id.
 */
#define NW_QUEUED_IDS 32
static __always_inline __u32 queued_below(struct notification *notif,
					  __u64 next_id)
{
	__u64 head = (__u64)&notif->notifications, pos, id;
	__u64 off = bpf_core_field_offset(struct seccomp_knotif, list);
	__u32 mask = 0;
	int i;

	pos = (__u64)BPF_CORE_READ(notif, notifications.prev);
	for (i = 0; i < NW_QUEUED_IDS + 4; i++) {
		if (pos == head || !walk_kernel_addr(pos))
			break;
		id = BPF_CORE_READ((struct seccomp_knotif *)(pos - off), id);
		if (id < next_id) {
			if (next_id - id > NW_QUEUED_IDS)
				break;
			mask |= 1U << (next_id - 1 - id);
		}
		pos = (__u64)BPF_CORE_READ((struct list_head *)pos, prev);
	}
	return mask;
}

/* The newest filter of @task that has a listener, or NULL. */
static __always_inline struct seccomp_filter *
listener_filter(struct task_struct *task)
{
	struct seccomp_filter *filter = task->seccomp.filter;
	int depth;

	for (depth = 0; depth < NW_MAX_FILTER_DEPTH && filter; depth++) {
		if (filter->notif)
			return filter;
		filter = filter->prev;
	}
	return NULL;
}

/* The notification @task waits on, on any of its filters' listeners. */
static __always_inline bool task_find_knotif_deep(struct task_struct *task,
						  struct nw_knotif_view *v)
{
	struct seccomp_filter *filter = task->seccomp.filter;
	struct notification *notif;
	struct nw_walk w;
	__u64 kn;
	int depth;

	for (depth = 0; depth < NW_MAX_FILTER_DEPTH && filter; depth++) {
		notif = filter->notif;
		if (notif) {
			kn = listener_walk(&w, notif, (__u64)task, 0);
			if (kn) {
				view_of_walk(filter, &w, v);
				return true;
			}
		}
		filter = filter->prev;
	}
	return false;
}

#endif /* WALK_FACTS_BPF_H */
