/* SPDX-License-Identifier: GPL-2.0 */
/* log2 histograms, printed the way bcc's libbpf-tools print them. */
#ifndef NW_HIST_H
#define NW_HIST_H

#include <stdio.h>

#define NW_HIST_SLOTS 32

struct log2_hist {
	unsigned int slots[NW_HIST_SLOTS];
	unsigned long long count;
};

/* Slot of @v: 0 holds 0..1, slot i holds 2^i .. 2^(i+1)-1. */
unsigned int log2_slot(unsigned long long v);
void log2_hist_add(struct log2_hist *h, unsigned long long v);
void log2_hist_reset(struct log2_hist *h);
void print_log2_hist(FILE *out, const struct log2_hist *h, const char *unit);

#endif /* NW_HIST_H */
