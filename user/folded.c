// SPDX-License-Identifier: GPL-2.0
/* folded.h: one uthash entry per distinct stack, keyed by its text. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#define HASH_NONFATAL_OOM 1 /* an add that fails leaves hh.tbl NULL */
#include <uthash.h>
#include "folded.h"

#define UNKNOWN_FRAME "[unknown]"

struct stack {
	UT_hash_handle hh;
	__u64 weight;
	size_t len;
	char text[]; /* "f0;f1;...;fn", NUL-terminated */
};

struct folded {
	struct stack *stacks;
	__u64 total;
};

static __u64 sat_add(__u64 a, __u64 b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

struct folded *folded_new(void)
{
	return calloc(1, sizeof(struct folded)); /* errno: ENOMEM */
}

void folded_free(struct folded *f)
{
	struct stack *e, *tmp;

	if (!f)
		return;
	HASH_ITER(hh, f->stacks, e, tmp) {
		HASH_DEL(f->stacks, e);
		free(e);
	}
	free(f);
}

static const char *frame_text(const char *frame)
{
	return frame && *frame ? frame : UNKNOWN_FRAME;
}

/* The separators and anything that would break a line: '_'. */
static char frame_byte(unsigned char c)
{
	return c == ';' || c == ' ' || c < 0x20 || c == 0x7f ? '_' : (char)c;
}

int folded_add(struct folded *f, const char *const *frames, size_t n,
	       __u64 weight)
{
	struct stack *e, *old;
	size_t len = 0, i, pos = 0;

	if (!n)
		return -EINVAL;
	for (i = 0; i < n; i++) {
		size_t l = strlen(frame_text(frames[i])) + 1; /* ';' or NUL */

		if (l > UINT32_MAX - len) /* uthash keys are unsigned int */
			return -ENOMEM;
		len += l;
	}
	e = malloc(sizeof(*e) + len);
	if (!e)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		const char *s = frame_text(frames[i]);

		if (i)
			e->text[pos++] = ';';
		for (; *s; s++)
			e->text[pos++] = frame_byte((unsigned char)*s);
	}
	e->text[pos] = '\0';
	e->len = pos;
	HASH_FIND(hh, f->stacks, e->text, (unsigned)e->len, old);
	if (old) {
		free(e);
		old->weight = sat_add(old->weight, weight);
	} else {
		e->weight = weight;
		HASH_ADD_KEYPTR(hh, f->stacks, e->text, (unsigned)e->len, e);
		if (!e->hh.tbl) {
			free(e);
			return -ENOMEM;
		}
	}
	f->total = sat_add(f->total, weight);
	return 0;
}

/* Heaviest first, then by text: a total order, so the output is stable. */
static int stack_cmp(const struct stack *a, const struct stack *b)
{
	if (a->weight != b->weight)
		return a->weight > b->weight ? -1 : 1;
	return strcmp(a->text, b->text);
}

static int stack_ptr_cmp(const void *a, const void *b)
{
	return stack_cmp(*(const struct stack *const *)a,
			 *(const struct stack *const *)b);
}

static int write_error(void)
{
	return errno ? -errno : -EIO;
}

int folded_write(const struct folded *f, FILE *out)
{
	size_t n = HASH_COUNT(f->stacks), i = 0;
	struct stack **v, *e, *tmp;
	int err = 0;

	if (!n) {
		errno = 0;
		return fflush(out) ? write_error() : 0;
	}
	v = malloc(n * sizeof(*v));
	if (!v)
		return -ENOMEM;
	HASH_ITER(hh, f->stacks, e, tmp)
		v[i++] = e;
	qsort(v, n, sizeof(*v), stack_ptr_cmp);
	for (i = 0; i < n && !err; i++) {
		errno = 0;
		if (fwrite(v[i]->text, 1, v[i]->len, out) != v[i]->len ||
		    fprintf(out, " %llu\n", (unsigned long long)v[i]->weight) <
			    0)
			err = write_error();
	}
	free(v);
	if (!err) {
		errno = 0;
		if (fflush(out))
			err = write_error();
	}
	return err;
}

size_t folded_top(const struct folded *f, struct folded_top *top, size_t k)
{
	const struct stack *best[64], **b = best;
	struct stack *e, *tmp;
	size_t have = 0, i;

	if (!k)
		return 0;
	if (k > sizeof(best) / sizeof(best[0])) {
		b = malloc(k * sizeof(*b));
		if (!b) /* fewer, rather than none */
			return folded_top(f, top,
					  sizeof(best) / sizeof(best[0]));
	}
	/* insertion into the k best so far: k is small, a summary's top */
	HASH_ITER(hh, f->stacks, e, tmp) {
		if (have == k && stack_cmp(e, b[k - 1]) >= 0)
			continue;
		i = have < k ? have++ : k - 1;
		for (; i > 0 && stack_cmp(e, b[i - 1]) < 0; i--)
			b[i] = b[i - 1];
		b[i] = e;
	}
	for (i = 0; i < have; i++)
		top[i] = (struct folded_top){ b[i]->text, b[i]->weight };
	if (b != best)
		free(b);
	return have;
}

__u64 folded_total(const struct folded *f)
{
	return f->total;
}

size_t folded_count(const struct folded *f)
{
	return HASH_COUNT(f->stacks);
}
