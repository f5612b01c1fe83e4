/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Findings: conditions worth acting on, recognised in the finished
 * notifications (restart storms, waits lost behind a busy supervisor, EINTR
 * the program did not expect, lost replies, the freezer, signals deferred
 * past a budget), each with its evidence and one line of advice. Main feeds
 * it beside the statistics; the summary, JSON and Prometheus sinks read
 * findings_report(). Memory is bounded: a few examples and names per kind.
 */
#ifndef NW_FINDINGS_H
#define NW_FINDINGS_H

#include <stdbool.h>
#include "knotif.h"

#define NW_DEFAULT_RESTART_THRESHOLD 10
#define NW_FINDING_EXAMPLES 3
#define NW_FINDING_NAMES 8
#define NW_FINDING_NUMS 8
/* Threads whose syscall is restarting now, followed for restart_storm. */
#define NW_FINDING_CHAINS 1024

enum finding_kind {
	FINDING_RESTART_STORM,
	FINDING_INTERRUPTED_WHILE_QUEUED,
	FINDING_EINTR_TO_PROGRAM,
	FINDING_LOST_REPLY,
	FINDING_INTERRUPTED_BY_FREEZER,
	FINDING_SIGNAL_DELAY_OVER_BUDGET,
	FINDING_SUPERVISOR_STARVED,
	FINDING_SUPERVISOR_BLOCKED,
	FINDING_COUNT,
};

enum finding_severity {
	FINDING_INFO,
	FINDING_WARNING,
	FINDING_CRITICAL,
};

struct findings_config {
	unsigned int restart_threshold; /* 0: NW_DEFAULT_RESTART_THRESHOLD */
	__u64 budget_ns; /* --budget; 0: no signal_delay_over_budget */
};

/* A name (syscall, supervisor) and how often it took part. */
struct finding_name {
	char name[48];
	unsigned long long count;
	bool flag; /* eintr_to_program: the syscall never fails EINTR natively */
};

struct finding_names {
	struct finding_name v[NW_FINDING_NAMES];
	unsigned int n;
	unsigned long long others; /* counts of names past the table */
};

/* A notification that shows it, ranked by @rank (worst first). */
struct finding_example {
	__u64 id;
	__u64 rank;
};

/* One kind's accumulated state; findings_report() turns it into output. */
struct finding_acc {
	unsigned long long count;
	unsigned long long num[NW_FINDING_NUMS]; /* per kind, see findings.c */
	struct finding_example ex[NW_FINDING_EXAMPLES];
	unsigned int nex;
	struct finding_names syscalls, supervisors;
};

/* An interrupted notification already reported: its reply may fail later. */
struct finding_ended {
	struct nw_knotif_key key;
	enum nw_interrupt_cause cause;
	char syscall[32];
	char supervisor[48];
};

#define NW_FINDING_ENDED 256

/* supervisor_starved: runnable this share of its handle time, or more */
#define NW_STARVED_PERCENT 20
#define NW_STARVED_MIN_SPLITS 3

/* supervisor_blocked: asleep this share of its handle time, or more */
#define NW_BLOCKED_PERCENT 50

/* A supervisor's handle time by state: supervisor_starved and _blocked. */
struct finding_sup {
	char name[48];
	unsigned long long n, handle_ns, runnable_ns, blocked_ns;
};

/* A syscall that is restarting now, by thread. */
struct finding_chain {
	__u32 tid;
	__u64 start_ns; /* its first attempt's start: with tid, the chain */
	__u32 restarts;
	bool counted; /* already a restart_storm */
	bool killable; /* its filter or RECV has the killable rule */
	__u32 before_recv, after_recv; /* its restarts, by where they hit */
	__u64 last_id;
	char syscall[32];
	char supervisor[48];
};

struct findings {
	struct findings_config cfg;
	struct finding_acc acc[FINDING_COUNT];
	struct finding_chain chains[NW_FINDING_CHAINS];
	unsigned int nchains;
	/*
	 * Chains that ended lately: an attempt handed over after the chain's
	 * end (its supervisor's reply still in flight held it) is not a new one
	 */
	struct {
		__u32 tid;
		__u64 start_ns;
	} ended_chains[64];
	unsigned int ended_chains_next;
	unsigned long long chains_untracked; /* over NW_FINDING_CHAINS */
	char top_stack[1024]; /* supervisor_blocked: the heaviest stack */
	unsigned long long storms_killable; /* restart_storms under the flag */
	unsigned long long interrupted_unreceived; /* all, for the share */
	struct finding_ended ended[NW_FINDING_ENDED]; /* a ring */
	struct finding_sup sups[NW_FINDING_NAMES];
	unsigned int nsups;
	unsigned int ended_next;
	bool finished;
};

/* What one finding says: a fixed shape every sink can print. */
struct finding {
	enum finding_kind kind;
	enum finding_severity severity;
	unsigned long long count;
	struct {
		const char *key;
		unsigned long long v;
	} num[NW_FINDING_NUMS];
	unsigned int nnum;
	const struct finding_names *syscalls, *supervisors; /* or NULL */
	const char *syscalls_flag; /* the flag's key, or NULL */
	const struct finding_example *ex;
	unsigned int nex;
	const char *advice;
	const char *top_stack; /* supervisor_blocked with stacks, or NULL */
};

void findings_init(struct findings *f, const struct findings_config *cfg);
void findings_add(struct findings *f, const struct knotif *k);
void findings_add_reply_failed(struct findings *f,
			       const struct nw_reply_failed_event *r);
/* Tracing ended: chains still restarting count now. */
void findings_finish(struct findings *f);
/* --supervisor-stacks: the heaviest folded stack, for supervisor_blocked. */
void findings_set_top_stack(struct findings *f, const char *text,
			    __u64 weight_ns);
/* The findings present, most severe first; returns how many (<= COUNT). */
unsigned int findings_report(const struct findings *f,
			     struct finding out[FINDING_COUNT]);
/* The count of @kind so far (0 when absent): for the metrics. */
unsigned long long findings_count(const struct findings *f,
				  enum finding_kind kind);

const char *finding_kind_name(enum finding_kind k);
const char *finding_severity_name(enum finding_severity s);
/* Whether a syscall of this name can fail with EINTR without seccomp. */
bool nw_syscall_native_eintr(const char *name);

#endif /* NW_FINDINGS_H */
