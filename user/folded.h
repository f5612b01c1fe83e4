/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Folded stacks, the input of flamegraph.pl, speedscope and
 * scripts/flamegraph-svg.py: one line per distinct stack,
 * "root;caller;...;leaf weight". Stacks are keyed by their joined text, so
 * the same frames added twice are one line with the weights summed.
 */
#ifndef NW_FOLDED_H
#define NW_FOLDED_H

#include <linux/types.h>
#include <stddef.h>
#include <stdio.h>

struct folded;

/* NULL (errno ENOMEM) on failure. */
struct folded *folded_new(void);
/* NULL is fine. */
void folded_free(struct folded *f);

/*
 * Add @weight to the stack @frames[0..@n-1], ROOT FIRST (the outermost
 * caller first, the leaf last). In a frame, ';', ' ', newlines and every
 * other control byte become '_' (';' and ' ' are the format's separators);
 * an empty or NULL frame is written "[unknown]". Weights add, saturating at
 * UINT64_MAX. Returns 0, -ENOMEM, or -EINVAL for an empty stack (@n == 0:
 * the format has no line for it).
 */
int folded_add(struct folded *f, const char *const *frames, size_t n,
	       __u64 weight);

/*
 * Every stack as "f0;f1;...;fn weight\n", heaviest first, equal weights in
 * byte order of the stack text; nothing for an empty table. Every write is
 * checked and @out is flushed (not closed): 0, or -errno (-EIO when a short
 * write set no errno; -ENOMEM).
 */
int folded_write(const struct folded *f, FILE *out);

/*
 * The heaviest stacks, in folded_write()'s order: fills up to @k entries
 * of @top and returns how many. text points into @f: valid until
 * folded_free() (adding more stacks never moves it).
 */
struct folded_top {
	const char *text;
	__u64 weight;
};
size_t folded_top(const struct folded *f, struct folded_top *top, size_t k);

/* The sum of all weights (saturating), and the number of distinct stacks. */
__u64 folded_total(const struct folded *f);
size_t folded_count(const struct folded *f);

#endif /* NW_FOLDED_H */
