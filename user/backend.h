/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A backend loads and attaches the BPF programs that emit facts
 * (bpf/facts.h) into a ring buffer for the joiner. The stages after it do
 * not know which one runs. All programs live in one BPF object; a backend
 * variant (backend_*.c) says which of them to load and whether this kernel
 * can.
 */
#ifndef NW_BACKEND_H
#define NW_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <linux/types.h>
#include "notifwait.h"

struct btf;
struct facts_bpf;
struct bpf_program;

struct backend_config {
	pid_t target_tgid; /* 0: any */
	int syscall_nr; /* -1: any */
	bool trace_descendants; /* only targets in the traced set */
	unsigned int ringbuf_bytes; /* 0: the object's default */
	bool want_stacks; /* --supervisor-stacks: STACK facts, a stack map */
};

struct backend_variant {
	const char *name; /* what --backend calls it */
	const char *label; /* in messages: name and how */
	/* its programs in bpf/facts.bpf.c, besides the common ones; NULL ends */
	const char *const *progs;
	/* fentry programs loaded only when the kernel's BTF has their target */
	const char *const *optional_progs;
	/* 0 when @vmlinux has what it needs; else -errno and why */
	int (*probe)(struct btf *vmlinux, char *why, size_t len);
	/* What it attaches to, for the header. */
	void (*describe)(char *what, size_t len);
	/* Optional: attaches what the skeleton cannot (kprobes by symbol). */
	int (*attach)(struct facts_bpf *skel, char *why, size_t len);
};

extern const struct backend_variant backend_fentry;
extern const struct backend_variant backend_fentry_caller;
extern const struct backend_variant backend_kprobe;
extern const struct backend_variant backend_tracepoint;

struct backend {
	const char *name;
	char reason[640]; /* what it attaches to, and why the others were not */
	struct facts_bpf *facts; /* its ring buffer feeds the joiner */
};

/*
 * Starts @requested ("auto": the most precise that loads and attaches).
 * On failure prints one line and returns -errno.
 */
int backend_start(struct backend *b, const struct backend_config *cfg,
		  const char *requested);
int backend_records_fd(struct backend *b);
/* Adds a process to the traced set (with its later descendants). */
int backend_trace_tgid(struct backend *b, pid_t tgid);
void backend_counters(struct backend *b, struct nw_counters *out);
/* --supervisor-stacks: stack map @id into @ips (@size bytes); 0 or -1, errno */
int backend_stack_lookup(struct backend *b, __s32 id, __u64 *ips,
			 size_t size);
void backend_stop(struct backend *b);

/* backend_facts.c: the facts object. */
int backend_facts_try(struct backend *b, const struct backend_variant *v,
		      const struct backend_config *cfg, struct btf *vmlinux,
		      char *why, size_t len);
int backend_facts_records_fd(struct backend *b);
int backend_facts_trace_tgid(struct backend *b, pid_t tgid);
void backend_facts_counters(struct backend *b, struct nw_counters *out);
void backend_facts_stop(struct backend *b);

/* " (needs root ...)": why bpf() may have said @err (positive errno). */
const char *backend_hint(int err);
/* Runs the kernel skipped: the program was already active on that CPU. */
__u64 backend_prog_misses(const struct bpf_program *p);

/* For the variants' probes. */
bool backend_has_func(struct btf *vmlinux, const char *func);

#endif /* NW_BACKEND_H */
