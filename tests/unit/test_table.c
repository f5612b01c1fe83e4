// SPDX-License-Identifier: GPL-2.0
#include "decoder.h"
#include "unit.h"

struct seen {
	int n;
	struct knotif last;
};

static void ready(struct knotif *k, void *ctx)
{
	struct seen *s = ctx;

	s->n++;
	s->last = *k;
}

static struct nw_knotif_event finished(__u64 id, __u64 t_return)
{
	struct nw_knotif_event e = { .kind = NW_REC_KNOTIF };

	e.key.filter = 0xabc;
	e.key.id = id;
	e.t_notify_ns = 1;
	e.t_recv_ns = 2;
	e.t_reply_ns = 3;
	e.t_return_ns = t_return;
	e.reply_kind = NW_REPLY_VALUE;
	return e;
}

TEST(settles_after_delivery_and_merges_late_records)
{
	struct seen seen = {};
	struct knotif_table *t = knotif_table_new(ready, &seen);
	struct decoder d = { .table = t };
	struct nw_knotif_event e = finished(5, 1000);
	struct nw_signal_delivered_event del = { .kind = NW_REC_SIGNAL_DELIVERED };
	struct nw_addfd_event add = { .kind = NW_REC_ADDFD };

	ASSERT_TRUE(t);
	e.nsignals = 1;
	e.signals[0].sig = 23;
	e.signals[0].t_sent_ns = 500;
	EXPECT_EQ(decoder_feed(&d, &e, sizeof(e)), 0);
	/* an undelivered signal holds the record past the settle time */
	knotif_table_flush(t, 1000 + NW_SETTLE_NS + 1);
	EXPECT_EQ(seen.n, 0);
	add.key = e.key;
	add.ret = 7;
	add.flags = NW_ADDFD_FLAG_SEND;
	EXPECT_EQ(decoder_feed(&d, &add, sizeof(add)), 0);
	del.key = e.key;
	del.sig = 23;
	del.t_sent_ns = 500;
	del.t_delivered_ns = 1100;
	EXPECT_EQ(decoder_feed(&d, &del, sizeof(del)), 0);
	knotif_table_flush(t, 1000 + NW_SETTLE_NS + 1);
	EXPECT_EQ(seen.n, 1);
	EXPECT_EQ(seen.last.t_delivered_ns[0], 1100);
	EXPECT_EQ(seen.last.naddfd, 1);
	EXPECT_EQ(seen.last.effect[0], NW_EFFECT_AFTER_REPLY);
	EXPECT_EQ(knotif_table_size(t), 0);
	knotif_table_free(t);
}

TEST(linger_bounds_the_wait_and_flush_all_takes_pending)
{
	struct seen seen = {};
	struct knotif_table *t = knotif_table_new(ready, &seen);
	struct decoder d = { .table = t };
	struct nw_knotif_event e = finished(6, 1000), p = finished(7, 0);

	ASSERT_TRUE(t);
	e.nsignals = 1;
	e.signals[0].sig = 10;
	e.signals[0].t_sent_ns = 2;
	decoder_feed(&d, &e, sizeof(e));
	knotif_table_flush(t, 1000 + NW_LINGER_NS - 1);
	EXPECT_EQ(seen.n, 0);
	knotif_table_flush(t, 1000 + NW_LINGER_NS);
	EXPECT_EQ(seen.n, 1);
	EXPECT_EQ(seen.last.effect[0], NW_EFFECT_PENDING);

	decoder_feed_pending(&d, &p);
	knotif_table_flush_all(t);
	EXPECT_EQ(seen.n, 2);
	EXPECT_EQ(seen.last.outcome, NW_OUTCOME_PENDING);
	knotif_table_free(t);
}

TEST(rejects_foreign_records)
{
	struct decoder d = {};
	char junk[3] = { 1, 2, 3 };
	struct nw_addfd_event short_rec = { .kind = NW_REC_KNOTIF };

	EXPECT_EQ(decoder_feed(&d, junk, sizeof(junk)), -22);
	EXPECT_EQ(decoder_feed(&d, &short_rec, sizeof(short_rec)), -22);
	EXPECT_EQ(d.malformed, 2);
}
