/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The supervisor's side: its NOTIF_RECV, NOTIF_SEND and NOTIF_ADDFD
 * ioctls, seen at entry and exit (from the syscall tracepoints or from
 * fentry/fexit on seccomp_notify_ioctl), folded into the notification state.
 */
#ifndef SUPERVISOR_IOCTL_BPF_H
#define SUPERVISOR_IOCTL_BPF_H

#include "knotif_state.bpf.h"

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
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, struct ioctl_inflight);
} inflight SEC(".maps");


/*
 * RECV returned a notification the walk missed: keep what it saw. Built
 * whole before it is inserted, so the target's side, which takes it when
 * it starts following the notification, never finds it half written.
 */
static __always_inline void remember_recv(struct nw_knotif_key *key,
					  struct seccomp_notif *unotif,
					  struct ioctl_inflight *io, __u64 now)
{
	struct task_struct *cur = bpf_get_current_task_btf();
	struct nw_recv_seen seen = {}, *r;

	seen.t_recv_ns = now;
	seen.supervisor_tgid = cur->tgid;
	seen.supervisor_seen_pid = unotif->pid;
	seen.recv_flag = !!(io->flags & NW_USER_NOTIF_FLAG_WAIT_KILLABLE);
	BPF_CORE_READ_STR_INTO(&seen.supervisor_comm, cur, comm);
	if (map_update(&recv_seen, key, &seen, BPF_NOEXIST) != -EEXIST)
		return;
	/* a reply from another thread was kept first: add the RECV to it */
	r = bpf_map_lookup_elem(&recv_seen, key);
	if (!r)
		return;
	r->supervisor_tgid = seen.supervisor_tgid;
	r->supervisor_seen_pid = seen.supervisor_seen_pid;
	r->recv_flag = seen.recv_flag;
	__builtin_memcpy(r->supervisor_comm, seen.supervisor_comm, NW_COMM_LEN);
	r->t_recv_ns = now;
}

static __always_inline void recv_late(struct nw_knotif_key *key,
				      struct seccomp_notif *unotif,
				      struct ioctl_inflight *io, __u64 now)
{
	struct task_struct *cur = bpf_get_current_task_btf();
	struct nw_recv_late_event r = {};

	r.kind = NW_REC_RECV_LATE;
	r.supervisor_tgid = cur->tgid;
	r.key = *key;
	r.t_recv_ns = now;
	r.supervisor_seen_pid = unotif->pid;
	r.recv_flag = !!(io->flags & NW_USER_NOTIF_FLAG_WAIT_KILLABLE);
	BPF_CORE_READ_STR_INTO(&r.supervisor_comm, cur, comm);
	emit(&r, sizeof(r));
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
		/*
		 * The target never slept or woke anyone before RECV. Under
		 * bracket_traced its first sleep creates the entry: keep
		 * the RECV for it (kn 0) instead of walking the list.
		 */
		kn = 0;
		if (!bracket_traced)
			kn = listener_find((struct seccomp_filter *)key.filter,
					   0, key.id);
		if (!kn && !bracket_traced) /* a walk torn by a list_del */
			kn = listener_find((struct seccomp_filter *)key.filter,
					   0, key.id);
		if (!kn && bpf_map_lookup_elem(&ended, &key)) {
			/* interrupted before this RECV returned: it still counts */
			recv_late(&key, &unotif, io, now);
			return;
		}
		if (!kn) {
			remember_recv(&key, &unotif, io, now);
			full_barrier();
			/*
			 * The target's side may have started meanwhile, and
			 * taken what was kept before this RECV was added to
			 * it: written into the entry as well.
			 */
			e = bpf_map_lookup_elem(&knotifs, &key);
			if (!e)
				return;
			take_recv_seen(e);
			goto found;
		}
		read_knotif(key.filter, kn, &v);
		if (!target_wanted(v.task, v.nr,
				   filter_traced && is_traced(cur->tgid)))
			return;
		e = track_knotif(&v, NW_SEEN_RECV, now);
		if (!e) {
			/* over before the walk was done with it */
			if (bpf_map_lookup_elem(&ended, &key))
				recv_late(&key, &unotif, io, now);
			return;
		}
	}
found:
	e->t_recv_ns = now;
	/* the target's side may have filled the entry after this RECV returned */
	recv_before_notify(e, now);
	e->supervisor_tgid = cur->tgid;
	e->supervisor_seen_pid = unotif.pid;
	BPF_CORE_READ_STR_INTO(&e->supervisor_comm, cur, comm);
	if (io->flags & NW_USER_NOTIF_FLAG_WAIT_KILLABLE) {
		/* seed: RECV completes ->ready so the target re-sleeps killable */
		e->recv_flag = 1;
		e->wake_cause = NW_CAUSE_RECV;
	}
	/* the target returned meanwhile: its record may be copied already */
	if (bpf_map_lookup_elem(&ended, &key))
		recv_late(&key, &unotif, io, now);
}

static __always_inline void note_reply(struct ioctl_inflight *io, __u8 kind,
				       __s64 val, __s32 error)
{
	struct nw_knotif_event *e = bpf_map_lookup_elem(&knotifs, &io->key);
	struct nw_recv_seen seen = {}, *r;

	if (!e) {
		/* the target's side may start following it only now */
		seen.t_reply_ns = io->t_enter_ns;
		seen.reply_kind = kind;
		seen.reply_val = val;
		seen.reply_error = error;
		if (map_update(&recv_seen, &io->key, &seen, BPF_NOEXIST) ==
		    -EEXIST) {
			/* kept with its RECV: the reply goes beside it */
			r = bpf_map_lookup_elem(&recv_seen, &io->key);
			if (!r)
				return;
			r->t_reply_ns = seen.t_reply_ns;
			r->reply_val = val;
			r->reply_error = error;
			r->reply_kind = kind;
		}
		full_barrier();
		/* the target's side may have started meanwhile (see on_recv_exit) */
		e = bpf_map_lookup_elem(&knotifs, &io->key);
		if (!e)
			return;
		take_recv_seen(e);
	}
	e->t_reply_ns = io->t_enter_ns;
	e->reply_kind = kind;
	e->reply_val = val;
	e->reply_error = error;
	io->set_reply = 1;
}

/* Entry of a NOTIF_* ioctl on the listener of @filter. */
static __always_inline void ioctl_enter(__u64 filter, __u32 cmd, __u64 uptr)
{
	struct ioctl_inflight io = {};
	struct seccomp_notif_resp resp;
	struct seccomp_notif_addfd addfd;
	struct nw_knotif_event *e;
	__u32 tid, in_flags = 0;
	__u8 kind;

	if (NW_IOCTL_IS_ADDFD(cmd))
		cmd = NW_IOCTL_NOTIF_ADDFD; /* one name for every size */
	if (cmd != NW_IOCTL_NOTIF_RECV && cmd != NW_IOCTL_NOTIF_SEND &&
	    cmd != NW_IOCTL_NOTIF_ADDFD)
		return;
	if (!filter)
		return;
	io.cmd = cmd;
	io.key.filter = filter;
	io.uptr = uptr;
	io.t_enter_ns = bpf_ktime_get_ns();

	if (io.cmd == NW_IOCTL_NOTIF_RECV) {
		bpf_probe_read_user(&in_flags, sizeof(in_flags),
				    (void *)io.uptr +
					    offsetof(struct seccomp_notif, flags));
		io.flags = in_flags;
	} else if (io.cmd == NW_IOCTL_NOTIF_SEND) {
		if (bpf_probe_read_user(&resp, sizeof(resp), (void *)io.uptr))
			return;
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
			return;
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

/* Exit of the current task's NOTIF_* ioctl, if one is in flight. */
static __always_inline void ioctl_leave(long ret)
{
	__u32 tid = bpf_get_current_pid_tgid();
	struct ioctl_inflight *io = bpf_map_lookup_elem(&inflight, &tid);

	if (!io)
		return;
	on_ioctl_exit(io, ret, bpf_ktime_get_ns());
	bpf_map_delete_elem(&inflight, &tid);
}

#endif /* SUPERVISOR_IOCTL_BPF_H */
