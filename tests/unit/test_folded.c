// SPDX-License-Identifier: GPL-2.0
/* folded.h: weights add, heaviest first, separators escaped, writes checked. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include "folded.h"
#include "unit.h"

/* folded_write() into a string; the caller frees it */
static char *written(const struct folded *f, int *err)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	if (!out)
		return NULL;
	*err = folded_write(f, out);
	fclose(out);
	return buf;
}

#define ADD(f, w, ...)                                            \
	folded_add(f, (const char *const[]){ __VA_ARGS__ },       \
		   sizeof((const char *const[]){ __VA_ARGS__ }) / \
			   sizeof(const char *),                  \
		   w)

TEST(folded_weights_add_heaviest_first_ties_by_text)
{
	struct folded *f = folded_new();
	char *out;
	int err = 1;

	ASSERT_TRUE(f != NULL);
	EXPECT_EQ(ADD(f, 5, "main", "a", "b"), 0);
	EXPECT_EQ(ADD(f, 10, "main", "c"), 0);
	EXPECT_EQ(ADD(f, 7, "main", "a", "b"), 0);
	EXPECT_EQ(ADD(f, 3, "z"), 0);
	EXPECT_EQ(ADD(f, 3, "y"), 0);
	EXPECT_EQ(ADD(f, 3, "main", "a"), 0); /* a prefix is its own stack */
	EXPECT_EQ(folded_count(f), 5);
	EXPECT_EQ(folded_total(f), 31);
	out = written(f, &err);
	EXPECT_EQ(err, 0);
	EXPECT_STREQ(out, "main;a;b 12\nmain;c 10\nmain;a 3\ny 3\nz 3\n");
	free(out);
	/* an empty stack has no line */
	EXPECT_EQ(folded_add(f, NULL, 0, 1), -EINVAL);
	EXPECT_EQ(folded_count(f), 5);
	/* weights saturate */
	EXPECT_EQ(ADD(f, UINT64_MAX, "y"), 0);
	EXPECT_TRUE(folded_total(f) == UINT64_MAX);
	folded_free(f);
	folded_free(NULL);
}

TEST(folded_escapes_separators_in_frames)
{
	struct folded *f = folded_new();
	char *out;
	int err = 1;

	ASSERT_TRUE(f != NULL);
	EXPECT_EQ(ADD(f, 2, "std::vector<int> push", "a;b", "line\nbreak",
		      "tab\there", "", NULL),
		  0);
	out = written(f, &err);
	EXPECT_EQ(err, 0);
	EXPECT_STREQ(out, "std::vector<int>_push;a_b;line_break;tab_here;"
			  "[unknown];[unknown] 2\n");
	free(out);
	/* escaped text is the key: "x y" and "x_y" are one stack */
	EXPECT_EQ(ADD(f, 1, "x y"), 0);
	EXPECT_EQ(ADD(f, 1, "x_y"), 0);
	EXPECT_EQ(folded_count(f), 2);
	out = written(f, &err);
	EXPECT_STREQ(out, "std::vector<int>_push;a_b;line_break;tab_here;"
			  "[unknown];[unknown] 2\nx_y 2\n");
	free(out);
	folded_free(f);
}

TEST(folded_top_k_in_write_order)
{
	struct folded *f = folded_new();
	struct folded_top top[100];
	char name[16];
	const char *frames[2] = { "root", name };
	int i;

	ASSERT_TRUE(f != NULL);
	EXPECT_EQ(folded_top(f, top, 3), 0);
	for (i = 0; i < 70; i++) { /* weights 0,7,4,1,8,5,2,9,6,3, 7 times */
		snprintf(name, sizeof(name), "f%02d", i);
		EXPECT_EQ(folded_add(f, frames, 2, (__u64)(i * 7 % 10)), 0);
	}
	EXPECT_EQ(folded_top(f, top, 0), 0);
	EXPECT_EQ(folded_top(f, top, 3), 3);
	EXPECT_STREQ(top[0].text, "root;f07"); /* weight 9, first by text */
	EXPECT_EQ(top[0].weight, 9);
	EXPECT_STREQ(top[1].text, "root;f17");
	EXPECT_STREQ(top[2].text, "root;f27");
	/* more than the table holds, and past the on-stack 64 */
	EXPECT_EQ(folded_top(f, top, 100), 70);
	EXPECT_STREQ(top[69].text, "root;f60"); /* weight 0, last by text */
	EXPECT_EQ(top[69].weight, 0);
	for (i = 1; i < 70; i++)
		EXPECT_TRUE(top[i - 1].weight > top[i].weight ||
			    (top[i - 1].weight == top[i].weight &&
			     strcmp(top[i - 1].text, top[i].text) < 0));
	folded_free(f);
}

TEST(folded_write_errors_and_empty_table)
{
	struct folded *f = folded_new();
	char *out;
	FILE *full, *ro;
	int err = 1;

	ASSERT_TRUE(f != NULL);
	out = written(f, &err);
	EXPECT_EQ(err, 0);
	EXPECT_STREQ(out, "");
	free(out);

	EXPECT_EQ(ADD(f, 1, "main", "write"), 0);
	full = fopen("/dev/full", "we");
	ASSERT_TRUE(full != NULL);
	EXPECT_EQ(folded_write(f, full), -ENOSPC);
	fclose(full);
	ro = fopen("/dev/null", "re"); /* not open for writing */
	ASSERT_TRUE(ro != NULL);
	EXPECT_TRUE(folded_write(f, ro) < 0);
	fclose(ro);
	folded_free(f);
}
