// SPDX-License-Identifier: GPL-2.0
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "sinks.h"
#include "timeline_svg.h"
#include "knotif_fixture.h"
#include "unit.h"

#define MS 1000000ULL

static struct knotif knotif_at(__u64 id, __u32 tid, __u32 sup, __u64 t0,
			       __u64 handle)
{
	struct knotif k = {};

	k.have_event = true;
	k.ev.key.id = id;
	k.ev.target_tid = tid;
	k.ev.target_tgid = tid;
	k.ev.supervisor_tgid = sup;
	k.ev.filter_killable = 1;
	k.ev.nr = 110;
	strcpy(k.ev.comm, "tgt<&>\"");
	strcpy(k.ev.supervisor_comm, "sup");
	k.ev.t_notify_ns = t0;
	k.ev.t_recv_ns = t0 + MS;
	k.ev.t_reply_ns = t0 + MS + handle;
	k.ev.t_return_ns = t0 + MS + handle + 10000;
	k.ev.reply_kind = NW_REPLY_VALUE;
	k.ev.ret = 42;
	return k;
}

static void add_signal(struct knotif *k, __u64 sent, __u64 delivered)
{
	fixture_add_signal(k, SIGURG, sent, 0, delivered);
}

static unsigned int count(const char *s, const char *needle)
{
	unsigned int n = 0;

	while ((s = strstr(s, needle))) {
		n++;
		s += strlen(needle);
	}
	return n;
}

static char *render(const struct knotif *const *ks, size_t n,
		    const struct timeline_view *v)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	if (timeline_render(f, ks, n, v)) {
		fclose(f);
		free(buf);
		return NULL;
	}
	fclose(f);
	return buf;
}

TEST(timeline_elements_lanes_and_escaping)
{
	struct knotif a = knotif_at(1, 100, 50, 10 * MS, 20 * MS);
	struct knotif b = knotif_at(2, 101, 50, 12 * MS, 5 * MS);
	struct knotif c = knotif_at(3, 102, 0, 15 * MS, 0);
	const struct knotif *ks[] = { &a, &b, &c };
	struct timeline_view v = { .start_ns = 5 * MS };
	char *svg;

	add_signal(&a, 15 * MS, 31 * MS + 20000); /* deferred */
	add_signal(&a, 16 * MS, 0); /* never delivered */
	a.ev.signals[1].result = 2; /* already pending: coalesced */
	/* c: interrupted before RECV */
	c.ev.t_recv_ns = c.ev.t_reply_ns = 0;
	c.ev.reply_kind = NW_REPLY_NONE;
	c.ev.t_return_ns = 18 * MS;
	c.ev.ret = -512;
	add_signal(&c, 17 * MS, 18 * MS + 5000);
	b.naddfd = 1;
	b.addfd[0].t_ns = 14 * MS;
	knotif_derive(&a);
	knotif_derive(&b);
	knotif_derive(&c);
	ASSERT_TRUE(a.effect[0] == NW_EFFECT_DEFERRED);
	ASSERT_TRUE(c.effect[0] == NW_EFFECT_INTERRUPTED);

	svg = render(ks, 3, &v);
	ASSERT_TRUE(svg);
	EXPECT_TRUE(!strncmp(svg, "<svg ", 5));
	EXPECT_EQ(count(svg, "<g class=\"notif\""), 3);
	EXPECT_EQ(count(svg, "<g class=\"signal "), 3);
	EXPECT_EQ(count(svg, "<g class=\"signal deferred\""), 1);
	EXPECT_EQ(count(svg, "<g class=\"signal interrupted\""), 1);
	EXPECT_EQ(count(svg, "data-effect=\"coalesced\""), 1);
	EXPECT_EQ(count(svg, "<line class=\"addfd\" data-id=\"2\""), 1);
	EXPECT_EQ(count(svg, "<g class=\"lane target\""), 3);
	EXPECT_EQ(count(svg, "<g class=\"lane supervisor\""), 1);
	EXPECT_EQ(count(svg, "<g class=\"sup-handle\""), 2);
	EXPECT_EQ(count(svg, "class=\"wake\""), 3); /* 2 bars + the legend */
	EXPECT_EQ(count(svg, "tgt&lt;&amp;&gt;&quot;"), 3 + 3);
	EXPECT_EQ(count(svg, "<&>"), 0);
	EXPECT_TRUE(strstr(svg, "</svg>\n") != NULL);
	EXPECT_TRUE(!strstr(svg, "<script") && !strstr(svg, "http://fonts"));
	free(svg);
}

TEST(timeline_lane_order_supervisor_first)
{
	struct knotif a = knotif_at(1, 300, 60, 10 * MS, MS);
	struct knotif b = knotif_at(2, 200, 70, 10 * MS, MS);
	const struct knotif *ks[] = { &a, &b };
	struct timeline_view v = { .start_ns = 0 };
	char *svg, *s60, *t300, *s70, *t200;

	knotif_derive(&a);
	knotif_derive(&b);
	svg = render(ks, 2, &v);
	ASSERT_TRUE(svg);
	s60 = strstr(svg, "data-pid=\"60\"");
	t300 = strstr(svg, "data-tid=\"300\"");
	s70 = strstr(svg, "data-pid=\"70\"");
	t200 = strstr(svg, "data-tid=\"200\"");
	ASSERT_TRUE(s60 && t300 && s70 && t200);
	EXPECT_TRUE(s60 < t300 && t300 < s70 && s70 < t200);
	free(svg);
}

TEST(timeline_html_page_and_empty)
{
	struct timeline_view v = { .start_ns = MS, .html = true };
	char *page = render(NULL, 0, &v);

	ASSERT_TRUE(page);
	EXPECT_TRUE(!strncmp(page, "<!DOCTYPE html>", 15));
	EXPECT_EQ(count(page, "<svg "), 1);
	EXPECT_EQ(count(page, "<g class=\"notif\""), 0);
	EXPECT_TRUE(strstr(page, "</html>") != NULL);
	free(page);
}

TEST(timeline_rank)
{
	struct knotif k = knotif_at(1, 1, 1, 10 * MS, 2 * MS);

	EXPECT_EQ(timeline_rank_ns(&k), 3 * MS + 10000);
	k.ev.t_notify_ns = 0; /* seen only at RECV */
	EXPECT_EQ(timeline_first_ns(&k), 11 * MS);
	EXPECT_EQ(timeline_rank_ns(&k), 2 * MS + 10000);
	add_signal(&k, 12 * MS, 20 * MS);
	EXPECT_EQ(timeline_last_ns(&k), 20 * MS);
}

/* Feeds @n notifications of growing handle time through the sink. */
static char *through_sink(const struct timeline_options *o, unsigned int n)
{
	char path[] = "/tmp/nw-unit-timeline-XXXXXX.svg";
	struct report_info info = { .start_ns = 0 };
	struct run_totals t = {};
	struct sinks all = {};
	char *buf = NULL;
	size_t len = 0;
	unsigned int i;
	FILE *f;
	int fd;

	fd = mkstemps(path, 4);
	if (fd < 0)
		return NULL;
	close(fd);
	if (sinks_add(&all, sink_timeline_new(path, &info, o))) {
		unlink(path);
		return NULL;
	}
	for (i = 1; i <= n; i++) {
		/* id i starts at i*100ms and is handled i ms */
		struct knotif k = knotif_at(i, 7, 8, i * 100 * MS, i * MS);

		knotif_derive(&k);
		sinks_knotif(&all, &k);
	}
	sinks_finish(&all, &t);
	sinks_destroy(&all);
	f = fopen(path, "r");
	if (f) {
		if (getdelim(&buf, &len, 0, f) < 0) {
			free(buf);
			buf = NULL;
		}
		fclose(f);
	}
	unlink(path);
	return buf;
}

TEST(timeline_sink_keeps_the_slowest)
{
	struct timeline_options o = { .slowest = 3 };
	char *svg = through_sink(&o, 10);

	ASSERT_TRUE(svg);
	EXPECT_EQ(count(svg, "<g class=\"notif\""), 3);
	EXPECT_EQ(count(svg, "<g class=\"notif\" data-id=\"10\""), 1);
	EXPECT_EQ(count(svg, "<g class=\"notif\" data-id=\"9\""), 1);
	EXPECT_EQ(count(svg, "<g class=\"notif\" data-id=\"8\""), 1);
	EXPECT_EQ(count(svg, "<g class=\"notif\" data-id=\"7\""), 0);
	EXPECT_TRUE(strstr(svg, "the slowest of 10") != NULL);
	free(svg);
}

TEST(timeline_sink_window)
{
	/* 0.25 s to 0.45 s: ids 2 (200..203 ms) overlaps? no; 3 and 4 do */
	struct timeline_options o = {
		.have_window = true, .window_start_s = 0.25,
		.window_end_s = 0.45,
	};
	char *svg = through_sink(&o, 10);

	ASSERT_TRUE(svg);
	EXPECT_EQ(count(svg, "<g class=\"notif\""), 2);
	EXPECT_EQ(count(svg, "data-id=\"3\" data-tid"), 1);
	EXPECT_EQ(count(svg, "data-id=\"4\" data-tid"), 1);
	EXPECT_TRUE(strstr(svg, "0.250 s to 0.450 s") != NULL);
	free(svg);
}

TEST(timeline_sink_bad_path)
{
	struct report_info info = {};
	struct timeline_options o = {};

	EXPECT_TRUE(sink_timeline_new("/nonexistent/dir/t.svg", &info, &o) ==
		    NULL);
}
