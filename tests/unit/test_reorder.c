// SPDX-License-Identifier: GPL-2.0
/* reorder.h: out by (t_ns, arrival), whatever mix of run and heap. */
#include <stdlib.h>
#include "reorder.h"
#include "unit.h"

struct item {
	__u64 t;
	unsigned int arrival;
};

static int by_time_then_arrival(const void *a, const void *b)
{
	const struct item *x = a, *y = b;

	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	return x->arrival < y->arrival ? -1 : x->arrival > y->arrival;
}

/*
 * Nearly in order, as two CPUs' facts come: small steps back, equal
 * times, and now and then one far behind; popped while pushing, as the
 * joiner's window does, and the rest at the end.
 */
TEST(reorder_pops_by_time_then_arrival)
{
	enum { N = 5000 };
	static struct item in[N], want[N];
	struct reorder r = { 0 };
	unsigned char out[NW_FACT_MAX_SIZE];
	unsigned int i, got = 0, bad = 0;
	__u64 t = 1000, last = 0;
	struct item x;

	srand(7);
	for (i = 0; i < N; i++) {
		t += rand() % 5;
		in[i].t = t - (rand() % 4 == 0 ? rand() % 20 : 0) -
			  (rand() % 100 == 0 ? 900 : 0);
		in[i].arrival = i;
	}
	memcpy(want, in, sizeof(in));
	qsort(want, N, sizeof(want[0]), by_time_then_arrival);
	for (i = 0; i < N; i++) {
		ASSERT_TRUE(reorder_push(&r, in[i].t, &in[i], sizeof(in[i])) ==
			    0);
		/* pop what is 950 older than the newest: all in order */
		while (reorder_peek(&r, &t) && t + 950 < in[i].t) {
			reorder_pop(&r, out);
			memcpy(&x, out, sizeof(x));
			if (got >= N || x.arrival != want[got].arrival)
				bad++;
			if (x.t < last)
				bad++;
			last = x.t;
			got++;
		}
	}
	while (reorder_len(&r)) {
		reorder_pop(&r, out);
		memcpy(&x, out, sizeof(x));
		if (got >= N || x.arrival != want[got].arrival)
			bad++;
		got++;
	}
	EXPECT_EQ(got, N);
	EXPECT_EQ(bad, 0);
	EXPECT_TRUE(!reorder_peek(&r, &t));
	reorder_free(&r);
}
