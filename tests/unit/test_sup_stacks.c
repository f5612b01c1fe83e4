// SPDX-License-Identifier: GPL-2.0
/* sup_stacks.h: frame order, the [lost] halves, one lookup per stack. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "folded.h"
#include "sup_stacks.h"
#include "unit.h"

__attribute__((noinline)) int nw_sup_stacks_unit_outer(int x);
__attribute__((noinline)) int nw_sup_stacks_unit_inner(int x);
__attribute__((noinline)) int nw_sup_stacks_unit_outer(int x)
{
	__asm__ volatile("" : "+r"(x));
	return x + 1;
}

__attribute__((noinline)) int nw_sup_stacks_unit_inner(int x)
{
	__asm__ volatile("" : "+r"(x));
	return x + 2;
}

struct fake_map {
	int lookups;
};

/* id 1: a user stack, leaf (inner) first; id 2: no such id */
static int fake_lookup(void *ctx, __s32 id, __u64 ips[NW_SUP_STACK_DEPTH])
{
	struct fake_map *m = ctx;

	m->lookups++;
	if (id != 1)
		return -ENOENT;
	ips[0] = (uintptr_t)&nw_sup_stacks_unit_inner + 1;
	ips[1] = (uintptr_t)&nw_sup_stacks_unit_outer + 1;
	return 2;
}

static char *written(const struct sup_stacks *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	if (sup_stacks_write(s, f)) {
		fclose(f);
		free(buf);
		return NULL;
	}
	fclose(f);
	return buf;
}

TEST(sup_stacks_root_first_with_lost_halves)
{
	struct fake_map m = {};
	struct sup_stacks *s = sup_stacks_new(fake_lookup, &m);
	char *text;

	ASSERT_TRUE(s != NULL);
	EXPECT_EQ(nw_sup_stacks_unit_outer(1) + nw_sup_stacks_unit_inner(1), 5);
	/* the kernel half failed in BPF (-EFAULT): one [lost]_[k] frame */
	sup_stacks_add(s, getpid(), getpid(), "sup", -EFAULT, 1, 300);
	sup_stacks_add(s, getpid(), getpid() + 1, "sup", -EEXIST, 1, 200);
	/* an id the map no longer has: counted, both halves [lost] */
	sup_stacks_add(s, getpid(), getpid(), "sup", 2, 2, 7);
	text = written(s);
	ASSERT_TRUE(text != NULL);
	EXPECT_STREQ(
		text,
		"sup;nw_sup_stacks_unit_outer;nw_sup_stacks_unit_inner;[lost]_[k] 500\n"
		"sup;[lost];[lost]_[k] 7\n");
	/* the same process and ids: looked up once (1, then 2 twice) */
	EXPECT_EQ(m.lookups, 3);
	EXPECT_EQ(sup_stacks_unresolved(s), 2);
	EXPECT_EQ(folded_total(sup_stacks_folded(s)), 507);
	free(text);
	sup_stacks_free(s);
	sup_stacks_free(NULL);
}
