// SPDX-License-Identifier: GPL-2.0
#include <string.h>
#include "hist.h"

#define STARS_MAX 40

unsigned int log2_slot(unsigned long long v)
{
	unsigned int slot = 0;

	while (v > 1 && slot < NW_HIST_SLOTS - 1) {
		v >>= 1;
		slot++;
	}
	return slot;
}

void log2_hist_add(struct log2_hist *h, unsigned long long v)
{
	h->slots[log2_slot(v)]++;
	h->count++;
}

void log2_hist_reset(struct log2_hist *h)
{
	memset(h, 0, sizeof(*h));
}

static void print_stars(FILE *out, unsigned int val, unsigned int max)
{
	unsigned int n = max ? (unsigned int)((unsigned long long)val *
					      STARS_MAX / max) : 0;
	unsigned int i;

	for (i = 0; i < n; i++)
		fputc('*', out);
	for (; i < STARS_MAX; i++)
		fputc(' ', out);
}

void print_log2_hist(FILE *out, const struct log2_hist *h, const char *unit)
{
	int idx_max = -1, i;
	unsigned int val_max = 0;
	unsigned long long low, high;

	for (i = 0; i < NW_HIST_SLOTS; i++) {
		if (h->slots[i])
			idx_max = i;
		if (h->slots[i] > val_max)
			val_max = h->slots[i];
	}
	if (idx_max < 0) {
		fprintf(out, "     (no samples)\n");
		return;
	}
	fprintf(out, "%*s%-*s : count    distribution\n", 8, "", 14, unit);
	for (i = 0; i <= idx_max; i++) {
		low = i ? 1ULL << i : 0;
		high = (1ULL << (i + 1)) - 1;
		fprintf(out, "%10llu -> %-10llu : %-8u |", low, high,
			h->slots[i]);
		print_stars(out, h->slots[i], val_max);
		fprintf(out, "|\n");
	}
}
