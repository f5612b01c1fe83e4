// SPDX-License-Identifier: GPL-2.0
/* Findings from hand-built notifications: each kind, its counts, its absence. */
#include <errno.h>
#include "findings.h"
#include "knotif_fixture.h"
#include "unit.h"

#define NR_GETPPID 110
#define NR_READ 0
#define MS 1000000ULL

static struct knotif replied(__u64 id, __u32 tid)
{
	struct knotif k = {};

	k.ev.key.id = id;
	k.ev.key.filter = 0xf1;
	k.ev.target_tid = tid;
	k.ev.nr = NR_GETPPID;
	k.ev.supervisor_tgid = 200;
	memcpy(k.ev.supervisor_comm, "sup", 4);
	k.ev.t_notify_ns = id * 10 * MS;
	k.ev.t_recv_ns = k.ev.t_notify_ns + MS;
	k.ev.t_reply_ns = k.ev.t_recv_ns + MS;
	k.ev.t_return_ns = k.ev.t_reply_ns + MS;
	k.attempt = 1;
	k.reply_reached = true;
	k.outcome = NW_OUTCOME_REPLIED;
	return k;
}

/* Interrupted by a signal after RECV; the kernel restarts the syscall. */
static struct knotif restarted(__u64 id, __u32 tid, __u32 attempt)
{
	struct knotif k = replied(id, tid);

	k.reply_reached = false;
	k.ev.t_reply_ns = 0;
	k.attempt = attempt;
	k.outcome = NW_OUTCOME_INTERRUPTED_AFTER_RECV;
	k.interrupt_cause = NW_INTR_SIGNAL;
	k.interrupt_result = NW_INTR_RESTARTED;
	return k;
}

static struct findings fs;

static void init(unsigned int threshold, __u64 budget)
{
	struct findings_config cfg = { .restart_threshold = threshold,
				       .budget_ns = budget };

	findings_init(&fs, &cfg);
}

static const struct finding *find(struct finding *out, unsigned int n,
				  enum finding_kind kind)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (out[i].kind == kind)
			return &out[i];
	return NULL;
}

static unsigned long long num(const struct finding *f, const char *key)
{
	unsigned int i;

	for (i = 0; i < f->nnum; i++)
		if (!strcmp(f->num[i].key, key))
			return f->num[i].v;
	return ~0ULL;
}

/* A chain of @restarts interrupted attempts, then the reply (or not). */
/* Attempt @attempt of the chain that began with notification @first. */
static struct knotif attempt_of(struct knotif k, __u64 first, __u32 attempt)
{
	k.attempt = attempt;
	if (attempt > 1)
		k.t_chain_start_ns = first * 10 * MS; /* replied()'s t_notify */
	return k;
}

static __u64 chain(__u64 id, __u32 tid, unsigned int restarts, bool ends)
{
	__u64 first = id;
	struct knotif k;
	unsigned int i;

	for (i = 0; i < restarts; i++) {
		k = attempt_of(restarted(id++, tid, 1), first, i + 1);
		findings_add(&fs, &k);
	}
	if (ends) {
		k = attempt_of(replied(id++, tid), first, restarts + 1);
		findings_add(&fs, &k);
	}
	return id;
}

TEST(findings_none_on_a_clean_run)
{
	struct finding out[FINDING_COUNT];
	struct knotif k;
	int i;

	init(0, 10 * MS);
	for (i = 1; i <= 100; i++) {
		k = replied(i, 100 + i % 4);
		findings_add(&fs, &k);
	}
	/* one interruption that restarted and then completed: no storm */
	chain(200, 100, 1, true);
	findings_finish(&fs);
	EXPECT_EQ(findings_report(&fs, out), 0);
}

TEST(findings_restart_storm_at_the_threshold)
{
	struct finding out[FINDING_COUNT];
	const struct finding *f;
	unsigned int n;

	init(0, 0);
	chain(1, 100, 9, true); /* 9 restarts: under the default 10 */
	EXPECT_EQ(findings_count(&fs, FINDING_RESTART_STORM), 0);
	chain(100, 101, 10, true); /* ids 100..110, 110 replied */
	EXPECT_EQ(findings_count(&fs, FINDING_RESTART_STORM), 1);
	findings_finish(&fs);
	n = findings_report(&fs, out);
	f = find(out, n, FINDING_RESTART_STORM);
	ASSERT_TRUE(f);
	EXPECT_EQ(f->count, 1);
	EXPECT_EQ(f->severity, FINDING_WARNING);
	EXPECT_EQ(num(f, "threshold"), 10);
	EXPECT_EQ(num(f, "max_restarts"), 10);
	EXPECT_EQ(num(f, "unfinished"), 0);
	EXPECT_EQ(num(f, "restarted_waits"), 19);
	/* the counted chain's 10, all after RECV (restarted() receives) */
	EXPECT_EQ(num(f, "after_recv"), 10);
	EXPECT_EQ(num(f, "before_recv"), 0);
	EXPECT_EQ(num(f, "chains_untracked"), 0);
	ASSERT_TRUE(f->nex == 1);
	EXPECT_EQ(f->ex[0].id, 110);
	ASSERT_TRUE(f->syscalls && f->syscalls->n == 1);
	EXPECT_STREQ(f->syscalls->v[0].name, "getppid");
	ASSERT_TRUE(f->supervisors);
	EXPECT_STREQ(f->supervisors->v[0].name, "sup/200");
}

TEST(findings_restart_storm_still_restarting_at_exit)
{
	struct finding out[FINDING_COUNT];
	const struct finding *f;
	struct knotif k;
	unsigned int n;
	__u64 id;

	init(5, 0);
	chain(1, 100, 3, false); /* 3 restarts, never completed */
	chain(50, 101, 1, false); /* one interruption cut by the end: none */
	/* 2 restarts, then killed in the third wait: never completed either */
	id = chain(60, 102, 2, false);
	k = attempt_of(restarted(id, 102, 1), 60, 3);
	k.outcome = NW_OUTCOME_KILLED;
	k.interrupt_result = NW_INTR_EXITED;
	findings_add(&fs, &k);
	EXPECT_EQ(findings_count(&fs, FINDING_RESTART_STORM), 1);
	findings_finish(&fs);
	n = findings_report(&fs, out);
	f = find(out, n, FINDING_RESTART_STORM);
	ASSERT_TRUE(f);
	EXPECT_EQ(f->count, 2);
	EXPECT_EQ(f->severity, FINDING_CRITICAL);
	EXPECT_EQ(num(f, "unfinished"), 2);
	EXPECT_EQ(num(f, "threshold"), 5);
	ASSERT_TRUE(f->nex == 2);
	EXPECT_EQ(f->ex[0].id, 3);
	EXPECT_EQ(f->ex[1].id, 62);
	/* the report can be asked again: finishing twice counts once */
	findings_finish(&fs);
	EXPECT_EQ(findings_count(&fs, FINDING_RESTART_STORM), 2);
}

TEST(findings_eintr_flags_syscalls_without_native_eintr)
{
	struct finding out[FINDING_COUNT];
	const struct finding *f;
	struct knotif k;
	unsigned int n;

	init(0, 0);
	k = restarted(1, 100, 1);
	k.interrupt_result = NW_INTR_EINTR;
	findings_add(&fs, &k);
	k = restarted(2, 101, 1);
	k.ev.nr = NR_READ;
	k.interrupt_result = NW_INTR_EINTR;
	findings_add(&fs, &k);
	findings_finish(&fs);
	n = findings_report(&fs, out);
	f = find(out, n, FINDING_EINTR_TO_PROGRAM);
	ASSERT_TRUE(f);
	EXPECT_EQ(f->count, 2);
	EXPECT_EQ(num(f, "not_native"), 1);
	EXPECT_EQ(f->severity, FINDING_CRITICAL);
	ASSERT_TRUE(f->syscalls && f->syscalls->n == 2);
	EXPECT_STREQ(f->syscalls->v[0].name, "getppid");
	EXPECT_EQ(f->syscalls->v[0].flag, 1);
	EXPECT_EQ(f->syscalls->v[1].flag, 0);
	/* the unexpected one first */
	EXPECT_EQ(f->ex[0].id, 1);
	/* most severe first in the report */
	EXPECT_EQ(out[0].severity, FINDING_CRITICAL);
}

TEST(findings_native_eintr_table)
{
	static const char *const native[] = { "accept",	    "read",
					      "wait4",	    "writev",
					      "futex",	    "nanosleep",
					      "epoll_wait", "ioctl" };
	static const char *const not_native[] = { "close", "getppid", "fork",
						  "clone", "openat_", "" };
	unsigned int i;

	for (i = 0; i < sizeof(native) / sizeof(*native); i++)
		EXPECT_TRUE(nw_syscall_native_eintr(native[i]));
	for (i = 0; i < sizeof(not_native) / sizeof(*not_native); i++)
		EXPECT_TRUE(!nw_syscall_native_eintr(not_native[i]));
}

TEST(findings_lost_reply_enoent_and_unreached)
{
	struct nw_reply_failed_event r = { .kind = NW_REC_REPLY_FAILED,
					   .ret = -ENOENT };
	struct finding out[FINDING_COUNT];
	const struct finding *f;
	struct knotif k;
	unsigned int n;

	init(0, 0);
	k = restarted(1, 100, 1);
	k.reply_failed = true;
	k.failure.ret = -ENOENT;
	findings_add_reply_failed(&fs, &r);
	findings_add(&fs, &k);
	/* the reply succeeded, the target had already left: lost too */
	k = restarted(2, 101, 1);
	k.ev.t_reply_ns = k.ev.t_recv_ns + MS;
	k.interrupt_cause = NW_INTR_FREEZER;
	findings_add(&fs, &k);
	/* EBADF is not a lost reply */
	r.ret = -9;
	findings_add_reply_failed(&fs, &r);
	findings_finish(&fs);
	n = findings_report(&fs, out);
	f = find(out, n, FINDING_LOST_REPLY);
	ASSERT_TRUE(f);
	EXPECT_EQ(f->count, 2);
	EXPECT_EQ(num(f, "failed_enoent"), 1);
	EXPECT_EQ(num(f, "succeeded_unreached"), 1);
	EXPECT_EQ(num(f, "by_signal"), 1);
	EXPECT_EQ(num(f, "by_freezer"), 1);
	f = find(out, n, FINDING_INTERRUPTED_BY_FREEZER);
	ASSERT_TRUE(f);
	EXPECT_EQ(f->count, 1);
	EXPECT_EQ(num(f, "replies_lost"), 1);
	EXPECT_EQ(num(f, "restarted"), 1);
	EXPECT_EQ(f->severity, FINDING_WARNING);
}

TEST(findings_queued_behind_a_busy_supervisor)
{
	struct finding out[FINDING_COUNT];
	const struct finding *f;
	struct knotif k;
	unsigned int n;

	init(0, 0);
	k = restarted(1, 100, 1);
	k.outcome = NW_OUTCOME_INTERRUPTED_BEFORE_RECV;
	k.ev.t_recv_ns = 0;
	k.ev.supervisor_tgid = 0;
	k.have_queued_behind = true;
	k.queued_behind = 7;
	k.busy_supervisor_tgid = 200;
	memcpy(k.busy_supervisor_comm, "sup", 4);
	findings_add(&fs, &k);
	/* the other one was not behind anything: it counts in the share */
	k.ev.key.id = 2;
	k.have_queued_behind = false;
	findings_add(&fs, &k);
	findings_finish(&fs);
	n = findings_report(&fs, out);
	f = find(out, n, FINDING_INTERRUPTED_WHILE_QUEUED);
	ASSERT_TRUE(f);
	EXPECT_EQ(f->count, 1);
	EXPECT_EQ(num(f, "interrupted_before_recv"), 2);
	EXPECT_EQ(num(f, "share_percent"), 50);
	EXPECT_EQ(num(f, "max_queue_ns"), 3 * MS);
	ASSERT_TRUE(f->supervisors);
	EXPECT_STREQ(f->supervisors->v[0].name, "sup/200");
	EXPECT_EQ(f->ex[0].id, 1);
}

TEST(findings_signal_delay_over_budget)
{
	struct finding out[FINDING_COUNT];
	const struct finding *f;
	struct knotif k = replied(1, 100);
	unsigned int n;

	init(0, 10 * MS);
	k.ev.t_reply_ns = k.ev.t_recv_ns + 30 * MS;
	fixture_add_signal(&k, 10, k.ev.t_recv_ns, 0, k.ev.t_reply_ns + 2 * MS);
	fixture_add_signal(&k, 12, k.ev.t_reply_ns - MS, 0,
			   k.ev.t_reply_ns + 2 * MS);
	k.effect[0] = k.effect[1] = NW_EFFECT_DEFERRED;
	findings_add(&fs, &k);
	findings_finish(&fs);
	n = findings_report(&fs, out);
	f = find(out, n, FINDING_SIGNAL_DELAY_OVER_BUDGET);
	ASSERT_TRUE(f);
	EXPECT_EQ(f->count, 1); /* the second was pending 3 ms */
	EXPECT_EQ(num(f, "budget_ns"), 10 * MS);
	EXPECT_EQ(num(f, "max_pending_ns"), 32 * MS);
	EXPECT_EQ(num(f, "max_handle_ns"), 30 * MS);
	/* without a budget there is nothing to judge */
	init(0, 0);
	findings_add(&fs, &k);
	EXPECT_EQ(findings_report(&fs, out), 0);
}

/* gvisor#12820: the reply fails after the frozen record went out. */
TEST(findings_late_enoent_takes_the_cause_of_its_record)
{
	struct nw_reply_failed_event r = { .kind = NW_REC_REPLY_FAILED,
					   .ret = -ENOENT };
	struct finding out[FINDING_COUNT];
	const struct finding *f;
	struct knotif k = restarted(9, 100, 1);
	unsigned int n;

	init(0, 0);
	k.interrupt_cause = NW_INTR_FREEZER;
	findings_add(&fs, &k);
	r.key = k.ev.key;
	findings_add_reply_failed(&fs, &r);
	findings_add_reply_failed(&fs, &r); /* a second try: counted, once */
	findings_finish(&fs);
	n = findings_report(&fs, out);
	f = find(out, n, FINDING_LOST_REPLY);
	ASSERT_TRUE(f);
	EXPECT_EQ(f->count, 2);
	EXPECT_EQ(num(f, "by_freezer"), 1);
	ASSERT_TRUE(f->nex == 1);
	EXPECT_EQ(f->ex[0].id, 9);
	f = find(out, n, FINDING_INTERRUPTED_BY_FREEZER);
	ASSERT_TRUE(f);
	EXPECT_EQ(num(f, "replies_lost"), 1);
	EXPECT_EQ(f->severity, FINDING_WARNING);
}

/* sandlock#235 under the flag: the storm hits waits still queued. */
TEST(findings_restart_storm_before_recv_under_the_flag)
{
	struct finding out[FINDING_COUNT];
	const struct finding *f;
	struct knotif k;
	unsigned int i, n;

	init(3, 0);
	for (i = 0; i < 4; i++) {
		k = attempt_of(restarted(i + 1, 100, 1), 1, i + 1);
		k.outcome = NW_OUTCOME_INTERRUPTED_BEFORE_RECV;
		k.ev.t_recv_ns = 0;
		k.ev.filter_killable = 1;
		findings_add(&fs, &k);
	}
	k = attempt_of(replied(5, 100), 1, 5);
	k.ev.filter_killable = 1;
	findings_add(&fs, &k);
	findings_finish(&fs);
	n = findings_report(&fs, out);
	f = find(out, n, FINDING_RESTART_STORM);
	ASSERT_TRUE(f);
	EXPECT_EQ(num(f, "before_recv"), 4);
	EXPECT_EQ(num(f, "after_recv"), 0);
	EXPECT_TRUE(strstr(f->advice, "not yet received") != NULL);
}

/* A replied notification whose handle time splits so. */
static struct knotif split(__u64 id, __u64 running, __u64 runnable,
			   __u64 blocked)
{
	struct knotif k = replied(id, 100);

	k.have_handle_split = k.handle_split.known = true;
	k.handle_split.running_ns = running;
	k.handle_split.runnable_ns = runnable;
	k.handle_split.blocked_ns = blocked;
	return k;
}

/* Issue #18: a supervisor runnable a fifth of its handle time or more. */
TEST(findings_supervisor_starved)
{
	struct finding out[FINDING_COUNT];
	const struct finding *f;
	struct knotif k;
	unsigned int i, n;

	init(0, 0);
	for (i = 1; i <= 3; i++) {
		k = split(i, 60, 30 + i, 10);
		findings_add(&fs, &k);
		/* another supervisor, hardly ever waiting for a CPU */
		k.ev.supervisor_tgid = 201;
		k.handle_split.runnable_ns = 5;
		findings_add(&fs, &k);
	}
	EXPECT_EQ(findings_count(&fs, FINDING_SUPERVISOR_STARVED), 1);
	findings_finish(&fs);
	n = findings_report(&fs, out);
	f = find(out, n, FINDING_SUPERVISOR_STARVED);
	ASSERT_TRUE(f);
	EXPECT_EQ(num(f, "threshold_percent"), 20);
	EXPECT_EQ(num(f, "max_runnable_percent"), 32 * 100 / 103);
	ASSERT_TRUE(f->supervisors && f->supervisors->n == 1);
	EXPECT_STREQ(f->supervisors->v[0].name, "sup/200");
	EXPECT_EQ(f->ex[0].id, 3);
}

/* Asleep most of its handle time: supervisor_blocked, with its top stack. */
TEST(findings_supervisor_blocked)
{
	struct finding out[FINDING_COUNT];
	const struct finding *f;
	struct knotif k;
	unsigned int i, n;

	init(0, 0);
	for (i = 1; i <= 3; i++) {
		k = split(i, 10, 0, 80 + i);
		findings_add(&fs, &k);
		/* another supervisor, computing: neither finding */
		k.ev.supervisor_tgid = 201;
		k.handle_split.running_ns = 90;
		k.handle_split.blocked_ns = 2;
		findings_add(&fs, &k);
		/* two splits are not enough to judge the first */
		EXPECT_EQ(findings_count(&fs, FINDING_SUPERVISOR_BLOCKED),
			  i == 3);
	}
	EXPECT_EQ(findings_count(&fs, FINDING_SUPERVISOR_STARVED), 0);
	findings_set_top_stack(&fs, "sup;read;pipe_read_[k]", 200);
	findings_finish(&fs);
	n = findings_report(&fs, out);
	f = find(out, n, FINDING_SUPERVISOR_BLOCKED);
	ASSERT_TRUE(f);
	EXPECT_EQ(num(f, "threshold_percent"), 50);
	EXPECT_EQ(num(f, "max_blocked_percent"), 246 * 100 / 276);
	EXPECT_EQ(num(f, "blocked_ns"), 246);
	EXPECT_EQ(num(f, "top_stack_ns"), 200);
	EXPECT_STREQ(f->top_stack, "sup;read;pipe_read_[k]");
	ASSERT_TRUE(f->supervisors && f->supervisors->n == 1);
	EXPECT_STREQ(f->supervisors->v[0].name, "sup/200");
	EXPECT_EQ(f->ex[0].id, 3);
}

/*
 * An attempt whose supervisor's failed SEND was still in flight is handed
 * over after the attempt that ends its chain: still one storm, finished.
 */
TEST(findings_restart_storm_attempt_handed_over_late)
{
	struct finding out[FINDING_COUNT];
	const struct finding *f;
	struct knotif late, k;
	unsigned int i, n;

	init(0, 0);
	for (i = 1; i <= 9; i++) {
		k = attempt_of(restarted(i, 100, 1), 1, i);
		findings_add(&fs, &k);
	}
	late = attempt_of(restarted(10, 100, 1), 1, 10);
	k = attempt_of(replied(11, 100), 1, 11);
	findings_add(&fs, &k);
	findings_add(&fs, &late);
	findings_finish(&fs);
	n = findings_report(&fs, out);
	f = find(out, n, FINDING_RESTART_STORM);
	ASSERT_TRUE(f);
	EXPECT_EQ(f->count, 1);
	EXPECT_EQ(num(f, "unfinished"), 0);
	EXPECT_EQ(num(f, "max_restarts"), 10);
	ASSERT_TRUE(f->nex == 1);
	EXPECT_EQ(f->ex[0].id, 11);
}
