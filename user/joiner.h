/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The joiner: facts (bpf/facts.h) in, notification records (struct knotif)
 * out. Single-threaded and deterministic: the same sequence of
 * joiner_feed() and joiner_tick() calls gives the same records, live or
 * replayed from a recording. It knows nothing of libbpf.
 *
 * Facts arrive in ring-buffer order; the joiner holds them for a reorder
 * window and applies them in t_ns order. Every attribution rule lives
 * here (docs/joiner.md lists them with their tests).
 */
#ifndef NW_JOINER_H
#define NW_JOINER_H

#include <stddef.h>
#include <linux/types.h>
#include "knotif.h"

/* How long a fact is held before it is applied (ns of CLOCK_MONOTONIC). */
#define NW_REORDER_NS (20ULL * 1000 * 1000)

typedef void (*joiner_knotif_fn)(struct knotif *k, void *ctx);
typedef void (*joiner_reply_failed_fn)(const struct nw_reply_failed_event *r,
				       void *ctx);
/*
 * A supervisor thread slept @weight_ns in these stacks (ids in BPF's stack
 * map, or -errno) while it held a notification, from STACK facts.
 */
typedef void (*joiner_stack_fn)(__u32 tgid, __u32 tid, const char *comm,
				__s32 kstack, __s32 ustack, __u64 weight_ns,
				void *ctx);

struct joiner_config {
	unsigned int max_knotifs; /* notifications followed at once; 0: 10240 */
	__u64 reorder_ns; /* 0: NW_REORDER_NS */
	joiner_knotif_fn knotif; /* a finished (or, at the end, pending) record */
	joiner_reply_failed_fn reply_failed; /* a SEND or ADDFD that failed */
	joiner_stack_fn stack; /* NULL: stacks are not wanted */
	void *ctx;
};

struct joiner_counters {
	unsigned long long facts; /* accepted */
	unsigned long long malformed; /* unknown kind or wrong size */
	/* arrived after facts later than it were applied */
	unsigned long long late;
	unsigned long long no_memory;
	unsigned long long dropped_knotifs; /* over max_knotifs at once */
	unsigned long long dropped_signals; /* over NW_MAX_SIGNALS in one wait */
	/* a wait whose notification was not found */
	unsigned long long unidentified;
	/* handle_splits refused: a supervisor thread's switch never came */
	unsigned long long switch_gaps;
};

struct joiner;

struct joiner *joiner_new(const struct joiner_config *cfg);
void joiner_free(struct joiner *j);
/* One fact as BPF wrote it. -EINVAL: not a fact (counted as malformed). */
int joiner_feed(struct joiner *j, const void *fact, size_t size);
/* The reporter's clock moved to @now_ns: apply what is old enough, settle. */
void joiner_tick(struct joiner *j, __u64 now_ns);
/* Tracing ended: apply everything; waits still open are reported pending. */
void joiner_finish(struct joiner *j);
void joiner_counters(const struct joiner *j, struct joiner_counters *out);

#endif /* NW_JOINER_H */
