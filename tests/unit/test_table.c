// SPDX-License-Identifier: GPL-2.0
#include "knotif_table.h"
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

/* A closed wait, as the joiner hands it to the table. */
static struct knotif *closed(struct knotif_table *t,
			     const struct nw_knotif_event *e, bool pending)
{
	struct knotif *k = knotif_table_get(t, &e->key);

	if (!k)
		return NULL;
	k->ev = *e;
	k->have_event = true;
	k->pending = pending;
	return k;
}

TEST(settles_after_delivery_and_merges_late_records)
{
	struct seen seen = {};
	struct knotif_table *t = knotif_table_new(ready, &seen);
	struct nw_knotif_event e = finished(5, 1000);
	struct nw_addfd_event add = { .kind = NW_REC_ADDFD };
	struct knotif *k;

	ASSERT_TRUE(t);
	e.nsignals = 1;
	e.signals[0].sig = 23;
	e.signals[0].t_sent_ns = 500;
	k = closed(t, &e, false);
	ASSERT_TRUE(k);
	/* an undelivered signal holds the record past the settle time */
	knotif_table_flush(t, 1000 + NW_SETTLE_NS + 1);
	EXPECT_EQ(seen.n, 0);
	add.key = e.key;
	add.ret = 7;
	add.flags = NW_ADDFD_FLAG_SEND;
	knotif_add_addfd(k, &add);
	knotif_set_delivered(k, 23, 500, 1100, 7);
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
	struct nw_knotif_event e = finished(6, 1000), p = finished(7, 0);

	ASSERT_TRUE(t);
	e.nsignals = 1;
	e.signals[0].sig = 10;
	e.signals[0].t_sent_ns = 2;
	ASSERT_TRUE(closed(t, &e, false));
	knotif_table_flush(t, 1000 + NW_LINGER_NS - 1);
	EXPECT_EQ(seen.n, 0);
	knotif_table_flush(t, 1000 + NW_LINGER_NS);
	EXPECT_EQ(seen.n, 1);
	EXPECT_EQ(seen.last.effect[0], NW_EFFECT_PENDING);

	ASSERT_TRUE(closed(t, &p, true));
	knotif_table_flush_all(t);
	EXPECT_EQ(seen.n, 2);
	EXPECT_EQ(seen.last.outcome, NW_OUTCOME_PENDING);
	knotif_table_free(t);
}
