/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the facts need of a seccomp notification (struct seccomp_knotif),
 * whichever kernel: the walks that find one are in walk_facts.bpf.h. The
 * same CO-RE object runs on the 6.18 host and on 6.1 (seed or vanilla).
 */
#ifndef KNOTIF_VIEW_BPF_H
#define KNOTIF_VIEW_BPF_H

#define NW_MAX_FILTER_DEPTH 8
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

#endif /* KNOTIF_VIEW_BPF_H */
