// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include "escape.h"
#include "syscalls.h"
#include "timeline_svg.h"

#define WIDTH 1400
#define PLOT_X0 190.0
#define PLOT_X1 (WIDTH - 20.0)
#define TOP 96.0 /* title, legend, axis labels above the lanes */
#define LANE_H 26.0
#define BAR_Y 9.0 /* bar offset within a lane */
#define BAR_H 12.0
#define SIG_Y 5.0 /* signal markers ride above the bars */

struct lane {
	bool supervisor;
	__u32 id; /* target tid, or supervisor tgid */
	__u32 group; /* the supervisor a target lane is listed under */
	char name[NW_COMM_LEN];
};

struct plot {
	FILE *out;
	__u64 start_ns, from_ns, to_ns;
	struct lane *lanes;
	size_t nlanes;
};

static const char style[] =
	"text{font-family:sans-serif;font-size:11px;fill:#222}"
	".title{font-size:13px;font-weight:bold}"
	".lane-bg{fill:#f7f7f7}.lane-bg.odd{fill:#ececec}"
	".lane.supervisor .lane-bg{fill:#e3ebf3}"
	".grid{stroke:#c8c8c8;stroke-width:1}"
	".queue{fill:#b0b0b0}.handle-interruptible{fill:#f2b134}"
	".handle-killable{fill:#2a9d8f}.wake{fill:#7b4fa3}"
	".sup-handle{fill:#457b9d}"
	".notif:hover rect,.sup-handle:hover{stroke:#000;stroke-width:1}"
	".signal line{stroke:#666;stroke-width:1.5}.signal circle{fill:#666}"
	".key-other line{stroke:#666;stroke-width:1.5}.key-other circle{fill:#666}"
	".signal.deferred line,.key-deferred line{stroke:#e0115f;stroke-width:2.5}"
	".signal.deferred circle,.key-deferred circle{fill:#e0115f}"
	".signal.interrupted line,.key-interrupted line{stroke:#f76f00;stroke-width:2.5}"
	".signal.interrupted circle,.key-interrupted circle{fill:#f76f00}"
	".addfd{stroke:#000;stroke-width:1.5}";

__u64 timeline_first_ns(const struct knotif *k)
{
	const struct nw_knotif_event *e = &k->ev;

	if (e->t_notify_ns)
		return e->t_notify_ns;
	if (e->t_recv_ns)
		return e->t_recv_ns;
	return e->t_return_ns;
}

__u64 timeline_last_ns(const struct knotif *k)
{
	__u64 last = k->ev.t_return_ns;
	unsigned int i;

	if (!last)
		last = k->ev.t_reply_ns ? k->ev.t_reply_ns : k->ev.t_recv_ns;
	for (i = 0; i < k->ev.nsignals && i < NW_MAX_SIGNALS; i++)
		if (k->t_delivered_ns[i] > last)
			last = k->t_delivered_ns[i];
	return last;
}

__u64 timeline_rank_ns(const struct knotif *k)
{
	__u64 d = 0;

	if (!k->pending && nw_span(k->ev.t_notify_ns, k->ev.t_return_ns, &d))
		return d;
	nw_span(timeline_first_ns(k), timeline_last_ns(k), &d);
	return d;
}

/* comm is any bytes: escaped as in the text outputs, then for XML. */
static void escape(FILE *out, const char *s, size_t max)
{
	char text[NW_TEXT_ESCAPED_SIZE(NW_COMM_LEN)];
	size_t i;

	if (max > NW_COMM_LEN)
		max = NW_COMM_LEN;
	nw_text_escape(text, sizeof(text), s, max);
	for (i = 0; text[i]; i++) {
		switch (text[i]) {
		case '&':
			fputs("&amp;", out);
			break;
		case '<':
			fputs("&lt;", out);
			break;
		case '>':
			fputs("&gt;", out);
			break;
		case '"':
			fputs("&quot;", out);
			break;
		default:
			fputc(text[i], out);
		}
	}
}

static double xpos(const struct plot *p, __u64 t)
{
	double x;

	if (t <= p->from_ns)
		return PLOT_X0;
	if (t >= p->to_ns)
		return PLOT_X1;
	x = (double)(t - p->from_ns) / (double)(p->to_ns - p->from_ns);
	return PLOT_X0 + x * (PLOT_X1 - PLOT_X0);
}

static struct lane *find_lane(struct plot *p, bool supervisor, __u32 id)
{
	size_t i;

	for (i = 0; i < p->nlanes; i++)
		if (p->lanes[i].supervisor == supervisor &&
		    p->lanes[i].id == id)
			return &p->lanes[i];
	return NULL;
}

static double lane_y(const struct plot *p, const struct lane *l)
{
	return TOP + (double)(l - p->lanes) * LANE_H;
}

static void add_lane(struct plot *p, bool supervisor, __u32 id, __u32 group,
		     const char *name)
{
	struct lane *l = find_lane(p, supervisor, id);

	if (l) {
		if (!l->group)
			l->group = group;
		return;
	}
	l = &p->lanes[p->nlanes++];
	l->supervisor = supervisor;
	l->id = id;
	l->group = group;
	memcpy(l->name, name, NW_COMM_LEN);
	l->name[NW_COMM_LEN - 1] = 0;
}

/* Each supervisor, then the target threads it answered; orphans last. */
static int lane_cmp(const void *a, const void *b)
{
	const struct lane *x = a, *y = b;
	__u32 gx = x->group ? x->group : UINT32_MAX;
	__u32 gy = y->group ? y->group : UINT32_MAX;

	if (gx != gy)
		return gx < gy ? -1 : 1;
	if (x->supervisor != y->supervisor)
		return x->supervisor ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

static int build_lanes(struct plot *p, const struct knotif *const *ks, size_t n)
{
	size_t i;

	p->lanes = calloc(2 * n + 1, sizeof(*p->lanes));
	if (!p->lanes)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		const struct nw_knotif_event *e = &ks[i]->ev;

		add_lane(p, false, e->target_tid, e->supervisor_tgid, e->comm);
		if (e->supervisor_tgid)
			add_lane(p, true, e->supervisor_tgid,
				 e->supervisor_tgid, e->supervisor_comm);
	}
	qsort(p->lanes, p->nlanes, sizeof(*p->lanes), lane_cmp);
	return 0;
}

/* 1, 2 or 5 times a power of ten, about a tenth of the span. */
static double tick_step(double span_s)
{
	double raw = span_s / 10, mag = pow(10, floor(log10(raw)));

	if (raw / mag >= 5)
		return 5 * mag;
	if (raw / mag >= 2)
		return 2 * mag;
	return mag;
}

static void draw_axis(const struct plot *p, double bottom)
{
	double from_s = (double)(p->from_ns - p->start_ns) / 1e9;
	double to_s = (double)(p->to_ns - p->start_ns) / 1e9;
	double step = tick_step(to_s - from_s), t, x;
	int decimals = step >= 1 ? 0 : (int)ceil(-log10(step) - 1e-9);

	fprintf(p->out, "<g class=\"axis\">\n");
	for (t = ceil(from_s / step) * step; t <= to_s + step * 1e-6;
	     t += step) {
		x = PLOT_X0 +
		    (t - from_s) / (to_s - from_s) * (PLOT_X1 - PLOT_X0);
		fprintf(p->out,
			"<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
			"<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%.*f</text>\n",
			x, TOP - 4, x, bottom, x, TOP - 8, decimals, t);
	}
	fprintf(p->out,
		"<text x=\"8\" y=\"%.1f\">time (s since tracing began)</text>\n",
		TOP - 8);
	fprintf(p->out, "</g>\n");
}

static void legend_item(FILE *out, double *x, const char *cls,
			const char *label, bool line)
{
	if (line)
		fprintf(out,
			"<g class=\"%s\"><line x1=\"%.1f\" y1=\"46\" x2=\"%.1f\" y2=\"46\"/><circle cx=\"%.1f\" cy=\"46\" r=\"2.5\"/><circle cx=\"%.1f\" cy=\"46\" r=\"2.5\"/></g>",
			cls, *x, *x + 18, *x, *x + 18);
	else
		fprintf(out,
			"<rect class=\"%s\" x=\"%.1f\" y=\"40\" width=\"18\" height=\"12\"/>",
			cls, *x);
	fprintf(out, "<text x=\"%.1f\" y=\"50\">%s</text>\n", *x + 23, label);
	*x += 23 + 6.2 * strlen(label) + 16;
}

static void draw_legend(FILE *out)
{
	double x = 20;

	fprintf(out, "<g class=\"legend\">\n");
	legend_item(out, &x, "queue", "queue (notify-recv)", false);
	legend_item(out, &x, "handle-interruptible",
		    "handle, interruptible (recv-killable)", false);
	legend_item(out, &x, "handle-killable",
		    "handle, killable (killable-reply)", false);
	legend_item(out, &x, "wake", "wake (reply-return)", false);
	legend_item(out, &x, "sup-handle", "supervisor (recv-reply)", false);
	x = 20;
	fprintf(out,
		"</g>\n<g class=\"legend\" transform=\"translate(0,18)\">\n");
	legend_item(out, &x, "key-deferred", "signal deferred (sent-delivered)",
		    true);
	legend_item(out, &x, "key-interrupted", "signal interrupted", true);
	legend_item(out, &x, "key-other", "other signal", true);
	fprintf(out,
		"<line class=\"addfd\" x1=\"%.1f\" y1=\"39\" x2=\"%.1f\" y2=\"53\"/><text x=\"%.1f\" y=\"50\">addfd</text>\n",
		x + 9, x + 9, x + 23);
	fprintf(out, "</g>\n");
}

static void draw_lanes(const struct plot *p)
{
	size_t i;

	for (i = 0; i < p->nlanes; i++) {
		const struct lane *l = &p->lanes[i];
		double y = lane_y(p, l);

		fprintf(p->out,
			"<g class=\"lane %s\" data-%s=\"%u\"><rect class=\"lane-bg%s\" x=\"0\" y=\"%.1f\" width=\"%d\" height=\"%.1f\"/>"
			"<text x=\"8\" y=\"%.1f\">%s ",
			l->supervisor ? "supervisor" : "target",
			l->supervisor ? "pid" : "tid", l->id,
			i % 2 ? " odd" : "", y, WIDTH, LANE_H, y + 18,
			l->supervisor ? "supervisor" : "target");
		escape(p->out, l->name, NW_COMM_LEN);
		fprintf(p->out, "/%u</text></g>\n", l->id);
	}
}

static void bar(const struct plot *p, const char *cls, __u64 from, __u64 to,
		double y)
{
	double x0, x1;

	if (!from || !to || to < from || to < p->from_ns || from > p->to_ns)
		return;
	x0 = xpos(p, from);
	x1 = xpos(p, to);
	fprintf(p->out,
		"<rect class=\"%s\" x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.1f\"/>",
		cls, x0, y + BAR_Y, x1 - x0 < 0.5 ? 0.5 : x1 - x0, BAR_H);
}

static void draw_signal(const struct plot *p, const struct knotif *k,
			unsigned int i, double y)
{
	const struct nw_signal *s = &k->ev.signals[i];
	__u64 sent = s->t_sent_ns ? s->t_sent_ns : timeline_first_ns(k);
	__u64 del = k->t_delivered_ns[i];
	const char *name = sigabbrev_np(s->sig);
	enum nw_signal_effect eff = k->effect[i];
	double x0 = xpos(p, sent), x1 = del ? xpos(p, del) : x0;

	fprintf(p->out,
		"<g class=\"signal %s\" data-id=\"%" PRIu64
		"\" data-index=\"%u\" data-sig=\"%u\" data-effect=\"%s\" data-sent-ns=\"%" PRIu64
		"\" data-delivered-ns=\"%" PRIu64 "\">"
		"<title>SIG%s %s",
		eff == NW_EFFECT_DEFERRED || eff == NW_EFFECT_INTERRUPTED ?
			nw_effect_name(eff) :
			"other",
		(uint64_t)k->ev.key.id, i, s->sig, nw_effect_name(eff),
		(uint64_t)s->t_sent_ns, (uint64_t)del, name ? name : "?",
		nw_effect_name(eff));
	if (del && s->t_sent_ns && del >= s->t_sent_ns)
		fprintf(p->out, ", pending %.1f us",
			(double)(del - s->t_sent_ns) / 1e3);
	fprintf(p->out,
		"</title><line x1=\"%.2f\" y1=\"%.1f\" x2=\"%.2f\" y2=\"%.1f\"/><circle cx=\"%.2f\" cy=\"%.1f\" r=\"2.5\"/>",
		x0, y + SIG_Y, x1 < x0 + 0.5 ? x0 + 0.5 : x1, y + SIG_Y, x0,
		y + SIG_Y);
	if (del)
		fprintf(p->out, "<circle cx=\"%.2f\" cy=\"%.1f\" r=\"2.5\"/>",
			x1, y + SIG_Y);
	fprintf(p->out, "</g>");
}

static void draw_knotif(struct plot *p, const struct knotif *k)
{
	const struct nw_knotif_event *e = &k->ev;
	__u64 reply = k->reply_reached ? e->t_reply_ns : 0;
	__u64 end = k->pending ? timeline_last_ns(k) : e->t_return_ns;
	__u64 start = e->t_notify_ns ? e->t_notify_ns : e->t_recv_ns;
	__u64 handle_end = reply ? reply : end;
	struct lane *l = find_lane(p, false, e->target_tid);
	double y = lane_y(p, l);
	unsigned int i;

	if (!end)
		end = p->to_ns;
	fprintf(p->out,
		"<g class=\"notif\" data-id=\"%" PRIu64
		"\" data-tid=\"%u\" data-supervisor=\"%u\" data-outcome=\"%s\" data-total-ns=\"%" PRIu64
		"\"><title>",
		(uint64_t)e->key.id, e->target_tid, e->supervisor_tgid,
		nw_outcome_name(k->outcome), (uint64_t)timeline_rank_ns(k));
	escape(p->out, e->comm, NW_COMM_LEN);
	fprintf(p->out, "/%u %s id %" PRIu64 ": %s, %.1f us</title>",
		e->target_tid, nw_syscall_name(e->nr), (uint64_t)e->key.id,
		nw_outcome_name(k->outcome), timeline_rank_ns(k) / 1e3);
	bar(p, "queue", start, e->t_recv_ns ? e->t_recv_ns : end, y);
	if (e->t_recv_ns) {
		bar(p, "handle-interruptible", e->t_recv_ns,
		    e->t_killable_ns ? e->t_killable_ns : handle_end, y);
		bar(p, "handle-killable", e->t_killable_ns, handle_end, y);
	}
	bar(p, "wake", reply, end, y);
	for (i = 0; i < k->naddfd; i++) {
		double x = xpos(p, k->addfd[i].t_ns);

		fprintf(p->out,
			"<line class=\"addfd\" data-id=\"%" PRIu64
			"\" x1=\"%.2f\" y1=\"%.1f\" x2=\"%.2f\" y2=\"%.1f\"/>",
			(uint64_t)e->key.id, x, y + BAR_Y - 3, x,
			y + BAR_Y + BAR_H + 3);
	}
	for (i = 0; i < e->nsignals && i < NW_MAX_SIGNALS; i++)
		draw_signal(p, k, i, y);
	fprintf(p->out, "</g>\n");
	l = e->supervisor_tgid ? find_lane(p, true, e->supervisor_tgid) : NULL;
	if (l && e->t_recv_ns && e->t_reply_ns) {
		fprintf(p->out,
			"<g class=\"sup-handle\" data-id=\"%" PRIu64 "\">",
			(uint64_t)e->key.id);
		bar(p, "sup-handle", e->t_recv_ns, e->t_reply_ns, lane_y(p, l));
		fprintf(p->out, "</g>\n");
	}
}

static void fit_span(struct plot *p, const struct knotif *const *ks, size_t n)
{
	__u64 lo = UINT64_MAX, hi = 0, t;
	size_t i;

	for (i = 0; i < n; i++) {
		t = timeline_first_ns(ks[i]);
		if (t && t < lo)
			lo = t;
		t = timeline_last_ns(ks[i]);
		if (t > hi)
			hi = t;
	}
	if (lo == UINT64_MAX)
		lo = hi = p->start_ns;
	if (lo < p->start_ns)
		lo = p->start_ns;
	p->from_ns = lo;
	p->to_ns = hi > lo ? hi : lo + 1000000;
}

int timeline_render(FILE *out, const struct knotif *const *ks, size_t n,
		    const struct timeline_view *v)
{
	struct plot p = { .out = out, .start_ns = v->start_ns };
	double height;
	size_t i;

	if (build_lanes(&p, ks, n))
		return -ENOMEM;
	if (v->from_ns && v->to_ns > v->from_ns) {
		p.from_ns = v->from_ns;
		p.to_ns = v->to_ns;
	} else {
		fit_span(&p, ks, n);
	}
	height = TOP + p.nlanes * LANE_H + 12;
	if (v->html)
		fprintf(out,
			"<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>notifwait timeline</title></head>\n<body style=\"margin:0\">\n");
	fprintf(out,
		"<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"notifwait-timeline\" width=\"%d\" height=\"%.0f\" viewBox=\"0 0 %d %.0f\""
		" data-start-ns=\"%" PRIu64 "\" data-from-ns=\"%" PRIu64
		"\" data-to-ns=\"%" PRIu64
		"\" data-plot-x0=\"%.0f\" data-plot-x1=\"%.0f\">\n<style>%s</style>\n"
		"<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%.0f\" fill=\"#fff\"/>\n",
		WIDTH, height, WIDTH, height, (uint64_t)p.start_ns,
		(uint64_t)p.from_ns, (uint64_t)p.to_ns, PLOT_X0, PLOT_X1, style,
		WIDTH, height);
	fprintf(out,
		"<text class=\"title\" x=\"20\" y=\"22\">notifwait: %zu notification%s",
		n, n == 1 ? "" : "s");
	if (v->slowest && v->seen > n)
		fprintf(out, " (the slowest of %llu)", v->seen);
	fprintf(out,
		", %zu lanes, %.3f s to %.3f s after tracing began</text>\n",
		p.nlanes, (double)(p.from_ns - p.start_ns) / 1e9,
		(double)(p.to_ns - p.start_ns) / 1e9);
	draw_legend(out);
	draw_lanes(&p);
	draw_axis(&p, TOP + p.nlanes * LANE_H);
	for (i = 0; i < n; i++)
		draw_knotif(&p, ks[i]);
	fprintf(out, "</svg>\n");
	if (v->html)
		fprintf(out, "</body></html>\n");
	free(p.lanes);
	return ferror(out) ? -EIO : 0;
}
