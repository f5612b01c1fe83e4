// SPDX-License-Identifier: GPL-2.0
#include <signal.h>
#include <stdint.h>
#include <unistd.h>
#include "bound_check.h"
#include "cli.h"
#include "knotif_fixture.h"
#include "unit.h"

static const struct bound_config slack50 = { .slack_ns = 50 };

/* A killable wait: notify 0, recv 100, reply @reply, return @ret. */
static struct knotif killable_wait(__u64 reply, __u64 ret)
{
	struct knotif k = {};

	k.have_event = true;
	k.ev.filter_killable = 1;
	k.ev.t_notify_ns = 1;
	k.ev.t_recv_ns = 100;
	k.ev.t_reply_ns = reply;
	k.ev.t_return_ns = ret;
	k.ev.reply_kind = NW_REPLY_VALUE;
	k.ev.ret = 42;
	return k;
}

static void add_signal(struct knotif *k, __u64 sent, __u64 delivered)
{
	fixture_add_signal(k, SIGURG, sent, 0, delivered);
}

TEST(bound_held_within_slack)
{
	struct knotif k = killable_wait(1100, 1110);
	struct bound_signal b;

	add_signal(&k, 200, 1150); /* delivered 40 after the return */
	knotif_derive(&k);
	ASSERT_TRUE(k.effect[0] == NW_EFFECT_DEFERRED);
	bound_check_signal(&slack50, &k, 0, &b);
	EXPECT_EQ(b.status, BOUND_CHECKED);
	EXPECT_EQ(b.pending_ns, 950);
	EXPECT_EQ(b.remaining_ns, 900);
	EXPECT_EQ(b.wake_ns, 10);
	EXPECT_EQ(b.allowed_ns, 960);
	EXPECT_EQ(b.excess_ns, 40);
	EXPECT_TRUE(!b.bound_violated && !b.budget_violated);
}

TEST(bound_exactly_at_allowed_holds_one_more_violates)
{
	struct knotif k = killable_wait(1100, 1110);
	struct bound_signal b;

	add_signal(&k, 200, 1160); /* pending 960 == 900 + 10 + 50 */
	add_signal(&k, 300, 1161);
	knotif_derive(&k);
	bound_check_signal(&slack50, &k, 0, &b);
	EXPECT_EQ(b.excess_ns, 50);
	EXPECT_TRUE(!b.bound_violated);
	bound_check_signal(&slack50, &k, 1, &b);
	EXPECT_EQ(b.excess_ns, 51);
	EXPECT_TRUE(b.bound_violated);
}

TEST(bound_target_held_after_return_is_a_violation)
{
	/* stopped between sys_exit and delivery: pending grows, wake does not */
	struct knotif k = killable_wait(1100, 1110);
	struct bound_knotif r;

	add_signal(&k, 200, 20000000);
	knotif_derive(&k);
	bound_check_knotif(&slack50, &k, &r);
	EXPECT_EQ(r.checked, 1);
	EXPECT_EQ(r.violations, 1);
	EXPECT_EQ(r.sig[0].excess_ns, 20000000 - 1110);
}

TEST(bound_only_deferred_signals)
{
	struct knotif k = killable_wait(0, 500);
	struct bound_knotif r;

	/* interrupted: the wait ended at the signal, nothing was deferred */
	k.ev.reply_kind = NW_REPLY_NONE;
	k.ev.t_reply_ns = 0;
	k.ev.ret = -512;
	add_signal(&k, 400, 510);
	knotif_derive(&k);
	ASSERT_TRUE(k.effect[0] == NW_EFFECT_INTERRUPTED);
	bound_check_knotif(&slack50, &k, &r);
	EXPECT_EQ(r.sig[0].status, BOUND_NOT_DEFERRED);
	EXPECT_EQ(r.checked + r.unchecked + r.violations, 0);
	/* out of range index */
	bound_check_signal(&slack50, &k, NW_MAX_SIGNALS + 3, &r.sig[1]);
	EXPECT_EQ(r.sig[1].status, BOUND_NOT_DEFERRED);
}

TEST(bound_no_reply_is_uncheckable_but_budget_counts)
{
	struct bound_config cfg = { .slack_ns = 50, .budget_ns = 100 };
	struct knotif k = killable_wait(0, 5000);
	struct bound_signal b;

	/* the listener went away: ENOSYS, no reply ever reached the target */
	k.ev.reply_kind = NW_REPLY_NONE;
	k.ev.ret = -38;
	k.outcome = NW_OUTCOME_SUPERVISOR_GONE;
	add_signal(&k, 200, 5010);
	k.effect[0] = NW_EFFECT_DEFERRED;
	bound_check_signal(&cfg, &k, 0, &b);
	EXPECT_EQ(b.status, BOUND_UNCHECKABLE);
	EXPECT_STREQ(b.why, "no reply reached the target");
	EXPECT_TRUE(b.budget_checked && b.budget_violated);
	EXPECT_EQ(b.pending_ns, 4810);
	EXPECT_TRUE(!b.bound_violated);
}

TEST(bound_missing_timestamps)
{
	struct knotif k = killable_wait(1100, 1110);
	struct bound_signal b;

	add_signal(&k, 0, 1150); /* pending before the wait: no send time */
	add_signal(&k, 200, 0); /* never delivered */
	k.reply_reached = true;
	k.effect[0] = k.effect[1] = NW_EFFECT_DEFERRED;
	bound_check_signal(&slack50, &k, 0, &b);
	EXPECT_EQ(b.status, BOUND_UNCHECKABLE);
	EXPECT_TRUE(!b.budget_checked && !b.bound_violated);
	bound_check_signal(&slack50, &k, 1, &b);
	EXPECT_EQ(b.status, BOUND_UNCHECKABLE);
	EXPECT_STREQ(b.why, "no delivery time");
	/* still waiting at exit: no return */
	k.pending = true;
	k.t_delivered_ns[1] = 1150;
	bound_check_signal(&slack50, &k, 1, &b);
	EXPECT_STREQ(b.why, "the target did not return while traced");
}

TEST(bound_disordered_timestamps_do_not_underflow)
{
	struct knotif k = killable_wait(1100, 1110);
	struct bound_signal b;

	k.reply_reached = true;
	add_signal(&k, 1105, 1150); /* sent after the reply */
	add_signal(&k, 200, 150); /* delivered before sent */
	add_signal(&k, 200, 1105); /* delivered before the return */
	k.effect[0] = k.effect[1] = k.effect[2] = NW_EFFECT_DEFERRED;
	bound_check_signal(&slack50, &k, 0, &b);
	EXPECT_EQ(b.status, BOUND_UNCHECKABLE);
	EXPECT_STREQ(b.why, "sent after the reply");
	EXPECT_TRUE(b.remaining_ns < 1000 && !b.bound_violated);
	bound_check_signal(&slack50, &k, 1, &b);
	EXPECT_STREQ(b.why, "delivered before sent");
	EXPECT_TRUE(b.pending_ns == 0 && !b.budget_violated);
	bound_check_signal(&slack50, &k, 2, &b);
	EXPECT_EQ(b.status, BOUND_CHECKED);
	EXPECT_EQ(b.excess_ns, -5);
	EXPECT_TRUE(!b.bound_violated);
	/* return before the reply */
	k.ev.t_return_ns = 1000;
	bound_check_signal(&slack50, &k, 2, &b);
	EXPECT_STREQ(b.why, "returned before the reply");
	EXPECT_TRUE(b.wake_ns < 1000);
}

TEST(bound_huge_timestamps)
{
	struct knotif k = killable_wait(UINT64_MAX / 2 + 1000, UINT64_MAX / 2 + 1010);
	struct bound_signal b;

	add_signal(&k, UINT64_MAX / 2, UINT64_MAX / 2 + 2000);
	knotif_derive(&k);
	bound_check_signal(&slack50, &k, 0, &b);
	EXPECT_EQ(b.status, BOUND_CHECKED);
	EXPECT_EQ(b.excess_ns, 990);
	EXPECT_TRUE(b.bound_violated);
}

TEST(bound_verdicts_and_exit_codes)
{
	struct bound_config cfg = { .slack_ns = 50, .budget_ns = 1000 };
	struct nw_counters none = {}, dropped = { .dropped_knotifs = 3 };
	struct knotif held = killable_wait(1100, 1110);
	struct knotif slow = killable_wait(3100, 3110);
	struct bound_check bc;
	struct bound_stats st;

	add_signal(&held, 200, 1120);
	add_signal(&slow, 200, 5000); /* excess 1890, pending 4800 */
	knotif_derive(&held);
	knotif_derive(&slow);

	bound_check_stats(NULL, &st);
	EXPECT_EQ(st.verdict, BOUND_UNKNOWN);
	EXPECT_EQ(st.checked, 0);

	bound_check_init(&bc, &cfg);
	bound_check_set_lost(&bc, &none, 0, 0);
	bound_check_stats(&bc, &st);
	EXPECT_EQ(st.verdict, BOUND_UNKNOWN); /* nothing deferred */
	EXPECT_STREQ(bound_unknown_reason(&st), "no deferred signal was traced");
	EXPECT_EQ(bound_verdict_exit_code(st.verdict), 2);

	bound_check_add(&bc, &held);
	bound_check_stats(&bc, &st);
	EXPECT_EQ(st.verdict, BOUND_HELD);
	EXPECT_EQ(st.max_excess_ns, 10);
	EXPECT_EQ(bound_verdict_exit_code(st.verdict), 0);
	EXPECT_TRUE(bound_unknown_reason(&st) == NULL);

	bound_check_add(&bc, &slow);
	bound_check_stats(&bc, &st);
	EXPECT_EQ(st.verdict, BOUND_VIOLATED);
	EXPECT_EQ(st.checked, 2);
	EXPECT_EQ(st.violations, 1);
	EXPECT_EQ(st.budget_violations, 1);
	EXPECT_EQ(st.max_excess_ns, 1890);
	EXPECT_EQ(st.max_pending_ns, 4800);
	EXPECT_EQ(bound_verdict_exit_code(st.verdict), 1);
	EXPECT_STREQ(bound_verdict_name(st.verdict), "violated");

	/* partial data: the verdict is not built on it */
	bound_check_set_lost(&bc, &dropped, 0, 1);
	bound_check_stats(&bc, &st);
	EXPECT_EQ(st.verdict, BOUND_UNKNOWN);
	EXPECT_EQ(st.lost, 4);
	EXPECT_EQ(st.dropped_knotifs, 3);
	EXPECT_EQ(st.decode_errors, 1);
	EXPECT_EQ(bound_verdict_exit_code(st.verdict), 2);
	EXPECT_STREQ(bound_verdict_name(st.verdict), "unknown");
}

TEST(bound_only_budget_violated)
{
	struct bound_config cfg = { .slack_ns = 50, .budget_ns = 500 };
	struct knotif k = killable_wait(1100, 1110);
	struct bound_check bc;
	struct bound_stats st;

	add_signal(&k, 200, 1120); /* pending 920 > 500, bound held */
	knotif_derive(&k);
	bound_check_init(&bc, &cfg);
	bound_check_add(&bc, &k);
	bound_check_stats(&bc, &st);
	EXPECT_EQ(st.violations, 0);
	EXPECT_EQ(st.budget_violations, 1);
	EXPECT_EQ(st.verdict, BOUND_VIOLATED);
}

static enum cli_result parse(struct env *env, int argc, char **argv)
{
	optind = 0;
	return cli_parse(argc, argv, env);
}

TEST(cli_bound_and_timeline_options)
{
	struct env env;
	char *ok[] = { "notifwait", "--check-bound", "--slack", "0", "--budget",
		       "10ms", "--timeline", "t.svg", "--timeline-slowest",
		       "5", "--timeline-window", "0.5:2", NULL };
	char *dflt[] = { "notifwait", "--check-bound", NULL };
	char *budget_alone[] = { "notifwait", "--budget", "10ms", NULL };
	char *slack_alone[] = { "notifwait", "--slack", "10us", NULL };
	char *bad_budget[] = { "notifwait", "--check-bound", "--budget", "0",
			       NULL };
	char *bad_window[] = { "notifwait", "--timeline", "a.html",
			       "--timeline-window", "2:1", NULL };
	char *bad_file[] = { "notifwait", "--timeline", "a.png", NULL };
	char *window_alone[] = { "notifwait", "--timeline-window", "0:1", NULL };

	EXPECT_EQ(parse(&env, 12, ok), CLI_OK);
	EXPECT_TRUE(env.check_bound && env.bound_slack_s == 0);
	EXPECT_TRUE(env.bound_budget_s == 0.01);
	EXPECT_STREQ(env.timeline, "t.svg");
	EXPECT_EQ(env.timeline_slowest, 5);
	EXPECT_TRUE(env.timeline_window && env.timeline_from_s == 0.5 &&
		    env.timeline_to_s == 2);
	EXPECT_EQ(parse(&env, 2, dflt), CLI_OK);
	EXPECT_TRUE(env.bound_slack_s == 50e-6 && env.bound_budget_s == 0);
	EXPECT_EQ(parse(&env, 3, budget_alone), CLI_ERROR);
	EXPECT_EQ(parse(&env, 3, slack_alone), CLI_ERROR);
	EXPECT_EQ(parse(&env, 4, bad_budget), CLI_ERROR);
	EXPECT_EQ(parse(&env, 5, bad_window), CLI_ERROR);
	EXPECT_EQ(parse(&env, 3, bad_file), CLI_ERROR);
	EXPECT_EQ(parse(&env, 3, window_alone), CLI_ERROR);
}
