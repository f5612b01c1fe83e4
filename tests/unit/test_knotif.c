// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <signal.h>
#include "knotif.h"
#include "knotif_fixture.h"
#include "unit.h"

static struct knotif replied_after(__u8 reply_kind, long ret)
{
	struct knotif k = {};

	k.have_event = true;
	k.ev.t_notify_ns = 10;
	k.ev.t_recv_ns = 20;
	k.ev.t_reply_ns = 30;
	k.ev.t_return_ns = 40;
	k.ev.reply_kind = reply_kind;
	k.ev.ret = ret;
	return k;
}

static void add_signal(struct knotif *k, int sig, __u64 sent, int result,
		       __u64 delivered)
{
	fixture_add_signal(k, sig, sent, result, delivered);
}

TEST(outcomes_from_reply_and_return)
{
	struct knotif k = replied_after(NW_REPLY_VALUE, 42);

	knotif_derive(&k);
	EXPECT_EQ(k.outcome, NW_OUTCOME_REPLIED);
	EXPECT_TRUE(k.reply_reached);

	k = replied_after(NW_REPLY_CONTINUE, 0);
	knotif_derive(&k);
	EXPECT_EQ(k.outcome, NW_OUTCOME_CONTINUED);

	k = replied_after(NW_REPLY_NONE, -ENOSYS);
	knotif_derive(&k);
	EXPECT_EQ(k.outcome, NW_OUTCOME_SUPERVISOR_GONE);

	k = replied_after(NW_REPLY_NONE, -512);
	knotif_derive(&k);
	EXPECT_EQ(k.outcome, NW_OUTCOME_INTERRUPTED_AFTER_RECV);
	k.ev.t_recv_ns = 0;
	knotif_derive(&k);
	EXPECT_EQ(k.outcome, NW_OUTCOME_INTERRUPTED_BEFORE_RECV);

	/* SEND began, the target was interrupted first: no reply reached it */
	k = replied_after(NW_REPLY_VALUE, -512);
	knotif_derive(&k);
	EXPECT_EQ(k.outcome, NW_OUTCOME_INTERRUPTED_AFTER_RECV);
	EXPECT_TRUE(!k.reply_reached);

	/* a supervisor may answer -ERESTARTSYS itself */
	k = replied_after(NW_REPLY_ERROR, -512);
	k.ev.reply_error = -512;
	knotif_derive(&k);
	EXPECT_EQ(k.outcome, NW_OUTCOME_REPLIED);

	k = replied_after(NW_REPLY_NONE, -512);
	k.ev.fatal_pending = 1;
	knotif_derive(&k);
	EXPECT_EQ(k.outcome, NW_OUTCOME_KILLED);

	k = replied_after(NW_REPLY_NONE, 0);
	k.pending = true;
	knotif_derive(&k);
	EXPECT_EQ(k.outcome, NW_OUTCOME_PENDING);
}

TEST(signal_effects)
{
	struct knotif k = replied_after(NW_REPLY_VALUE, 42);

	k.ev.filter_killable = 1;
	add_signal(&k, SIGURG, 25, 0, 41);
	add_signal(&k, SIGURG, 26, 2, 0); /* already pending */
	add_signal(&k, SIGUSR1, 27, 1, 0); /* ignored */
	knotif_derive(&k);
	EXPECT_EQ(k.effect[0], NW_EFFECT_DEFERRED);
	EXPECT_EQ(k.effect[1], NW_EFFECT_COALESCED);
	EXPECT_EQ(k.effect[2], NW_EFFECT_IGNORED);
	EXPECT_TRUE(!knotif_awaits_delivery(&k));

	k = replied_after(NW_REPLY_NONE, -512);
	add_signal(&k, SIGUSR1, 25, 0, 41);
	knotif_derive(&k);
	EXPECT_EQ(k.effect[0], NW_EFFECT_INTERRUPTED);

	k = replied_after(NW_REPLY_NONE, -512);
	k.ev.fatal_pending = 1;
	add_signal(&k, SIGKILL, 25, 0, 0);
	knotif_derive(&k);
	EXPECT_EQ(k.effect[0], NW_EFFECT_FATAL);

	/* sent after the supervisor began its reply */
	k = replied_after(NW_REPLY_VALUE, 42);
	k.ev.filter_killable = 1;
	add_signal(&k, SIGURG, 30, 0, 41);
	knotif_derive(&k);
	EXPECT_EQ(k.effect[0], NW_EFFECT_AFTER_REPLY);

	/* interruptible wait, not interrupted: the reply won the race */
	k = replied_after(NW_REPLY_VALUE, 42);
	add_signal(&k, SIGURG, 29, 0, 41);
	knotif_derive(&k);
	EXPECT_EQ(k.effect[0], NW_EFFECT_RACED_REPLY);
	k.ev.signals[0].masked = 1;
	knotif_derive(&k);
	EXPECT_EQ(k.effect[0], NW_EFFECT_BLOCKED);

	/* queued but never delivered while traced */
	k = replied_after(NW_REPLY_VALUE, 42);
	k.ev.filter_killable = 1;
	add_signal(&k, SIGUSR2, 25, 0, 0);
	EXPECT_TRUE(knotif_awaits_delivery(&k));
	knotif_derive(&k);
	EXPECT_EQ(k.effect[0], NW_EFFECT_PENDING);
}

TEST(delivery_matches_signal_and_time)
{
	struct knotif k = replied_after(NW_REPLY_VALUE, 1);

	add_signal(&k, SIGURG, 25, 0, 0);
	add_signal(&k, SIGURG, 28, 0, 0);
	knotif_set_delivered(&k, SIGURG, 28, 50, 7);
	EXPECT_EQ(k.t_delivered_ns[0], 0);
	EXPECT_EQ(k.t_delivered_ns[1], 50);
	EXPECT_EQ(k.ev.nsignals, 2);
}

TEST(delivery_completes_a_signal_copied_out_too_early)
{
	struct knotif k = replied_after(NW_REPLY_NONE, -512);

	/* guessed as pending before the wait, with no send time */
	add_signal(&k, SIGURG, 0, 0, 0);
	k.ev.signals[0].before_wait = 1;
	knotif_set_delivered(&k, SIGURG, 35, 45, 9);
	EXPECT_EQ(k.ev.nsignals, 1);
	EXPECT_EQ(k.ev.signals[0].t_sent_ns, 35);
	EXPECT_EQ(k.ev.signals[0].sender_tgid, 9);
	EXPECT_EQ(k.ev.signals[0].before_wait, 0);
	EXPECT_EQ(k.t_delivered_ns[0], 45);

	/* not in the record at all: appended from its delivery */
	knotif_set_delivered(&k, SIGUSR1, 38, 46, 9);
	EXPECT_EQ(k.ev.nsignals, 2);
	EXPECT_EQ(k.ev.signals[1].sig, SIGUSR1);
	EXPECT_EQ(k.t_delivered_ns[1], 46);
}

TEST(wrong_prior_guess_is_dropped_for_the_real_signal)
{
	struct knotif k = replied_after(NW_REPLY_NONE, -512);

	/* the guess and the sender's record both made it into the copy */
	add_signal(&k, SIGURG, 0, 0, 0);
	k.ev.signals[0].before_wait = 1;
	add_signal(&k, SIGURG, 35, 0, 45);
	knotif_derive(&k);
	EXPECT_EQ(k.ev.nsignals, 1);
	EXPECT_EQ(k.ev.signals[0].t_sent_ns, 35);
	EXPECT_EQ(k.t_delivered_ns[0], 45);
	EXPECT_EQ(k.effect[0], NW_EFFECT_INTERRUPTED);
}

TEST(prior_guess_never_overwrites_the_senders_signal)
{
	struct knotif k = replied_after(NW_REPLY_NONE, -512);

	/* the sender's signal made it into the copy beside the guess */
	add_signal(&k, SIGURG, 35, 0, 0);
	k.ev.signals[0].sender_tgid = 7;
	k.ev.prior_sig = SIGURG;
	knotif_add_prior_guess(&k);
	EXPECT_EQ(k.ev.nsignals, 2);
	EXPECT_EQ(k.ev.signals[0].before_wait, 1);
	EXPECT_EQ(k.ev.signals[1].t_sent_ns, 35);
	EXPECT_EQ(k.ev.prior_sig, 0);
	knotif_set_delivered(&k, SIGURG, 35, 45, 7);
	knotif_derive(&k);
	EXPECT_EQ(k.ev.nsignals, 1);
	EXPECT_EQ(k.ev.signals[0].sender_tgid, 7);
	EXPECT_EQ(k.ev.signals[0].t_sent_ns, 35);
	EXPECT_EQ(k.t_delivered_ns[0], 45);

	/* only the guess: it becomes the one signal, sent before the wait */
	k = replied_after(NW_REPLY_NONE, -512);
	k.ev.prior_sig = SIGUSR1;
	knotif_add_prior_guess(&k);
	EXPECT_EQ(k.ev.nsignals, 1);
	EXPECT_EQ(k.ev.signals[0].sig, SIGUSR1);
	EXPECT_EQ(k.ev.signals[0].t_sent_ns, 0);
	knotif_derive(&k);
	EXPECT_EQ(k.effect[0], NW_EFFECT_INTERRUPTED);
}

TEST(prior_guess_stays_beside_a_coalesced_or_realtime_signal)
{
	struct knotif k = replied_after(NW_REPLY_NONE, -512);

	add_signal(&k, SIGURG, 0, 0, 0);
	k.ev.signals[0].before_wait = 1;
	add_signal(&k, SIGURG, 35, 2 /* already pending */, 0);
	knotif_derive(&k);
	EXPECT_EQ(k.ev.nsignals, 2);

	k = replied_after(NW_REPLY_NONE, -512);
	add_signal(&k, 40, 0, 0, 0);
	k.ev.signals[0].before_wait = 1;
	add_signal(&k, 40, 35, 0, 45); /* real-time signals queue */
	knotif_derive(&k);
	EXPECT_EQ(k.ev.nsignals, 2);
}

TEST(prior_guess_goes_first_and_is_the_culprit_before_a_coalesced_one)
{
	struct knotif k = replied_after(NW_REPLY_NONE, -512);

	/* the interrupting SIGURG's sender was held; a later one coalesced */
	add_signal(&k, SIGURG, 35, 2 /* already pending */, 0);
	k.ev.prior_sig = SIGURG;
	knotif_add_prior_guess(&k);
	knotif_derive(&k);
	EXPECT_EQ(k.ev.nsignals, 2);
	EXPECT_EQ(k.ev.signals[0].before_wait, 1);
	EXPECT_EQ(k.ev.signals[0].t_sent_ns, 0);
	EXPECT_EQ(k.effect[0], NW_EFFECT_INTERRUPTED);
	EXPECT_EQ(k.ev.signals[1].t_sent_ns, 35);
	EXPECT_EQ(k.effect[1], NW_EFFECT_COALESCED);
}

TEST(span_refuses_missing_or_reversed)
{
	__u64 d = 99;

	EXPECT_TRUE(!nw_span(0, 5, &d));
	EXPECT_TRUE(!nw_span(5, 0, &d));
	EXPECT_TRUE(!nw_span(6, 5, &d));
	EXPECT_EQ(d, 99);
	EXPECT_TRUE(nw_span(5, 5, &d));
	EXPECT_EQ(d, 0);
}

static struct nw_signal urg_sent_at(__u64 t)
{
	struct nw_signal s = { .t_sent_ns = t,
			       .sig = SIGURG,
			       .sender_tgid = 7 };

	return s;
}

TEST(signal_seen_after_the_return_replaces_the_guess)
{
	struct knotif k = replied_after(NW_REPLY_NONE, -512);
	struct nw_signal late = urg_sent_at(48);

	/* woken by it, the target returned before its sender's program ran */
	k.ev.prior_sig = SIGURG;
	knotif_add_prior_guess(&k);
	late.seen_after_return = 1;
	k.ev.signals[k.ev.nsignals++] =
		late; /* the joiner's claim_just_ended */
	knotif_set_delivered(&k, SIGURG, 48, 50, 7);
	knotif_derive(&k);
	EXPECT_EQ(k.ev.nsignals, 1);
	EXPECT_EQ(k.ev.signals[0].t_sent_ns, 48);
	EXPECT_EQ(k.ev.signals[0].before_wait, 0);
	EXPECT_EQ(k.t_delivered_ns[0], 50);
	EXPECT_EQ(k.effect[0], NW_EFFECT_INTERRUPTED);

	/* a SIGKILL so seen is the fatal one */
	k = replied_after(NW_REPLY_NONE, -512);
	k.ev.fatal_pending = 1;
	late.sig = SIGKILL;
	k.ev.signals[k.ev.nsignals++] = late;
	knotif_derive(&k);
	EXPECT_EQ(k.outcome, NW_OUTCOME_KILLED);
	EXPECT_EQ(k.ev.nsignals, 1);
	EXPECT_EQ(k.effect[0], NW_EFFECT_FATAL);
}

/* The summary's and the findings' supervisor names, as snprintf wrote them. */
TEST(supervisor_name_as_printf_would)
{
	static const struct {
		const char *comm;
		__u32 tgid;
	} cases[] = {
		{ "nw-workload", 2898 },
		{ "sixteen-chars-xx", 4294967295u }, /* comm without its NUL */
		{ "", 1 },
		{ "x", 0 },
	};
	char want[48], got[48], comm[16];
	size_t lens[] = { 48, 13, 1, 5 };
	unsigned int i, l;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		memcpy(comm, cases[i].comm, strnlen(cases[i].comm, 16));
		if (strlen(cases[i].comm) < 16)
			comm[strlen(cases[i].comm)] = 0;
		for (l = 0; l < sizeof(lens) / sizeof(lens[0]); l++) {
			if (cases[i].tgid)
				snprintf(want, lens[l], "%.16s/%u", comm,
					 cases[i].tgid);
			else
				snprintf(want, lens[l], "(not received)");
			memset(got, 'z', sizeof(got));
			nw_supervisor_name(got, lens[l], comm, cases[i].tgid);
			EXPECT_STREQ(got, want);
		}
	}
}
