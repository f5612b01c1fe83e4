// SPDX-License-Identifier: GPL-2.0
/* --summary: tables per supervisor and per syscall at exit. */
#include <ctype.h>
#include "escape.h"
#include "findings.h"
#include "folded.h"
#include "sup_stacks.h"
#include "sinks.h"

static void print_groups(FILE *out, const char *title,
			 const struct nw_group_list *l)
{
	size_t i;

	fprintf(out, "\n%-28s %8s %12s %12s %12s %11s %8s %14s\n", title,
		"COUNT", "HANDLE_P50", "HANDLE_P99", "HANDLE_MAX",
		"INTERRUPTED", "DEFERRED", "MAX_PENDING");
	for (i = 0; i < l->n; i++) {
		struct nw_group *g = &l->groups[i];
		char name[NW_TEXT_ESCAPED_SIZE(sizeof(g->name))];

		/* a supervisor's name is its comm: escaped */
		nw_text_escape(name, sizeof(name), g->name, sizeof(g->name));
		fprintf(out,
			"%-28s %8llu %10.1fus %10.1fus %10.1fus %11llu %8llu %12.1fus\n",
			name, g->count, stats_percentile(g, 50) / 1e3,
			stats_percentile(g, 99) / 1e3,
			stats_percentile(g, 100) / 1e3, g->interrupted,
			g->deferred, g->max_pending_ns / 1e3);
	}
}

/* Where the supervisors' handle time went (handle_split), in shares. */
static void print_handle_states(FILE *out, const struct nw_group_list *l)
{
	size_t i;
	bool any = false;

	for (i = 0; i < l->n; i++)
		any |= l->groups[i].split != 0;
	if (!any)
		return;
	fprintf(out, "\n%-28s %8s %9s %9s %9s\n", "HANDLE TIME BY STATE",
		"SPLIT", "RUNNING", "RUNNABLE", "BLOCKED");
	for (i = 0; i < l->n; i++) {
		struct nw_group *g = &l->groups[i];
		char name[NW_TEXT_ESCAPED_SIZE(sizeof(g->name))];
		double all = g->running_ns + g->runnable_ns + g->blocked_ns;

		if (!g->split || !all)
			continue;
		nw_text_escape(name, sizeof(name), g->name, sizeof(g->name));
		fprintf(out, "%-28s %8llu %8.1f%% %8.1f%% %8.1f%%\n", name,
			g->split, 100 * g->running_ns / all,
			100 * g->runnable_ns / all, 100 * g->blocked_ns / all);
	}
}

/* Where the queue time went (queue_split): the supervisors' state. */
static void print_queue_states(FILE *out, const struct nw_group_list *l)
{
	size_t i;
	int s;
	bool any = false;

	for (i = 0; i < l->n; i++)
		any |= l->groups[i].queue_split != 0;
	if (!any)
		return;
	fprintf(out, "\n%-28s %8s %9s %9s %9s %9s %9s\n", "QUEUE TIME BY STATE",
		"SPLIT", "RUNNABLE", "BUSY", "BLOCKED", "NO-RECV", "UNKNOWN");
	for (i = 0; i < l->n; i++) {
		struct nw_group *g = &l->groups[i];
		char name[NW_TEXT_ESCAPED_SIZE(sizeof(g->name))];
		double all = 0;

		for (s = 0; s < NW_QUEUE_STATES; s++)
			all += g->queue_ns[s];
		if (!g->queue_split || !all)
			continue;
		nw_text_escape(name, sizeof(name), g->name, sizeof(g->name));
		fprintf(out, "%-28s %8llu", name, g->queue_split);
		for (s = 0; s < NW_QUEUE_STATES; s++)
			fprintf(out, " %8.1f%%", 100 * g->queue_ns[s] / all);
		fputc('\n', out);
	}
}

/* --supervisor-stacks: the heaviest, as shares of all blocked time. */
static void print_top_stacks(FILE *out, const struct sup_stacks *stacks)
{
	const struct folded *f = stacks ? sup_stacks_folded(stacks) : NULL;
	struct folded_top top[5];
	double all;
	size_t n, i;

	if (!f || !(n = folded_top(f, top, 5)))
		return;
	all = folded_total(f);
	fprintf(out, "\nTOP BLOCKING STACKS (%zu distinct, %.1f ms blocked)\n",
		folded_count(f), all / 1e6);
	for (i = 0; i < n; i++)
		fprintf(out, "  %5.1f%% %9.3f ms  %s\n",
			all ? 100 * top[i].weight / all : 0,
			top[i].weight / 1e6, top[i].text);
}

static void print_names(FILE *out, const char *title,
			const struct finding_names *l, const char *flag)
{
	unsigned int i;

	if (!l)
		return;
	fprintf(out, " %s=", title);
	for (i = 0; i < l->n; i++) {
		char name[NW_TEXT_ESCAPED_SIZE(sizeof(l->v[i].name))];

		nw_text_escape(name, sizeof(name), l->v[i].name,
			       sizeof(l->v[i].name));
		fprintf(out, "%s%s:%llu%s", i ? "," : "", name, l->v[i].count,
			flag && l->v[i].flag ? "(!)" : "");
	}
	if (l->others)
		fprintf(out, ",+%llu more", l->others);
}

static void print_findings(FILE *out, const struct findings *fs)
{
	struct finding f[FINDING_COUNT];
	unsigned int n = fs ? findings_report(fs, f) : 0, i, j;

	fprintf(out, "\nfindings: %u%s\n", n, n ? "" : " (none)");
	for (i = 0; i < n; i++) {
		char sev[16];

		for (j = 0; finding_severity_name(f[i].severity)[j]; j++)
			sev[j] = toupper(
				finding_severity_name(f[i].severity)[j]);
		sev[j] = 0;
		fprintf(out, "  %-8s %s: %llu\n    evidence:", sev,
			finding_kind_name(f[i].kind), f[i].count);
		for (j = 0; j < f[i].nnum; j++)
			fprintf(out, " %s=%llu", f[i].num[j].key,
				f[i].num[j].v);
		print_names(out, "syscalls", f[i].syscalls, f[i].syscalls_flag);
		print_names(out, "supervisors", f[i].supervisors, NULL);
		if (f[i].nex)
			fprintf(out, " examples=");
		for (j = 0; j < f[i].nex; j++)
			fprintf(out, "%s%llu", j ? "," : "",
				(unsigned long long)f[i].ex[j].id);
		if (f[i].top_stack)
			fprintf(out, "\n    top stack: %s", f[i].top_stack);
		fprintf(out, "\n    advice: %s\n", f[i].advice);
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
	print_handle_states(s->out, &st->by_supervisor);
	print_queue_states(s->out, &st->by_supervisor);
	print_top_stacks(s->out, t->stacks);
	print_findings(s->out, t->findings);
}

struct sink *sink_summary_new(FILE *out, const struct report_info *info)
{
	struct sink *s = sink_alloc("summary", out, info, 0);

	if (!s)
		return NULL;
	s->finish = summary_finish;
	return s;
}
