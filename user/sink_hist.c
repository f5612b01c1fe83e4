// SPDX-License-Identifier: GPL-2.0
/* -H: log2 histograms of the wait's phases and of signal pending times. */
#include <time.h>
#include "hist.h"
#include "sinks.h"

enum { H_QUEUE, H_HANDLE, H_WAKE, H_TOTAL, H_PENDING, H_COUNT };

static const char *const titles[H_COUNT] = {
	"queue (notify -> recv)", "handle (recv -> reply)",
	"wake (reply -> return)", "total (notify -> return)",
	"signal pending (sent -> delivered)",
};

struct hist_state {
	struct log2_hist h[H_COUNT];
};

static void add(struct sink *s, int which, __u64 from, __u64 to)
{
	struct hist_state *st = s->priv;
	__u64 d = 0;

	if (!nw_span(from, to, &d))
		return;
	log2_hist_add(&st->h[which], d / (s->info->msecs ? 1000000 : 1000));
}

static void hist_knotif(struct sink *s, const struct knotif *k)
{
	const struct nw_knotif_event *e = &k->ev;
	__u64 t_reply = k->reply_reached ? e->t_reply_ns : 0;
	__u64 t_return = k->pending ? 0 : e->t_return_ns;
	unsigned int i;

	add(s, H_QUEUE, e->t_notify_ns, e->t_recv_ns);
	add(s, H_HANDLE, e->t_recv_ns, t_reply);
	add(s, H_WAKE, t_reply, t_return);
	add(s, H_TOTAL, e->t_notify_ns, t_return);
	for (i = 0; i < e->nsignals && i < NW_MAX_SIGNALS; i++)
		add(s, H_PENDING, e->signals[i].t_sent_ns, k->t_delivered_ns[i]);
}

static void hist_print(struct sink *s, const struct run_totals *t)
{
	struct hist_state *st = s->priv;
	const char *unit = s->info->msecs ? "msecs" : "usecs";
	char stamp[16];
	time_t now = time(NULL);
	int i;

	strftime(stamp, sizeof(stamp), "%H:%M:%S", localtime(&now));
	fprintf(s->out, "\n%-8s notifications: %llu, lost records: %llu\n",
		stamp, t->stats->knotifs,
		(unsigned long long)t->bpf.lost_records);
	for (i = 0; i < H_COUNT; i++) {
		fprintf(s->out, "\n%s: %llu\n", titles[i], st->h[i].count);
		print_log2_hist(s->out, &st->h[i], unit);
		log2_hist_reset(&st->h[i]);
	}
}

struct sink *sink_hist_new(FILE *out, const struct report_info *info)
{
	struct sink *s = sink_alloc("hist", out, info,
				    sizeof(struct hist_state));

	if (!s)
		return NULL;
	s->knotif = hist_knotif;
	s->interval = hist_print;
	s->finish = hist_print;
	return s;
}
