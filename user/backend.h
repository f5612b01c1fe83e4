/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A backend loads and attaches BPF programs that produce the records of
 * notifwait.h into a ring buffer. The stages after it do not know which one
 * runs; a new backend is a new backend_*.c.
 */
#ifndef NW_BACKEND_H
#define NW_BACKEND_H

#include <stdbool.h>
#include <sys/types.h>
#include "notifwait.h"

struct backend_config {
	pid_t target_tgid; /* 0: any */
	int syscall_nr; /* -1: any */
	bool trace_descendants; /* only targets in the traced set */
	unsigned int max_knotifs;
};

typedef void (*pending_fn)(const struct nw_knotif_event *e, void *ctx);

struct backend {
	const char *name;
	char reason[160]; /* why this backend runs */
	void *impl;
};

/* Loads and attaches; on failure prints one line and returns -errno. */
int backend_tracepoint_start(struct backend *b,
			     const struct backend_config *cfg);
int backend_records_fd(struct backend *b);
/* Adds a process to the traced set (with its later descendants). */
int backend_trace_tgid(struct backend *b, pid_t tgid);
void backend_counters(struct backend *b, struct nw_counters *out);
/* Calls @fn for every notification still waiting. */
void backend_for_each_pending(struct backend *b, pending_fn fn, void *ctx);
void backend_stop(struct backend *b);

#endif /* NW_BACKEND_H */
