// SPDX-License-Identifier: GPL-2.0
#include <stdlib.h>
#include "hist.h"
#include "stats.h"
#include "unit.h"

TEST(log2_slots_match_libbpf_tools)
{
	EXPECT_EQ(log2_slot(0), 0);
	EXPECT_EQ(log2_slot(1), 0);
	EXPECT_EQ(log2_slot(2), 1);
	EXPECT_EQ(log2_slot(3), 1);
	EXPECT_EQ(log2_slot(4), 2);
	EXPECT_EQ(log2_slot(1023), 9);
	EXPECT_EQ(log2_slot(1024), 10);
	EXPECT_EQ(log2_slot(~0ULL), NW_HIST_SLOTS - 1);
}

TEST(hist_prints_rows_up_to_the_highest_slot)
{
	struct log2_hist h = {};
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	log2_hist_add(&h, 1);
	log2_hist_add(&h, 5);
	log2_hist_add(&h, 5);
	print_log2_hist(f, &h, "usecs");
	fclose(f);
	EXPECT_TRUE(strstr(buf, "usecs"));
	EXPECT_TRUE(strstr(buf, "         0 -> 1          : 1 "));
	EXPECT_TRUE(strstr(buf, "         4 -> 7          : 2 "));
	EXPECT_TRUE(!strstr(buf, "8 -> 15"));
	EXPECT_EQ(h.count, 3);
	free(buf);
}

static struct knotif handled(unsigned long long handle_ns, const char *sup)
{
	struct knotif k = {};

	k.have_event = true;
	k.ev.t_notify_ns = 1000;
	k.ev.t_recv_ns = 2000;
	k.ev.t_reply_ns = 2000 + handle_ns;
	k.ev.t_return_ns = 3000 + handle_ns;
	k.ev.reply_kind = NW_REPLY_VALUE;
	k.ev.supervisor_tgid = 10;
	snprintf(k.ev.supervisor_comm, sizeof(k.ev.supervisor_comm), "%s", sup);
	knotif_derive(&k);
	return k;
}

TEST(percentiles_nearest_rank_per_group)
{
	struct stats s;
	struct knotif k;
	int i;

	stats_init(&s);
	for (i = 1; i <= 100; i++) {
		k = handled(i * 1000ULL, "sup");
		EXPECT_EQ(stats_add(&s, &k, "getppid"), 0);
	}
	k = handled(5, "other");
	stats_add(&s, &k, "openat");
	ASSERT_TRUE(s.by_supervisor.n == 2);
	EXPECT_EQ(stats_percentile(&s.by_supervisor.groups[0], 50), 50000);
	EXPECT_EQ(stats_percentile(&s.by_supervisor.groups[0], 99), 99000);
	EXPECT_EQ(stats_percentile(&s.by_supervisor.groups[0], 100), 100000);
	EXPECT_EQ(s.by_syscall.groups[1].count, 1);
	EXPECT_EQ(s.by_outcome[NW_OUTCOME_REPLIED], 101);
	stats_free(&s);
}

TEST(deferred_signal_without_send_time_has_no_pending_time)
{
	struct stats s;
	struct knotif k = handled(1000, "sup");

	/* pending before the wait, held by its killable sleep until the reply */
	k.ev.filter_killable = 1;
	k.ev.prior_sig = 23;
	knotif_add_prior_guess(&k);
	k.t_delivered_ns[0] = 5000;
	knotif_derive(&k);
	ASSERT_TRUE(k.effect[0] == NW_EFFECT_DEFERRED);
	stats_init(&s);
	EXPECT_EQ(stats_add(&s, &k, "getppid"), 0);
	EXPECT_EQ(s.max_deferred_pending_ns, 0);
	stats_free(&s);
}
