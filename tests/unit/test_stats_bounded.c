// SPDX-License-Identifier: GPL-2.0
/* A group's handle times stay bounded on a long run (the soak's RSS). */
#include <stdio.h>
#include "stats.h"
#include "unit.h"

static struct knotif handled_in(unsigned long long handle_ns)
{
	struct knotif k = {};

	k.have_event = true;
	k.ev.t_notify_ns = 1000;
	k.ev.t_recv_ns = 2000;
	k.ev.t_reply_ns = 2000 + handle_ns;
	k.ev.t_return_ns = 3000 + handle_ns;
	k.ev.reply_kind = NW_REPLY_VALUE;
	k.ev.supervisor_tgid = 10;
	snprintf(k.ev.supervisor_comm, sizeof(k.ev.supervisor_comm), "sup");
	knotif_derive(&k);
	return k;
}

TEST(group_samples_bounded_percentiles_close)
{
	const unsigned int n = 4 * NW_GROUP_SAMPLES;
	struct nw_group *g;
	struct knotif k;
	unsigned long long p50, p99;
	struct stats s;
	unsigned int i;

	stats_init(&s);
	/* handle times 1..n us, in an order unrelated to their size */
	for (i = 0; i < n; i++) {
		k = handled_in((((unsigned long long)i * 7919) % n + 1) * 1000);
		ASSERT_TRUE(stats_add(&s, &k, "getppid") == 0);
	}
	g = &s.by_supervisor.groups[0];
	EXPECT_EQ(g->count, n);
	EXPECT_TRUE(g->nhandle == NW_GROUP_SAMPLES);
	EXPECT_TRUE(g->cap <= NW_GROUP_SAMPLES);
	EXPECT_EQ(stats_percentile(g, 100), (unsigned long long)n * 1000);
	p50 = stats_percentile(g, 50) / 1000;
	p99 = stats_percentile(g, 99) / 1000;
	/* a uniform sample of 65536: within 2% of the rank */
	EXPECT_TRUE(p50 > n / 2 - n / 50 && p50 < n / 2 + n / 50);
	EXPECT_TRUE(p99 > n * 97 / 100 && p99 <= n);
	stats_free(&s);
}

TEST(supervisor_groups_bounded)
{
	struct stats s;
	struct knotif k;
	unsigned int i;

	stats_init(&s);
	for (i = 0; i < NW_MAX_SUPERVISOR_GROUPS + 100; i++) {
		k = handled_in(1000);
		k.ev.supervisor_tgid = 100 + i;
		ASSERT_TRUE(stats_add(&s, &k, "getppid") == 0);
	}
	/* the first ones keep their rows, later ones share one */
	EXPECT_TRUE(s.by_supervisor.n == NW_MAX_SUPERVISOR_GROUPS + 1);
	EXPECT_STREQ(s.by_supervisor.groups[0].name, "sup/100");
	EXPECT_STREQ(s.by_supervisor.groups[NW_MAX_SUPERVISOR_GROUPS].name,
		     NW_GROUP_OTHERS);
	EXPECT_EQ(s.by_supervisor.groups[NW_MAX_SUPERVISOR_GROUPS].count, 100);
	EXPECT_EQ(s.knotifs, NW_MAX_SUPERVISOR_GROUPS + 100);
	stats_free(&s);
}
