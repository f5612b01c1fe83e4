// SPDX-License-Identifier: GPL-2.0
/*
 * --timeline FILE.svg|FILE.html: keeps the notifications to draw (those in
 * --timeline-window, at most the N slowest) and renders them at exit.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "output.h"
#include "sinks.h"
#include "timeline_svg.h"

struct timeline_state {
	struct nw_output *output;
	FILE *file;
	const char *path;
	bool html;
	struct timeline_options opts;
	unsigned int cap;
	struct knotif **heap; /* a min-heap by rank once full */
	size_t n;
	unsigned long long seen;
	bool full; /* some were left out for slower ones */
};

static bool heap_less(struct knotif *a, struct knotif *b)
{
	return timeline_rank_ns(a) < timeline_rank_ns(b);
}

static void sift_down(struct knotif **h, size_t n, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;
		struct knotif *t;

		if (l < n && heap_less(h[l], h[m]))
			m = l;
		if (r < n && heap_less(h[r], h[m]))
			m = r;
		if (m == i)
			return;
		t = h[i];
		h[i] = h[m];
		h[m] = t;
		i = m;
	}
}

static void sift_up(struct knotif **h, size_t i)
{
	while (i) {
		size_t parent = (i - 1) / 2;
		struct knotif *t;

		if (!heap_less(h[i], h[parent]))
			return;
		t = h[i];
		h[i] = h[parent];
		h[parent] = t;
		i = parent;
	}
}

static bool in_window(const struct timeline_state *st, __u64 start_ns,
		      const struct knotif *k)
{
	__u64 from, to;

	if (!st->opts.have_window)
		return true;
	from = start_ns + (__u64)(st->opts.window_start_s * 1e9);
	to = start_ns + (__u64)(st->opts.window_end_s * 1e9);
	return timeline_last_ns(k) >= from && timeline_first_ns(k) <= to;
}

static void timeline_knotif(struct sink *s, const struct knotif *k)
{
	struct timeline_state *st = s->priv;
	struct knotif *copy;

	if (!in_window(st, s->info->start_ns, k))
		return;
	st->seen++;
	if (st->n == st->cap) {
		st->full = true;
		if (!heap_less(st->heap[0], (struct knotif *)k))
			return;
		*st->heap[0] = *k; /* replace the fastest kept */
		sift_down(st->heap, st->n, 0);
		return;
	}
	copy = malloc(sizeof(*copy));
	if (!copy)
		return; /* drawn without it; the title's count tells */
	*copy = *k;
	st->heap[st->n] = copy;
	sift_up(st->heap, st->n++);
}

static int by_first(const void *a, const void *b)
{
	__u64 x = timeline_first_ns(*(struct knotif *const *)a);
	__u64 y = timeline_first_ns(*(struct knotif *const *)b);

	return x < y ? -1 : x > y;
}

static void timeline_finish(struct sink *s, const struct run_totals *t)
{
	struct timeline_state *st = s->priv;
	struct timeline_view v = {
		.start_ns = s->info->start_ns,
		.html = st->html,
		.seen = st->seen,
		.slowest = st->full || st->opts.slowest,
	};
	int err;

	(void)t;
	if (st->opts.have_window) {
		v.from_ns = v.start_ns + (__u64)(st->opts.window_start_s * 1e9);
		v.to_ns = v.start_ns + (__u64)(st->opts.window_end_s * 1e9);
	}
	qsort(st->heap, st->n, sizeof(*st->heap), by_first);
	err = timeline_render(st->file, (const struct knotif *const *)st->heap,
			      st->n, &v);
	if (!err)
		err = output_flush(st->output); /* a failure said and counted */
	else
		fprintf(stderr, "notifwait: cannot write the timeline %s: %s\n",
			st->path, strerror(-err));
}

static void timeline_destroy(struct sink *s)
{
	struct timeline_state *st = s->priv;
	size_t i;

	for (i = 0; i < st->n; i++)
		free(st->heap[i]);
	free(st->heap);
	/* st->file is closed by output_close_all() */
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && !strcasecmp(s + n - m, suffix);
}

struct sink *sink_timeline_new(const char *path, const struct report_info *info,
			       const struct timeline_options *opts)
{
	struct sink *s = sink_alloc("timeline", NULL, info,
				    sizeof(struct timeline_state));
	struct timeline_state *st;

	if (!s) {
		fprintf(stderr, "notifwait: out of memory\n");
		return NULL;
	}
	st = s->priv;
	st->path = path;
	st->opts = *opts;
	st->html = ends_with(path, ".html") || ends_with(path, ".htm");
	st->cap = opts->slowest ? opts->slowest : NW_TIMELINE_CAP;
	st->heap = calloc(st->cap, sizeof(*st->heap));
	/*
	 * Opened now so that a bad path fails before tracing starts;
	 * truncated only once tracing started (output_begin_all).
	 */
	st->output = st->heap ? output_open_path(path) : NULL;
	if (!st->output) {
		if (!st->heap)
			fprintf(stderr, "notifwait: out of memory\n");
		free(st->heap);
		free(s->priv);
		free(s);
		return NULL;
	}
	st->file = output_file(st->output);
	s->out = st->file;
	s->knotif = timeline_knotif;
	s->finish = timeline_finish;
	s->destroy = timeline_destroy;
	return s;
}
