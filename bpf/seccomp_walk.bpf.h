/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Finding a task's pending seccomp notification from outside
 * seccomp_do_user_notification(): walk task->seccomp.filter->prev to the
 * filters that have a listener, then the listener's list of notifications.
 * Everything is read with CO-RE probe reads so the same object runs on the
 * 6.18 host and on 6.1.
 */
#ifndef SECCOMP_WALK_BPF_H
#define SECCOMP_WALK_BPF_H

#define NW_MAX_FILTER_DEPTH 8
#define NW_MAX_PENDING_PER_LISTENER 64
#define NW_SECCOMP_MODE_FILTER 2

/* The seed series adds knotif->wait_killable; upstream does not have it. */
struct seccomp_knotif___seed {
	bool wait_killable;
} __attribute__((preserve_access_index));

struct nw_knotif_view {
	__u64 filter;
	__u64 id;
	__u64 kn; /* the knotif's address, on the target's stack */
	struct task_struct *task;
	__u32 state;
	int nr;
	__u32 arch;
	__u8 filter_killable;
	__u8 seed_killable;
};

static __always_inline void read_knotif(__u64 filter, __u64 kn_addr,
					struct nw_knotif_view *v)
{
	struct seccomp_knotif *kn = (void *)kn_addr;
	const struct seccomp_data *sd;

	v->filter = filter;
	v->kn = kn_addr;
	v->id = BPF_CORE_READ(kn, id);
	v->task = BPF_CORE_READ(kn, task);
	v->state = BPF_CORE_READ(kn, state);
	sd = BPF_CORE_READ(kn, data);
	v->nr = BPF_CORE_READ(sd, nr);
	v->arch = BPF_CORE_READ(sd, arch);
	v->filter_killable = BPF_CORE_READ((struct seccomp_filter *)filter,
					   wait_killable_recv);
	v->seed_killable = 0;
	if (bpf_core_field_exists(
		    ((struct seccomp_knotif___seed *)0)->wait_killable))
		v->seed_killable =
			BPF_CORE_READ((struct seccomp_knotif___seed *)kn,
				      wait_killable);
}

/*
 * Search one listener's list for a notification, by task (match_task != 0)
 * or by id. Returns the knotif's address or 0.
 */
static __always_inline __u64 listener_find(struct seccomp_filter *filter,
					   __u64 match_task, __u64 match_id)
{
	struct notification *notif = BPF_CORE_READ(filter, notif);
	__u64 head, pos, off, kn;
	int i;

	if (!notif)
		return 0;
	head = (__u64)&notif->notifications;
	pos = (__u64)BPF_CORE_READ(notif, notifications.next);
	off = bpf_core_field_offset(struct seccomp_knotif, list);
	for (i = 0; i < NW_MAX_PENDING_PER_LISTENER; i++) {
		if (!pos || pos == head)
			return 0;
		kn = pos - off;
		if (match_task) {
			if ((__u64)BPF_CORE_READ((struct seccomp_knotif *)kn,
						 task) == match_task)
				return kn;
		} else if (BPF_CORE_READ((struct seccomp_knotif *)kn, id) ==
			   match_id) {
			return kn;
		}
		pos = (__u64)BPF_CORE_READ((struct list_head *)pos, next);
	}
	return 0;
}

/* The notification @task is waiting on, if any. */
static __always_inline bool task_find_knotif(struct task_struct *task,
					     struct nw_knotif_view *v)
{
	struct seccomp_filter *filter = BPF_CORE_READ(task, seccomp.filter);
	__u64 kn;
	int depth;

	for (depth = 0; depth < NW_MAX_FILTER_DEPTH && filter; depth++) {
		kn = listener_find(filter, (__u64)task, 0);
		if (kn) {
			read_knotif((__u64)filter, kn, v);
			return true;
		}
		filter = BPF_CORE_READ(filter, prev);
	}
	return false;
}

/* The newest filter of @task that has a listener, or NULL. */
static __always_inline struct seccomp_filter *
task_listener_filter(struct task_struct *task)
{
	struct seccomp_filter *filter = BPF_CORE_READ(task, seccomp.filter);
	int depth;

	for (depth = 0; depth < NW_MAX_FILTER_DEPTH && filter; depth++) {
		if (BPF_CORE_READ(filter, notif))
			return filter;
		filter = BPF_CORE_READ(filter, prev);
	}
	return NULL;
}

/* Cheap test first: only tasks under a filter with a listener can wait. */
static __always_inline bool task_has_listener(struct task_struct *task)
{
	if (BPF_CORE_READ(task, seccomp.mode) != NW_SECCOMP_MODE_FILTER)
		return false;
	return task_listener_filter(task) != NULL;
}

/* The seccomp filter behind the listener fd @fd of the current task. */
static __always_inline __u64 listener_of_fd(int fd)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct fdtable *fdt = BPF_CORE_READ(task, files, fdt);
	struct file **fds, *file = NULL;

	if (fd < 0 || (unsigned int)fd >= BPF_CORE_READ(fdt, max_fds))
		return 0;
	fds = BPF_CORE_READ(fdt, fd);
	bpf_probe_read_kernel(&file, sizeof(file), &fds[fd]);
	if (!file)
		return 0;
	return (__u64)BPF_CORE_READ(file, private_data);
}

#endif /* SECCOMP_WALK_BPF_H */
