// SPDX-License-Identifier: GPL-2.0
/* --summary: tables per supervisor and per syscall at exit. */
#include "escape.h"
#include "sinks.h"

static void print_groups(FILE *out, const char *title,
			 const struct nw_group_list *l)
{
	size_t i;

	fprintf(out, "\n%-28s %8s %12s %12s %12s %11s %8s %14s\n", title,
		"COUNT", "HANDLE_P50", "HANDLE_P99", "HANDLE_MAX", "INTERRUPTED",
		"DEFERRED", "MAX_PENDING");
	for (i = 0; i < l->n; i++) {
		struct nw_group *g = &l->groups[i];
		char name[NW_TEXT_ESCAPED_SIZE(sizeof(g->name))];

		/* a supervisor's name is its comm: escaped */
		nw_text_escape(name, sizeof(name), g->name, sizeof(g->name));
		fprintf(out, "%-28s %8llu %10.1fus %10.1fus %10.1fus %11llu %8llu %12.1fus\n",
			name, g->count, stats_percentile(g, 50) / 1e3,
			stats_percentile(g, 99) / 1e3,
			stats_percentile(g, 100) / 1e3, g->interrupted,
			g->deferred, g->max_pending_ns / 1e3);
	}
}

static void summary_finish(struct sink *s, const struct run_totals *t)
{
	const struct stats *st = t->stats;
	int i;

	fprintf(s->out, "\nnotifications: %llu in %.1f s (backend: %s)\n",
		st->knotifs, t->elapsed_s, s->info->backend);
	for (i = 0; i < NW_OUTCOME_COUNT; i++)
		if (st->by_outcome[i])
			fprintf(s->out, "  %-24s %llu\n", nw_outcome_name(i),
				st->by_outcome[i]);
	fprintf(s->out, "signals: %llu", st->signals);
	for (i = 0; i < NW_EFFECT_COUNT; i++)
		if (st->by_effect[i])
			fprintf(s->out, ", %s %llu", nw_effect_name(i),
				st->by_effect[i]);
	fprintf(s->out, "\naddfd: %llu ok, %llu failed; failed replies: %llu\n",
		st->addfd_ok, st->addfd_failed, st->reply_failed);
	print_groups(s->out, "SUPERVISOR", &st->by_supervisor);
	print_groups(s->out, "SYSCALL", &st->by_syscall);
}

struct sink *sink_summary_new(FILE *out, const struct report_info *info)
{
	struct sink *s = sink_alloc("summary", out, info, 0);

	if (!s)
		return NULL;
	s->finish = summary_finish;
	return s;
}
