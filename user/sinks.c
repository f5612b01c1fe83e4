// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include "sinks.h"

struct sink *sink_alloc(const char *name, FILE *out,
			const struct report_info *info, size_t priv_size)
{
	struct sink *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	if (priv_size) {
		s->priv = calloc(1, priv_size);
		if (!s->priv) {
			free(s);
			return NULL;
		}
	}
	s->name = name;
	s->out = out;
	s->info = info;
	return s;
}

int sinks_add(struct sinks *all, struct sink *s)
{
	if (!s)
		return -ENOMEM;
	if (all->n == NW_MAX_SINKS)
		return -E2BIG;
	all->list[all->n++] = s;
	return 0;
}

void sinks_knotif(struct sinks *all, const struct knotif *k)
{
	unsigned int i;

	for (i = 0; i < all->n; i++)
		if (all->list[i]->knotif)
			all->list[i]->knotif(all->list[i], k);
}

void sinks_reply_failed(struct sinks *all,
			const struct nw_reply_failed_event *r)
{
	unsigned int i;

	for (i = 0; i < all->n; i++)
		if (all->list[i]->reply_failed)
			all->list[i]->reply_failed(all->list[i], r);
}

void sinks_interval(struct sinks *all, const struct run_totals *t)
{
	unsigned int i;

	for (i = 0; i < all->n; i++) {
		if (all->list[i]->interval)
			all->list[i]->interval(all->list[i], t);
		fflush(all->list[i]->out);
	}
}

void sinks_finish(struct sinks *all, const struct run_totals *t)
{
	unsigned int i;

	for (i = 0; i < all->n; i++) {
		if (all->list[i]->finish)
			all->list[i]->finish(all->list[i], t);
		fflush(all->list[i]->out);
	}
}

void sinks_destroy(struct sinks *all)
{
	unsigned int i;

	for (i = 0; i < all->n; i++) {
		struct sink *s = all->list[i];

		if (s->destroy)
			s->destroy(s);
		free(s->priv);
		free(s);
	}
	all->n = 0;
}
