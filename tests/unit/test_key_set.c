// SPDX-License-Identifier: GPL-2.0
/* key_set.h: the newest N keys, exactly, through evictions and shifts. */
#include <stdlib.h>
#include "key_set.h"
#include "unit.h"

TEST(key_set_forgets_the_oldest_first)
{
	struct key_set *s = key_set_new(4);
	struct nw_knotif_key k = { .filter = 0xffff888100000000ULL };
	unsigned int i;

	ASSERT_TRUE(s != NULL);
	for (i = 1; i <= 6; i++) {
		k.id = i;
		key_set_add(s, &k);
	}
	for (i = 1; i <= 6; i++) {
		k.id = i;
		EXPECT_EQ(key_set_has(s, &k), i > 2);
	}
	/* adding a key it has does not make it newer */
	k.id = 3;
	key_set_add(s, &k);
	k.id = 7;
	key_set_add(s, &k);
	k.id = 3;
	EXPECT_TRUE(!key_set_has(s, &k));
	/* the zero key is a key like any other */
	k = (struct nw_knotif_key){ 0 };
	EXPECT_TRUE(!key_set_has(s, &k));
	key_set_add(s, &k);
	EXPECT_TRUE(key_set_has(s, &k));
	key_set_free(s);
}

/*
 * Against a plain FIFO, with few slots and keys from few listeners, so
 * that runs collide, wrap around the table and are shifted back often.
 */
static bool fifo_has(const struct nw_knotif_key *fifo, unsigned int head,
		     unsigned int len, unsigned int cap,
		     const struct nw_knotif_key *k)
{
	unsigned int i;

	for (i = 0; i < len; i++)
		if (fifo[(head + i) % cap].filter == k->filter &&
		    fifo[(head + i) % cap].id == k->id)
			return true;
	return false;
}

TEST(key_set_matches_a_fifo_model)
{
	enum { CAP = 16, KEYS = 200, ROUNDS = 40000 };
	struct nw_knotif_key fifo[CAP], k;
	struct key_set *s = key_set_new(CAP);
	unsigned int len = 0, head = 0, r, bad = 0;
	bool in_model;

	ASSERT_TRUE(s != NULL);
	srand(14);
	for (r = 0; r < ROUNDS; r++) {
		k.filter = 0xffff888100000000ULL + (rand() % 3) * 0x400;
		/* ids across runs of 64, mostly near the last ones */
		k.id = r / 200 + rand() % (r % 7 ? 24 : KEYS);
		in_model = fifo_has(fifo, head, len, CAP, &k);
		if (key_set_has(s, &k) != in_model)
			bad++;
		key_set_add(s, &k);
		if (!in_model) {
			if (len == CAP) {
				head = (head + 1) % CAP;
				len--;
			}
			fifo[(head + len++) % CAP] = k;
		}
	}
	EXPECT_EQ(bad, 0);
	key_set_free(s);
}
