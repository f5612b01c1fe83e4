// SPDX-License-Identifier: GPL-2.0
/*
 * The joiner, fed the fact sequences behind the races of docs/races.md
 * (and docs/joiner.md): each test is one such sequence, in t_ns order or
 * in the ring buffer's order, and what the record must say.
 */
#include <errno.h>
#include <stdlib.h>
#include "facts.h"
#include "bound_check.h"
#include "joiner.h"
#include "knotif_table.h"
#include "unit.h"

#define FILTER 0xf117e2ULL
#define TARGET 100
#define SUP 200
#define SENDER 300
#define SIGURG 23
#define SIGKILL 9
#define ENOENT 2
#define ERESTARTSYS 512
#define SA_RESTART 0x10000000

struct out {
	int n, failed;
	struct knotif k[64];
	struct nw_reply_failed_event r;
};

static void got_knotif(struct knotif *k, void *ctx)
{
	struct out *o = ctx;

	if (o->n < 64)
		o->k[o->n] = *k;
	o->n++;
}

static void got_failed(const struct nw_reply_failed_event *r, void *ctx)
{
	struct out *o = ctx;

	o->failed++;
	o->r = *r;
}

static struct joiner *joiner_for(struct out *o)
{
	struct joiner_config cfg = { .knotif = got_knotif,
				     .reply_failed = got_failed,
				     .ctx = o };

	memset(o, 0, sizeof(*o));
	return joiner_new(&cfg);
}

static void hdr(struct nw_fact_hdr *h, __u8 kind, __u16 size, __u32 tid,
		__u64 t)
{
	h->kind = kind;
	h->size = size;
	h->tid = tid;
	h->tgid = tid;
	h->t_ns = t;
}

static void task(struct joiner *j, __u32 tid, const char *comm, __u64 t)
{
	struct nw_fact_task f = {};

	hdr(&f.h, NW_FACT_TASK, sizeof(f), tid, t);
	strncpy(f.comm, comm, sizeof(f.comm) - 1);
	f.vtid = tid;
	joiner_feed(j, &f, sizeof(f));
}

static void wait_fact(struct joiner *j, __u32 tid, __u64 id, __u8 flags,
		      __u64 t, __u64 t_start, __u64 pending)
{
	struct nw_fact_wait f = {};

	hdr(&f.h, NW_FACT_WAIT, sizeof(f), tid, t);
	f.h.flags = flags;
	f.filter = FILTER;
	f.id = id;
	f.t_start_ns = t_start;
	f.pending = pending;
	f.nr = 110;
	f.arch = NW_AUDIT_ARCH_X86_64;
	joiner_feed(j, &f, sizeof(f));
}

static void ret_fact(struct joiner *j, __u32 tid, __u64 id, __u8 flags,
		     __s64 ret, __u64 t, __u64 pending)
{
	struct nw_fact_return f = {};

	hdr(&f.h, NW_FACT_RETURN, sizeof(f), tid, t);
	f.h.flags = flags;
	f.filter = FILTER;
	f.id = id;
	f.ret = ret;
	f.pending = pending;
	f.nr = 110;
	joiner_feed(j, &f, sizeof(f));
}

static void recv_fact(struct joiner *j, __u64 id, __u32 target, __u64 t)
{
	struct nw_fact_recv f = {};

	hdr(&f.h, NW_FACT_RECV, sizeof(f), SUP, t);
	f.filter = FILTER;
	f.id = id;
	f.seen_pid = target;
	f.target_tid = target;
	f.target_tgid = target;
	f.nr = 110;
	f.arch = NW_AUDIT_ARCH_X86_64;
	joiner_feed(j, &f, sizeof(f));
}

static void send_fact(struct joiner *j, __u64 id, __s64 val, __u64 t_enter,
		      __u64 t_exit, __s64 ret)
{
	struct nw_fact_reply r = {};
	struct nw_fact_reply_done d = {};

	hdr(&r.h, NW_FACT_REPLY, sizeof(r), SUP, t_enter);
	r.h.flags = NW_REPLY_OP_SEND;
	r.filter = FILTER;
	r.id = id;
	r.val = val;
	r.cmd = NW_IOCTL_NOTIF_SEND;
	joiner_feed(j, &r, sizeof(r));
	hdr(&d.h, NW_FACT_REPLY_DONE, sizeof(d), SUP, t_exit);
	d.h.flags = NW_REPLY_OP_SEND;
	d.filter = FILTER;
	d.id = id;
	d.ret = ret;
	joiner_feed(j, &d, sizeof(d));
}

static void signal_fact(struct joiner *j, __u32 tid, __u32 sig, int result,
			__u8 flags, __u64 t)
{
	struct nw_fact_signal f = {};

	hdr(&f.h, NW_FACT_SIGNAL, sizeof(f), SENDER, t);
	f.h.flags = flags;
	f.target_tid = tid;
	f.target_tgid = TARGET;
	f.sig = sig;
	f.result = result;
	joiner_feed(j, &f, sizeof(f));
}

static void deliver_fact(struct joiner *j, __u32 tid, __u32 sig, __u64 t)
{
	struct nw_fact_deliver f = {};

	hdr(&f.h, NW_FACT_DELIVER, sizeof(f), tid, t);
	f.sig = sig;
	joiner_feed(j, &f, sizeof(f));
}

/* Everything applied and settled, as at the end of a run. */
static void drain(struct joiner *j)
{
	joiner_tick(j, 10ULL * 1000 * 1000 * 1000);
	joiner_finish(j);
}

#define SIG_BIT(s) (1ULL << ((s)-1))

TEST(joiner_replied_in_order)
{
	struct out o;
	struct joiner *j = joiner_for(&o);

	ASSERT_TRUE(j);
	task(j, TARGET, "target", 50);
	task(j, SUP, "sup", 60);
	wait_fact(j, TARGET, 7, NW_WAIT_WAKEUP, 100, 0, 0);
	wait_fact(j, TARGET, 7, NW_WAIT_SLEEP, 110, 0, 0);
	recv_fact(j, 7, TARGET, 200);
	send_fact(j, 7, 42, 300, 320, 0);
	ret_fact(j, TARGET, 7, 0, 42, 310, 0);
	drain(j);
	ASSERT_TRUE(o.n == 1);
	EXPECT_EQ(o.k[0].outcome, NW_OUTCOME_REPLIED);
	EXPECT_EQ(o.k[0].ev.t_notify_ns, 100);
	EXPECT_EQ(o.k[0].ev.notify_source, NW_SEEN_WAKEUP);
	EXPECT_EQ(o.k[0].ev.t_recv_ns, 200);
	EXPECT_EQ(o.k[0].ev.t_reply_ns, 300);
	EXPECT_EQ(o.k[0].ev.t_return_ns, 310);
	EXPECT_EQ(o.k[0].ev.ret, 42);
	EXPECT_EQ(o.k[0].ev.reply_val, 42);
	EXPECT_EQ(o.k[0].ev.interruptible_sleeps, 1);
	EXPECT_STREQ(o.k[0].ev.comm, "target");
	EXPECT_STREQ(o.k[0].ev.supervisor_comm, "sup");
	EXPECT_EQ(o.k[0].ev.supervisor_tgid, SUP);
	joiner_free(j);
}

/* Ring-buffer order is not event order: two CPUs interleave. */
TEST(joiner_orders_by_time_not_arrival)
{
	struct out o;
	struct joiner *j = joiner_for(&o);

	ASSERT_TRUE(j);
	ret_fact(j, TARGET, 7, 0, 42, 310, 0);
	send_fact(j, 7, 42, 300, 320, 0);
	recv_fact(j, 7, TARGET, 200);
	wait_fact(j, TARGET, 7, NW_WAIT_WAKEUP, 100, 0, 0);
	drain(j);
	ASSERT_TRUE(o.n == 1);
	EXPECT_EQ(o.k[0].outcome, NW_OUTCOME_REPLIED);
	EXPECT_EQ(o.k[0].ev.t_notify_ns, 100);
	EXPECT_EQ(o.k[0].ev.t_reply_ns, 300);
	joiner_free(j);
}

/*
 * signal_generate fires after the wake-up it causes: the target returns
 * before its sender's fact (docs/races.md: "a killed record without its
 * SIGKILL", and the SIGURG the BPF rule could not tell apart).
 */
TEST(joiner_signal_seen_after_return_interrupts)
{
	struct out o;
	struct joiner *j = joiner_for(&o);

	ASSERT_TRUE(j);
	wait_fact(j, TARGET, 7, NW_WAIT_SLEEP, 100, 0, 0);
	ret_fact(j, TARGET, 7, 0, -ERESTARTSYS, 200, SIG_BIT(SIGURG));
	signal_fact(j, TARGET, SIGURG, 0, 0, 210);
	deliver_fact(j, TARGET, SIGURG, 220);
	drain(j);
	ASSERT_TRUE(o.n == 1);
	EXPECT_EQ(o.k[0].outcome, NW_OUTCOME_INTERRUPTED_BEFORE_RECV);
	ASSERT_TRUE(o.k[0].ev.nsignals == 1);
	EXPECT_EQ(o.k[0].ev.signals[0].seen_after_return, 1);
	EXPECT_EQ(o.k[0].ev.signals[0].t_sent_ns, 210);
	EXPECT_EQ(o.k[0].ev.signals[0].before_wait, 0);
	EXPECT_EQ(o.k[0].effect[0], NW_EFFECT_INTERRUPTED);
	EXPECT_EQ(o.k[0].t_delivered_ns[0], 220);
	joiner_free(j);
}

/* Sent again after its delivery: a new signal, not the wait's. */
TEST(joiner_signal_after_delivery_is_not_claimed)
{
	struct out o;
	struct joiner *j = joiner_for(&o);

	ASSERT_TRUE(j);
	wait_fact(j, TARGET, 7, NW_WAIT_SLEEP, 100, 0, 0);
	ret_fact(j, TARGET, 7, 0, -ERESTARTSYS, 200, SIG_BIT(SIGURG));
	deliver_fact(j, TARGET, SIGURG, 220);
	signal_fact(j, TARGET, SIGURG, 0, 0, 230);
	drain(j);
	ASSERT_TRUE(o.n == 1);
	ASSERT_TRUE(o.k[0].ev.nsignals == 1);
	EXPECT_EQ(o.k[0].ev.signals[0].before_wait, 1);
	EXPECT_EQ(o.k[0].ev.signals[0].t_sent_ns, 0);
	EXPECT_EQ(o.k[0].t_delivered_ns[0], 220);
	joiner_free(j);
}

TEST(joiner_sigkill_in_killable_window)
{
	struct out o;
	struct joiner *j = joiner_for(&o);

	ASSERT_TRUE(j);
	wait_fact(j, TARGET, 7, NW_WAIT_SLEEP | NW_WAIT_FILTER_KILLABLE, 100, 0,
		  0);
	recv_fact(j, 7, TARGET, 150);
	ret_fact(j, TARGET, 7, NW_RET_EXITED | NW_RET_FATAL, -ERESTARTSYS, 200,
		 SIG_BIT(SIGKILL));
	signal_fact(j, TARGET, SIGKILL, 0, NW_SIG_GROUP, 205);
	drain(j);
	ASSERT_TRUE(o.n == 1);
	EXPECT_EQ(o.k[0].outcome, NW_OUTCOME_KILLED);
	ASSERT_TRUE(o.k[0].ev.nsignals == 1);
	EXPECT_EQ(o.k[0].ev.signals[0].sig, SIGKILL);
	EXPECT_EQ(o.k[0].effect[0], NW_EFFECT_FATAL);
	joiner_free(j);
}

/* fentry: a signal between the bracket's entry and the knotif being known */
TEST(joiner_early_signal_in_bracket)
{
	struct out o;
	struct joiner *j = joiner_for(&o);

	ASSERT_TRUE(j);
	signal_fact(j, TARGET, SIGURG, 0, 0, 90); /* before the bracket */
	deliver_fact(j, TARGET, SIGURG, 95);
	signal_fact(j, TARGET, SIGURG, 0, 0, 150);
	wait_fact(j, TARGET, 7, NW_WAIT_ENTRY, 200, 120, SIG_BIT(SIGURG));
	ret_fact(j, TARGET, 7, 0, -ERESTARTSYS, 210, SIG_BIT(SIGURG));
	deliver_fact(j, TARGET, SIGURG, 220);
	drain(j);
	ASSERT_TRUE(o.n == 1);
	EXPECT_EQ(o.k[0].ev.t_notify_ns, 120);
	EXPECT_EQ(o.k[0].ev.notify_source, NW_SEEN_ENTRY);
	ASSERT_TRUE(o.k[0].ev.nsignals == 1);
	EXPECT_EQ(o.k[0].ev.signals[0].t_sent_ns, 150);
	EXPECT_EQ(o.k[0].effect[0], NW_EFFECT_INTERRUPTED);
	EXPECT_EQ(o.k[0].t_delivered_ns[0], 220);
	joiner_free(j);
}

/* tracepoint: RECV before the target slept or woke anyone */
TEST(joiner_recv_before_target_side)
{
	struct out o;
	struct joiner *j = joiner_for(&o);

	ASSERT_TRUE(j);
	recv_fact(j, 7, TARGET, 100);
	wait_fact(j, TARGET, 7, NW_WAIT_SLEEP, 150, 0, 0);
	send_fact(j, 7, 0, 200, 220, 0);
	ret_fact(j, TARGET, 7, 0, 0, 210, 0);
	drain(j);
	ASSERT_TRUE(o.n == 1);
	EXPECT_EQ(o.k[0].ev.t_notify_ns, 0);
	EXPECT_EQ(o.k[0].ev.notify_source, NW_SEEN_RECV);
	EXPECT_EQ(o.k[0].ev.target_tid, TARGET);
	EXPECT_EQ(o.k[0].outcome, NW_OUTCOME_REPLIED);
	joiner_free(j);
}

/* tracepoint: never slept, answered: only RECV and a NO_KEY exit */
TEST(joiner_recv_only_ends_at_skipped_exit)
{
	struct out o;
	struct joiner *j = joiner_for(&o);

	ASSERT_TRUE(j);
	recv_fact(j, 7, TARGET, 100);
	send_fact(j, 7, 5, 200, 220, 0);
	ret_fact(j, TARGET, 8, NW_RET_NO_KEY, 5, 210, 0);
	drain(j);
	ASSERT_TRUE(o.n == 1);
	EXPECT_EQ(o.k[0].ev.key.id, 7);
	EXPECT_EQ(o.k[0].outcome, NW_OUTCOME_REPLIED);
	EXPECT_EQ(o.k[0].ev.t_return_ns, 210);
	joiner_free(j);
}

TEST(joiner_coalesced_send)
{
	struct out o;
	struct joiner *j = joiner_for(&o);

	ASSERT_TRUE(j);
	wait_fact(j, TARGET, 7, NW_WAIT_SLEEP | NW_WAIT_FILTER_KILLABLE, 100, 0,
		  0);
	recv_fact(j, 7, TARGET, 150);
	signal_fact(j, TARGET, SIGURG, 0, 0, 160);
	wait_fact(j, TARGET, 7,
		  NW_WAIT_SLEEP | NW_WAIT_KILLABLE | NW_WAIT_FILTER_KILLABLE,
		  165, 0, SIG_BIT(SIGURG));
	signal_fact(j, TARGET, SIGURG, 2, 0, 170);
	send_fact(j, 7, 0, 200, 220, 0);
	ret_fact(j, TARGET, 7, 0, 0, 210, SIG_BIT(SIGURG));
	deliver_fact(j, TARGET, SIGURG, 230);
	drain(j);
	ASSERT_TRUE(o.n == 1);
	ASSERT_TRUE(o.k[0].ev.nsignals == 2);
	EXPECT_EQ(o.k[0].effect[0], NW_EFFECT_DEFERRED);
	EXPECT_EQ(o.k[0].effect[1], NW_EFFECT_COALESCED);
	EXPECT_EQ(o.k[0].t_delivered_ns[0], 230);
	EXPECT_EQ(o.k[0].ev.t_killable_ns, 165);
	EXPECT_EQ(o.k[0].ev.killable_cause, NW_CAUSE_SIGNAL);
	joiner_free(j);
}

/* The reply race: the target took the interrupted path, SEND fails ENOENT. */
TEST(joiner_reply_after_interrupt_fails)
{
	struct out o;
	struct joiner *j = joiner_for(&o);

	ASSERT_TRUE(j);
	wait_fact(j, TARGET, 7, NW_WAIT_SLEEP, 100, 0, 0);
	recv_fact(j, 7, TARGET, 150);
	signal_fact(j, TARGET, SIGURG, 0, 0, 160);
	ret_fact(j, TARGET, 7, 0, -ERESTARTSYS, 170, SIG_BIT(SIGURG));
	send_fact(j, 7, 0, 200, 210, -ENOENT);
	deliver_fact(j, TARGET, SIGURG, 175);
	drain(j);
	ASSERT_TRUE(o.n == 1);
	EXPECT_EQ(o.k[0].outcome, NW_OUTCOME_INTERRUPTED_AFTER_RECV);
	EXPECT_EQ(o.failed, 1);
	EXPECT_EQ(o.r.ret, -ENOENT);
	EXPECT_EQ(o.r.t_ns, 200);
	EXPECT_EQ(o.k[0].reply_failed, 1);
	EXPECT_EQ(o.k[0].ev.t_reply_ns, 0);
	joiner_free(j);
}

/* tracepoint: aborted before anyone saw it; the exit names the newest id */
TEST(joiner_unseen_exit_takes_newest_unseen_id)
{
	struct out o;
	struct joiner *j = joiner_for(&o);

	ASSERT_TRUE(j);
	wait_fact(j, TARGET + 1, 4, NW_WAIT_SLEEP, 90, 0, 0);
	ret_fact(j, TARGET, 5, NW_RET_NO_KEY, -ERESTARTSYS, 100,
		 SIG_BIT(SIGURG));
	ret_fact(j, TARGET + 1, 4, 0, 0, 120, 0);
	drain(j);
	ASSERT_TRUE(o.n == 2);
	EXPECT_EQ(o.k[0].ev.key.id + o.k[1].ev.key.id, 3 + 4);
	joiner_free(j);
}

/*
 * tracepoint, demo in the 6.1 guest: two threads queue (ids 5, 6), neither
 * seen waiting; the first aborts while the other's id 6 is still queued and
 * received later. The exit's queued mask keeps it off id 6.
 */
static void ret_queued(struct joiner *j, __u32 tid, __u64 next_id, __u32 queued,
		       __u64 t)
{
	struct nw_fact_return f = {};

	hdr(&f.h, NW_FACT_RETURN, sizeof(f), tid, t);
	f.h.flags = NW_RET_NO_KEY;
	f.filter = FILTER;
	f.id = next_id;
	f.ret = -ERESTARTSYS;
	f.nr = 110;
	f.queued = queued;
	joiner_feed(j, &f, sizeof(f));
}

TEST(joiner_unseen_exit_skips_ids_still_queued)
{
	struct out o;
	struct joiner *j = joiner_for(&o);
	int a, b;

	ASSERT_TRUE(j);
	ret_queued(j, TARGET, 7, 1, 100);
	recv_fact(j, 6, TARGET + 1, 150);
	ret_fact(j, TARGET + 1, 7, NW_RET_NO_KEY, -ERESTARTSYS, 200, 0);
	drain(j);
	ASSERT_TRUE(o.n == 2);
	a = o.k[0].ev.target_tid == TARGET ? 0 : 1;
	b = 1 - a;
	EXPECT_EQ(o.k[a].ev.target_tid, TARGET);
	EXPECT_EQ(o.k[a].ev.key.id, 5);
	EXPECT_EQ(o.k[a].ev.t_recv_ns, 0);
	EXPECT_EQ(o.k[b].ev.target_tid, TARGET + 1);
	EXPECT_EQ(o.k[b].ev.key.id, 6);
	EXPECT_EQ(o.k[b].ev.t_recv_ns, 150);
	EXPECT_EQ(o.k[b].outcome, NW_OUTCOME_INTERRUPTED_AFTER_RECV);
	joiner_free(j);
}

static void deliver_to_handler(struct joiner *j, __u32 tid, __u32 sig,
			       __u32 sa_flags, __u64 t)
{
	struct nw_fact_deliver f = {};

	hdr(&f.h, NW_FACT_DELIVER, sizeof(f), tid, t);
	f.h.flags = NW_DELIVER_HANDLER;
	f.sig = sig;
	f.sa_flags = sa_flags;
	joiner_feed(j, &f, sizeof(f));
}

static void frozen_fact(struct joiner *j, __u32 tid, __u64 t)
{
	struct nw_fact_frozen f = {};

	hdr(&f.h, NW_FACT_FROZEN, sizeof(f), tid, t);
	f.how = NW_FROZEN_REFRIGERATOR;
	joiner_feed(j, &f, sizeof(f));
}

static const struct knotif *by_id(const struct out *o, __u64 id)
{
	int i;

	for (i = 0; i < o->n && i < 64; i++)
		if (o->k[i].ev.key.id == id)
			return &o->k[i];
	return NULL;
}

/* Wait id 5 from 100, SIGURG at 150 aborts it at 160, its handler at 170. */
static void sigurg_aborts_5(struct joiner *j, __u32 sa_flags)
{
	wait_fact(j, TARGET, 5, NW_WAIT_SLEEP, 100, 0, 0);
	signal_fact(j, TARGET, SIGURG, 0, 0, 150);
	ret_fact(j, TARGET, 5, 0, -ERESTARTSYS, 160, SIG_BIT(SIGURG));
	deliver_to_handler(j, TARGET, SIGURG, sa_flags, 170);
}

/* Issue #16, Go's SIGURG: one syscall, two notifications, one chain. */
TEST(joiner_restart_chain_links_attempts)
{
	const struct knotif *a, *b;
	struct out o;
	struct joiner *j = joiner_for(&o);
	__u64 total = 0;

	ASSERT_TRUE(j);
	sigurg_aborts_5(j, SA_RESTART);
	wait_fact(j, TARGET, 6, NW_WAIT_SLEEP, 200, 0, 0);
	recv_fact(j, 6, TARGET, 210);
	send_fact(j, 6, 42, 300, 310, 0);
	ret_fact(j, TARGET, 6, 0, 42, 320, 0);
	drain(j);
	a = by_id(&o, 5);
	b = by_id(&o, 6);
	ASSERT_TRUE(a && b);
	EXPECT_EQ(a->attempt, 1);
	EXPECT_EQ(a->have_restart_of, 0);
	EXPECT_EQ(a->interrupt_cause, NW_INTR_SIGNAL);
	EXPECT_EQ(a->interrupt_result, NW_INTR_RESTARTED);
	EXPECT_TRUE(!knotif_chain_total(a, &total));
	EXPECT_EQ(b->have_restart_of, 1);
	EXPECT_EQ(b->restart_of, 5);
	EXPECT_EQ(b->attempt, 2);
	EXPECT_EQ(b->interrupt_cause, NW_INTR_NONE);
	EXPECT_TRUE(knotif_chain_total(b, &total));
	EXPECT_EQ(total, 320 - 100);
	joiner_free(j);
}

/* A handler without SA_RESTART: EINTR ends the chain, no restart follows. */
TEST(joiner_eintr_ends_the_chain)
{
	const struct knotif *a, *b;
	struct out o;
	struct joiner *j = joiner_for(&o);
	__u64 total = 0;

	ASSERT_TRUE(j);
	sigurg_aborts_5(j, 0);
	/* the program calls again itself: a new chain */
	wait_fact(j, TARGET, 6, NW_WAIT_SLEEP, 200, 0, 0);
	ret_fact(j, TARGET, 6, 0, -ERESTARTSYS, 260, 0);
	drain(j);
	a = by_id(&o, 5);
	b = by_id(&o, 6);
	ASSERT_TRUE(a && b);
	EXPECT_EQ(a->interrupt_result, NW_INTR_EINTR);
	EXPECT_TRUE(knotif_chain_total(a, &total));
	EXPECT_EQ(total, 60);
	EXPECT_EQ(b->attempt, 1);
	EXPECT_EQ(b->have_restart_of, 0);
	joiner_free(j);
}

/* The freezer interrupts with no signal: the target freezes on its way out. */
TEST(joiner_freezer_is_the_cause_without_a_signal)
{
	const struct knotif *a, *b;
	struct out o;
	struct joiner *j = joiner_for(&o);

	ASSERT_TRUE(j);
	wait_fact(j, TARGET, 5, NW_WAIT_SLEEP, 100, 0, 0);
	recv_fact(j, 5, TARGET, 120);
	ret_fact(j, TARGET, 5, 0, -ERESTARTSYS, 160, 0);
	frozen_fact(j, TARGET, 165);
	wait_fact(j, TARGET, 6, NW_WAIT_SLEEP, 5000, 0, 0);
	ret_fact(j, TARGET, 6, 0, -ERESTARTSYS, 6000, 0);
	drain(j);
	a = by_id(&o, 5);
	b = by_id(&o, 6);
	ASSERT_TRUE(a && b);
	EXPECT_EQ(a->outcome, NW_OUTCOME_INTERRUPTED_AFTER_RECV);
	EXPECT_EQ(a->ev.nsignals, 0);
	EXPECT_EQ(a->interrupt_cause, NW_INTR_FREEZER);
	EXPECT_EQ(a->interrupt_result, NW_INTR_RESTARTED);
	EXPECT_EQ(b->restart_of, 5);
	/* no signal and no freezer: a pending flag nothing shows */
	EXPECT_EQ(b->interrupt_cause, NW_INTR_OTHER);
	EXPECT_EQ(b->attempt, 2);
	joiner_free(j);
}

/* A frozen thread whose wait was not interrupted proves nothing. */
TEST(joiner_freeze_after_a_reply_is_no_cause)
{
	const struct knotif *a;
	struct out o;
	struct joiner *j = joiner_for(&o);

	ASSERT_TRUE(j);
	wait_fact(j, TARGET, 5, NW_WAIT_SLEEP, 100, 0, 0);
	recv_fact(j, 5, TARGET, 120);
	send_fact(j, 5, 1, 130, 140, 0);
	ret_fact(j, TARGET, 5, 0, 1, 150, 0);
	frozen_fact(j, TARGET, 160);
	drain(j);
	a = by_id(&o, 5);
	ASSERT_TRUE(a);
	EXPECT_EQ(a->frozen, 0);
	EXPECT_EQ(a->interrupt_cause, NW_INTR_NONE);
	EXPECT_EQ(a->interrupt_result, NW_INTR_RESULT_NONE);
	joiner_free(j);
}

TEST(joiner_prior_guess_at_killable_sleep)
{
	struct out o;
	struct joiner *j = joiner_for(&o);

	ASSERT_TRUE(j);
	recv_fact(j, 7, TARGET, 100);
	wait_fact(j, TARGET, 7,
		  NW_WAIT_SLEEP | NW_WAIT_KILLABLE | NW_WAIT_FILTER_KILLABLE,
		  110, 0, SIG_BIT(SIGURG));
	send_fact(j, 7, 0, 200, 220, 0);
	ret_fact(j, TARGET, 7, 0, 0, 210, SIG_BIT(SIGURG));
	deliver_fact(j, TARGET, SIGURG, 230);
	drain(j);
	ASSERT_TRUE(o.n == 1);
	ASSERT_TRUE(o.k[0].ev.nsignals == 1);
	EXPECT_EQ(o.k[0].ev.signals[0].before_wait, 1);
	EXPECT_EQ(o.k[0].effect[0], NW_EFFECT_DEFERRED);
	EXPECT_EQ(o.k[0].t_delivered_ns[0], 230);
	joiner_free(j);
}

/* A process-directed signal names the leader; another thread waits. */
TEST(joiner_group_signal_finds_waiting_thread)
{
	struct out o;
	struct joiner *j = joiner_for(&o);
	struct nw_fact_wait w = {};

	ASSERT_TRUE(j);
	hdr(&w.h, NW_FACT_WAIT, sizeof(w), TARGET + 5, 100);
	w.h.tgid = TARGET;
	w.h.flags = NW_WAIT_SLEEP;
	w.filter = FILTER;
	w.id = 7;
	joiner_feed(j, &w, sizeof(w));
	signal_fact(j, TARGET, SIGURG, 0, NW_SIG_GROUP, 150);
	ret_fact(j, TARGET + 5, 7, 0, -ERESTARTSYS, 160, SIG_BIT(SIGURG));
	drain(j);
	ASSERT_TRUE(o.n == 1);
	EXPECT_EQ(o.k[0].ev.target_tid, TARGET + 5);
	ASSERT_TRUE(o.k[0].ev.nsignals == 1);
	EXPECT_EQ(o.k[0].ev.signals[0].t_sent_ns, 150);
	joiner_free(j);
}

/* A SEND still in its ioctl holds the record, however long it settles. */
TEST(joiner_reply_in_flight_holds_record)
{
	struct out o;
	struct joiner *j = joiner_for(&o);
	struct nw_fact_reply r = {};
	struct nw_fact_reply_done d = {};

	ASSERT_TRUE(j);
	wait_fact(j, TARGET, 7, NW_WAIT_SLEEP, 100, 0, 0);
	recv_fact(j, 7, TARGET, 150);
	hdr(&r.h, NW_FACT_REPLY, sizeof(r), SUP, 200);
	r.h.flags = NW_REPLY_OP_SEND;
	r.filter = FILTER;
	r.id = 7;
	r.val = 3;
	joiner_feed(j, &r, sizeof(r));
	ret_fact(j, TARGET, 7, 0, 3, 210, 0);
	joiner_tick(j, 210 + NW_REORDER_NS + NW_SETTLE_NS + 1);
	EXPECT_EQ(o.n, 0);
	hdr(&d.h, NW_FACT_REPLY_DONE, sizeof(d), SUP, 210 + NW_SETTLE_NS + 2);
	d.h.flags = NW_REPLY_OP_SEND;
	d.filter = FILTER;
	d.id = 7;
	joiner_feed(j, &d, sizeof(d));
	joiner_tick(j, 210 + NW_REORDER_NS + NW_SETTLE_NS + 3);
	ASSERT_TRUE(o.n == 1);
	EXPECT_EQ(o.k[0].outcome, NW_OUTCOME_REPLIED);
	EXPECT_EQ(o.k[0].ev.t_reply_ns, 200);
	joiner_free(j);
}

/* At any queue depth: 10,000 waiting on one listener, all identified. */
TEST(joiner_ten_thousand_waiting)
{
	struct out o;
	struct joiner *j = joiner_for(&o);
	struct joiner_counters c;
	__u64 id;

	ASSERT_TRUE(j);
	for (id = 1; id <= 10000; id++)
		wait_fact(j, 1000 + id, id, NW_WAIT_WAKEUP, id, 0, 0);
	for (id = 1; id <= 10000; id++) {
		recv_fact(j, id, 1000 + id, 20000 + 4 * id);
		send_fact(j, id, 0, 20001 + 4 * id, 20003 + 4 * id, 0);
		ret_fact(j, 1000 + id, id, 0, 0, 20002 + 4 * id, 0);
	}
	drain(j);
	joiner_counters(j, &c);
	EXPECT_EQ(o.n, 10000);
	EXPECT_EQ(c.unidentified, 0);
	EXPECT_EQ(c.dropped_knotifs, 0);
	EXPECT_EQ(c.malformed, 0);
	joiner_free(j);
}

TEST(joiner_refuses_malformed_facts)
{
	struct out o;
	struct joiner *j = joiner_for(&o);
	struct nw_fact_wait w = {};
	struct joiner_counters c;

	ASSERT_TRUE(j);
	hdr(&w.h, NW_FACT_WAIT, sizeof(w), TARGET, 1);
	EXPECT_EQ(joiner_feed(j, &w, sizeof(w) - 1), -EINVAL);
	w.h.kind = 99;
	EXPECT_EQ(joiner_feed(j, &w, sizeof(w)), -EINVAL);
	w.h.kind = NW_FACT_WAIT;
	w.h.size = 12;
	EXPECT_EQ(joiner_feed(j, &w, sizeof(w)), -EINVAL);
	EXPECT_EQ(joiner_feed(j, &w, 3), -EINVAL);
	joiner_counters(j, &c);
	EXPECT_EQ(c.malformed, 4);
	drain(j);
	EXPECT_EQ(o.n, 0);
	joiner_free(j);
}

/* Open at the end: reported pending; seen only at RECV: counted, not made up */
TEST(joiner_finish_reports_pending_and_unidentified)
{
	struct out o;
	struct joiner *j = joiner_for(&o);
	struct joiner_counters c;

	ASSERT_TRUE(j);
	wait_fact(j, TARGET, 7, NW_WAIT_SLEEP, 100, 0, 0);
	recv_fact(j, 8, 0, 150);
	joiner_finish(j);
	joiner_counters(j, &c);
	ASSERT_TRUE(o.n == 1);
	EXPECT_EQ(o.k[0].outcome, NW_OUTCOME_PENDING);
	EXPECT_EQ(c.unidentified, 1);
	joiner_free(j);
}

/*
 * sandlock#235: a notification still queued while the supervisor handles
 * another stays interruptible; a signal ends it unreceived, queued behind.
 */
TEST(joiner_interrupted_while_queued_behind_a_busy_supervisor)
{
	const struct knotif *a, *b;
	struct out o;
	struct joiner *j = joiner_for(&o);

	ASSERT_TRUE(j);
	task(j, SUP, "supervisor", 50);
	wait_fact(j, TARGET, 5, NW_WAIT_SLEEP, 100, 0, 0);
	recv_fact(j, 5, TARGET, 110);
	wait_fact(j, TARGET + 1, 6, NW_WAIT_SLEEP, 120, 0, 0);
	signal_fact(j, TARGET + 1, SIGURG, 0, 0, 150);
	ret_fact(j, TARGET + 1, 6, 0, -ERESTARTSYS, 160, SIG_BIT(SIGURG));
	send_fact(j, 5, 1, 300, 310, 0);
	ret_fact(j, TARGET, 5, 0, 1, 320, 0);
	/* answered before the next one is interrupted: not behind it */
	wait_fact(j, TARGET, 7, NW_WAIT_SLEEP, 400, 0, 0);
	signal_fact(j, TARGET, SIGURG, 0, 0, 450);
	ret_fact(j, TARGET, 7, 0, -ERESTARTSYS, 460, SIG_BIT(SIGURG));
	drain(j);
	a = by_id(&o, 6);
	b = by_id(&o, 7);
	ASSERT_TRUE(a && b);
	EXPECT_EQ(a->outcome, NW_OUTCOME_INTERRUPTED_BEFORE_RECV);
	EXPECT_EQ(a->have_queued_behind, 1);
	EXPECT_EQ(a->queued_behind, 5);
	EXPECT_EQ(a->busy_supervisor_tgid, SUP);
	EXPECT_STREQ(a->busy_supervisor_comm, "supervisor");
	EXPECT_EQ(b->outcome, NW_OUTCOME_INTERRUPTED_BEFORE_RECV);
	EXPECT_EQ(b->have_queued_behind, 0);
	joiner_free(j);
}

/*
 * Issue #16's bound check: a deferred signal whose target was preempted on
 * its way from the return to the delivery. SWITCH facts give the
 * scheduler's share; the bound is judged on the rest.
 */
TEST(joiner_preempted_before_delivery_is_the_schedulers)
{
	struct bound_config cfg = { .slack_ns = 50 };
	struct nw_fact_switch sw = {};
	struct bound_signal b;
	struct out o;
	struct joiner *j = joiner_for(&o);

	ASSERT_TRUE(j);
	wait_fact(j, TARGET, 5,
		  NW_WAIT_SLEEP | NW_WAIT_KILLABLE | NW_WAIT_FILTER_KILLABLE,
		  100, 0, 0);
	recv_fact(j, 5, TARGET, 110);
	signal_fact(j, TARGET, SIGURG, 0, 0, 200);
	send_fact(j, 5, 1, 300, 310, 0);
	ret_fact(j, TARGET, 5, 0, 1, 320, SIG_BIT(SIGURG));
	hdr(&sw.h, NW_FACT_SWITCH, sizeof(sw), SENDER, 330);
	sw.h.flags = NW_SWITCH_OUT | NW_SWITCH_RUNNABLE;
	sw.tid = TARGET;
	joiner_feed(j, &sw, sizeof(sw));
	sw.h.t_ns = 430;
	sw.h.flags = NW_SWITCH_IN;
	joiner_feed(j, &sw, sizeof(sw));
	deliver_fact(j, TARGET, SIGURG, 450);
	drain(j);
	ASSERT_TRUE(o.n == 1 && o.k[0].ev.nsignals == 1);
	EXPECT_EQ(o.k[0].effect[0], NW_EFFECT_DEFERRED);
	EXPECT_EQ(o.k[0].preempted_ns[0], 100);
	bound_check_signal(&cfg, &o.k[0], 0, &b);
	ASSERT_TRUE(b.status == BOUND_CHECKED);
	EXPECT_EQ(b.remaining_ns, 100);
	EXPECT_EQ(b.wake_ns, 20);
	EXPECT_EQ(b.preempted_ns, 100);
	EXPECT_EQ(b.delivery_ns, 30);
	EXPECT_EQ(b.excess_ns, 30);
	EXPECT_EQ(b.bound_violated, 0); /* 30 <= slack 50; 130 would not be */
	joiner_free(j);
}

static void switch_fact(struct joiner *j, __u32 tid, __u8 flags, __u64 t)
{
	struct nw_fact_switch f = {};

	hdr(&f.h, NW_FACT_SWITCH, sizeof(f), SENDER, t);
	f.h.flags = flags;
	f.tid = tid;
	joiner_feed(j, &f, sizeof(f));
}

struct sup_sw {
	__u8 flags;
	__u64 t;
};

/*
 * One notification received at 110 and replied at 300 by SUP, with SUP's
 * @n switches in between; drained. NULL if the joiner cannot be made.
 */
static struct joiner *handled_with_switches(struct out *o,
					    const struct sup_sw *sw, int n)
{
	struct joiner *j = joiner_for(o);
	int i;

	if (!j)
		return NULL;
	wait_fact(j, TARGET, 5, NW_WAIT_SLEEP, 100, 0, 0);
	recv_fact(j, 5, TARGET, 110);
	for (i = 0; i < n; i++)
		switch_fact(j, SUP, sw[i].flags, sw[i].t);
	send_fact(j, 5, 1, 300, 310, 0);
	ret_fact(j, TARGET, 5, 0, 1, 320, 0);
	drain(j);
	return j;
}

/* Issue #18: the supervisor's handle time, split by its own switches. */
TEST(joiner_handle_split_by_the_supervisors_switches)
{
	static const struct sup_sw sw[] = {
		{ NW_SWITCH_OUT, 150 }, /* asleep: blocked */
		{ NW_SWITCH_IN, 250 },
		{ NW_SWITCH_OUT | NW_SWITCH_RUNNABLE, 260 },
		{ NW_SWITCH_IN, 290 },
	};
	struct out o;
	struct joiner *j = handled_with_switches(&o, sw, 4);

	ASSERT_TRUE(j);
	ASSERT_TRUE(o.n == 1 && o.k[0].have_handle_split);
	EXPECT_EQ(o.k[0].handle_split.known, 1);
	EXPECT_EQ(o.k[0].handle_split.blocked_ns, 100);
	EXPECT_EQ(o.k[0].handle_split.runnable_ns, 30);
	EXPECT_EQ(o.k[0].handle_split.running_ns, 60);
	EXPECT_EQ(o.k[0].handle_split.thread, SUP);
	/* the parts are the handle time */
	EXPECT_EQ(o.k[0].ev.t_reply_ns - o.k[0].ev.t_recv_ns, 190);
	joiner_free(j);
}

/*
 * The host kernel did not trace the switch that put the supervisor back
 * on its CPU (CI, 2026-12-07): two OUTs in a row. Not split, counted;
 * the split used to say the 100 ns it ran between them were runnable.
 */
TEST(joiner_handle_split_refused_when_a_switch_is_missing)
{
	static const struct sup_sw sw[] = {
		{ NW_SWITCH_OUT | NW_SWITCH_RUNNABLE, 150 },
		/* the IN at 160 was not traced */
		{ NW_SWITCH_OUT | NW_SWITCH_RUNNABLE, 260 },
		{ NW_SWITCH_IN, 290 },
	};
	struct joiner_counters c;
	struct out o;
	struct joiner *j = handled_with_switches(&o, sw, 3);

	ASSERT_TRUE(j);
	ASSERT_TRUE(o.n == 1 && o.k[0].have_handle_split);
	EXPECT_EQ(o.k[0].handle_split.known, 0);
	EXPECT_EQ(o.k[0].handle_split.thread, SUP);
	joiner_counters(j, &c);
	EXPECT_EQ(c.switch_gaps, 1);
	joiner_free(j);
}

/* A worker pool: another thread replies; its time is not split. */
TEST(joiner_handle_split_of_another_replier_is_unknown)
{
	struct nw_fact_reply r = {};
	struct nw_fact_reply_done d = {};
	struct out o;
	struct joiner *j = joiner_for(&o);

	ASSERT_TRUE(j);
	wait_fact(j, TARGET, 5, NW_WAIT_SLEEP, 100, 0, 0);
	recv_fact(j, 5, TARGET, 110);
	hdr(&r.h, NW_FACT_REPLY, sizeof(r), SUP + 1, 300);
	r.h.flags = NW_REPLY_OP_SEND;
	r.filter = FILTER;
	r.id = 5;
	r.val = 1;
	joiner_feed(j, &r, sizeof(r));
	hdr(&d.h, NW_FACT_REPLY_DONE, sizeof(d), SUP + 1, 310);
	d.h.flags = NW_REPLY_OP_SEND;
	d.filter = FILTER;
	d.id = 5;
	joiner_feed(j, &d, sizeof(d));
	ret_fact(j, TARGET, 5, 0, 1, 320, 0);
	drain(j);
	ASSERT_TRUE(o.n == 1 && o.k[0].have_handle_split);
	EXPECT_EQ(o.k[0].handle_split.known, 0);
	EXPECT_EQ(o.k[0].handle_split.thread, SUP + 1);
	EXPECT_EQ(o.k[0].handle_split.recv_thread, SUP);
	joiner_free(j);
}
