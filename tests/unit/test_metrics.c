// SPDX-License-Identifier: GPL-2.0
/* The metric registry, its exposition, Accept negotiation, the textfile. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <dirent.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include "cli.h"
#include "metrics.h"
#include "prom_http.h"
#include "prom_textfile.h"
#include "unit.h"

static char *render(const struct metrics *m, enum metrics_format fmt)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	metrics_write(m, f, fmt);
	fclose(f);
	return buf;
}

static char *escaped(const char *v)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	metrics_write_label_value(f, v);
	fclose(f);
	return buf;
}

/* The value of the sample line that starts with @prefix, or -1. */
static long long sample(const char *text, const char *prefix)
{
	size_t n = strlen(prefix);
	const char *p = text;

	while (p && *p) {
		if (!strncmp(p, prefix, n) && p[n] == ' ')
			return atoll(p + n + 1);
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return -1;
}

TEST(label_values_escaped)
{
	char *s;

	s = escaped("a\\b\"c\nd");
	EXPECT_STREQ(s, "a\\\\b\\\"c\\nd");
	free(s);
	s = escaped("nw-workload");
	EXPECT_STREQ(s, "nw-workload");
	free(s);
	/* valid UTF-8 stays, stray bytes of a comm become '?' */
	s = escaped("caf\xc3\xa9 \xff\xfe x\xe2\x82");
	EXPECT_STREQ(s, "caf\xc3\xa9 ?? x??");
	free(s);
	s = escaped("\xc0\xaf\xed\xa0\x80"); /* overlong '/', a surrogate */
	EXPECT_STREQ(s, "?????");
	free(s);
}

TEST(escaping_in_exposition)
{
	struct metrics m;
	struct metric_family *f;
	const char *v[1] = { "we\"ird\\comm\n" };
	char *text;

	metrics_init(&m);
	f = metrics_add_family(&m, "t_things", "Things.", METRIC_COUNTER,
			       (const char *[]){ "supervisor", NULL });
	ASSERT_TRUE(f);
	metrics_series(f, v)->value = 3;
	text = render(&m, METRICS_TEXT);
	ASSERT_TRUE(text);
	EXPECT_EQ(sample(text,
			 "t_things_total{supervisor=\"we\\\"ird\\\\comm\\n\"}"),
		  3);
	free(text);
	metrics_free(&m);
}

TEST(buckets_cumulative_inf_is_count)
{
	static const unsigned long long obs[] = {
		0,
		999,
		1000,
		1001,
		2500,
		7000,
		1000000,
		1000001,
		999999999ULL,
		10000000000ULL,
		10000000001ULL,
		99000000000ULL,
	};
	struct metrics m;
	struct metric_family *f;
	const char *v[1] = { "x" };
	unsigned long long sum = 0, prev = 0;
	char *text, key[128], le[32];
	unsigned int i;
	long long c;

	metrics_init(&m);
	f = metrics_add_family(&m, "t_wait_seconds", "Waits.", METRIC_HISTOGRAM,
			       (const char *[]){ "syscall", NULL });
	ASSERT_TRUE(f);
	for (i = 0; i < sizeof(obs) / sizeof(obs[0]); i++) {
		metrics_observe_ns(metrics_series(f, v), obs[i]);
		sum += obs[i];
	}
	text = render(&m, METRICS_TEXT);
	ASSERT_TRUE(text);
	for (i = 0; i < METRICS_NBUCKETS; i++) {
		snprintf(le, sizeof(le), "%g", metrics_bucket_ns[i] / 1e9);
		snprintf(key, sizeof(key),
			 "t_wait_seconds_bucket{syscall=\"x\",le=\"%s\"}", le);
		c = sample(text, key);
		EXPECT_TRUE(c >= (long long)prev);
		prev = c;
	}
	/* le is inclusive: 0, 999, 1000 ns are <= 1 us */
	EXPECT_EQ(sample(text,
			 "t_wait_seconds_bucket{syscall=\"x\",le=\"1e-06\"}"),
		  3);
	EXPECT_EQ(sample(text,
			 "t_wait_seconds_bucket{syscall=\"x\",le=\"0.001\"}"),
		  7);
	EXPECT_EQ(sample(text,
			 "t_wait_seconds_bucket{syscall=\"x\",le=\"10\"}"),
		  10);
	EXPECT_EQ(sample(text,
			 "t_wait_seconds_bucket{syscall=\"x\",le=\"+Inf\"}"),
		  12);
	EXPECT_EQ(sample(text, "t_wait_seconds_count{syscall=\"x\"}"), 12);
	EXPECT_TRUE(strstr(text, "le=\"2.5e-06\"") &&
		    strstr(text, "le=\"0.25\""));
	snprintf(key, sizeof(key),
		 "t_wait_seconds_sum{syscall=\"x\"} %llu.%09llu\n",
		 sum / 1000000000ULL, sum % 1000000000ULL);
	EXPECT_TRUE(strstr(text, key) != NULL);
	free(text);
	metrics_free(&m);
}

TEST(counter_names_per_format)
{
	struct metrics m;
	struct metric_family *f;
	char *text, *om;

	metrics_init(&m);
	f = metrics_add_family(&m, "t_lost", "Lost \"records\" \\ here.",
			       METRIC_COUNTER, NULL);
	ASSERT_TRUE(f);
	metrics_series(f, NULL)->value = 7;
	f = metrics_add_family(&m, "t_build_info", "Build.", METRIC_GAUGE,
			       (const char *[]){ "version", NULL });
	metrics_series(f, (const char *[]){ "0.1" })->value = 1;
	text = render(&m, METRICS_TEXT);
	om = render(&m, METRICS_OPENMETRICS);
	ASSERT_TRUE(text && om);
	EXPECT_TRUE(strstr(text, "# TYPE t_lost_total counter\n") != NULL);
	EXPECT_TRUE(
		strstr(text,
		       "# HELP t_lost_total Lost \"records\" \\\\ here.\n") !=
		NULL);
	EXPECT_EQ(sample(text, "t_lost_total"), 7);
	EXPECT_TRUE(strstr(text, "# EOF") == NULL);
	EXPECT_TRUE(strstr(om, "# TYPE t_lost counter\n") != NULL);
	EXPECT_TRUE(
		strstr(om, "# HELP t_lost Lost \\\"records\\\" \\\\ here.\n") !=
		NULL);
	EXPECT_EQ(sample(om, "t_lost_total"), 7);
	EXPECT_EQ(sample(om, "t_build_info{version=\"0.1\"}"), 1);
	/* # EOF ends it, exactly once */
	EXPECT_TRUE(strlen(om) > 6 && !strcmp(om + strlen(om) - 6, "# EOF\n"));
	EXPECT_TRUE(strstr(om, "# EOF") == om + strlen(om) - 6);
	free(text);
	free(om);
	metrics_free(&m);
}

TEST(series_found_again_and_bounded)
{
	struct metrics m;
	struct metric_family *f;
	struct metric_series *a, *b;
	char name[16];
	const char *v[2] = { "sup", "getppid" };
	unsigned int i;

	metrics_init(&m);
	f = metrics_add_family(&m, "t_n", "N.", METRIC_COUNTER,
			       (const char *[]){ "supervisor", "syscall",
						 NULL });
	ASSERT_TRUE(f && f->nlabels == 2);
	a = metrics_series(f, v);
	b = metrics_series(f, v);
	EXPECT_TRUE(a && a == b);
	EXPECT_EQ(f->n, 1);
	for (i = 0; i < 2 * METRICS_MAX_SERIES; i++) {
		snprintf(name, sizeof(name), "c%u", i);
		v[0] = name;
		metrics_series(f, v)->value++;
	}
	EXPECT_EQ(f->n, METRICS_MAX_SERIES);
	EXPECT_STREQ(f->series[f->n - 1].values[0], "(other)");
	EXPECT_EQ(f->series[f->n - 1].value, METRICS_MAX_SERIES + 2);
	metrics_free(&m);
}

TEST(accept_negotiation)
{
	/* what Prometheus 2.x sends */
	EXPECT_EQ(metrics_negotiate(
			  "application/openmetrics-text;version=1.0.0,"
			  "application/openmetrics-text;version=0.0.1;q=0.75,"
			  "text/plain;version=0.0.4;q=0.5,*/*;q=0.1"),
		  METRICS_OPENMETRICS);
	EXPECT_EQ(metrics_negotiate("application/openmetrics-text"),
		  METRICS_OPENMETRICS);
	EXPECT_EQ(metrics_negotiate(
			  "Application/OpenMetrics-Text; version=1.0.0"),
		  METRICS_OPENMETRICS);
	EXPECT_EQ(metrics_negotiate(NULL), METRICS_TEXT);
	EXPECT_EQ(metrics_negotiate(""), METRICS_TEXT);
	EXPECT_EQ(metrics_negotiate("*/*"), METRICS_TEXT);
	EXPECT_EQ(metrics_negotiate("text/plain;version=0.0.4"), METRICS_TEXT);
	EXPECT_EQ(metrics_negotiate("application/openmetrics-text;q=0"),
		  METRICS_TEXT);
	EXPECT_EQ(metrics_negotiate(
			  "application/openmetrics-text;q=0.3, text/plain"),
		  METRICS_TEXT);
	EXPECT_EQ(
		metrics_negotiate("application/openmetrics-text;version=2.0.0"),
		METRICS_TEXT);
	EXPECT_EQ(metrics_negotiate("application/json"), METRICS_TEXT);
	EXPECT_TRUE(
		strstr(metrics_content_type(METRICS_TEXT), "version=0.0.4"));
	EXPECT_TRUE(strstr(metrics_content_type(METRICS_OPENMETRICS),
			   "application/openmetrics-text; version=1.0.0"));
}

TEST(listen_addresses)
{
	struct prom_addr a;
	struct sockaddr_in *in4 = (struct sockaddr_in *)&a.ss;
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&a.ss;
	static const char *const bad[] = {
		"9464",
		"",
		":",
		"1.2.3.4:",
		"1.2.3.4:0",
		"1.2.3.4:65536",
		"1.2.3.4:-1",
		"1.2.3.4:12x",
		"host.example:9464",
		"1.2.3:9464",
		"[::1]9464",
		"[::1]:",
		"::1:9464",
		"[nope]:9464",
		": 9464",
	};
	unsigned int i;

	EXPECT_EQ(prom_listen_parse(":9464", &a), 0);
	EXPECT_EQ(in4->sin_family, AF_INET);
	EXPECT_EQ(ntohl(in4->sin_addr.s_addr), INADDR_LOOPBACK);
	EXPECT_EQ(ntohs(in4->sin_port), 9464);
	EXPECT_EQ(prom_listen_parse("0.0.0.0:1", &a), 0);
	EXPECT_EQ(in4->sin_addr.s_addr, htonl(INADDR_ANY));
	EXPECT_EQ(ntohs(in4->sin_port), 1);
	EXPECT_EQ(prom_listen_parse("localhost:65535", &a), 0);
	EXPECT_EQ(ntohl(in4->sin_addr.s_addr), INADDR_LOOPBACK);
	EXPECT_EQ(prom_listen_parse("[::1]:9464", &a), 0);
	EXPECT_EQ(in6->sin6_family, AF_INET6);
	EXPECT_TRUE(!memcmp(&in6->sin6_addr, &in6addr_loopback,
			    sizeof(in6addr_loopback)));
	EXPECT_EQ(ntohs(in6->sin6_port), 9464);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (prom_listen_parse(bad[i], &a) == 0) {
			UNIT_REPORT("'%s' accepted", bad[i]);
			*_failed = 1;
		}
	}
}

static unsigned int count_entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	unsigned int n = 0;

	while (d && (e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			n++;
	if (d)
		closedir(d);
	return n;
}

TEST(textfile_replaced_whole)
{
	char dir[] = "/tmp/nw-unit-prom.XXXXXX", path[64], buf[64];
	struct stat st;
	FILE *f;
	size_t n;

	ASSERT_TRUE(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/notifwait.prom", dir);
	EXPECT_EQ(prom_textfile_write(path, "a 1\n", 4), 0);
	EXPECT_EQ(prom_textfile_write(path, "b 2\nc 3\n", 8), 0);
	ASSERT_TRUE((f = fopen(path, "r")));
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	EXPECT_STREQ(buf, "b 2\nc 3\n");
	EXPECT_EQ(stat(path, &st), 0);
	EXPECT_EQ(st.st_mode & 0777, 0644); /* readable by node_exporter */
	EXPECT_EQ(count_entries(dir), 1); /* no temporary left behind */
	unlink(path);
	rmdir(dir);
	/* a missing directory: an error, nothing written */
	EXPECT_TRUE(prom_textfile_write("/nonexistent-nw/x.prom", "a 1\n", 4) <
		    0);
}

static enum cli_result parse(struct env *env, int argc, char **argv)
{
	optind = 0;
	return cli_parse(argc, argv, env);
}

TEST(cli_prom_options)
{
	struct env env;
	char *file_i[] = { "notifwait", "--prom-file", "/tmp/x.prom",
			   "-i",	"2",	       NULL };
	char *listen_i[] = { "notifwait",     "-i",    "1",
			     "--prom-listen", ":9464", NULL };
	char *bad_listen[] = { "notifwait", "--prom-listen", "9464", NULL };
	char *linger_alone[] = { "notifwait", "--prom-linger", "1", NULL };
	char *linger[] = { "notifwait",	    "--prom-listen", "0.0.0.0:1",
			   "--prom-linger", "500ms",	     NULL };
	char *i_alone[] = { "notifwait", "-i", "1", NULL };

	EXPECT_EQ(parse(&env, 5, file_i), CLI_OK);
	EXPECT_STREQ(env.prom_file, "/tmp/x.prom");
	EXPECT_TRUE(env.interval_s == 2);
	EXPECT_EQ(parse(&env, 5, listen_i), CLI_OK);
	EXPECT_STREQ(env.prom_listen, ":9464");
	EXPECT_EQ(parse(&env, 3, bad_listen), CLI_ERROR);
	EXPECT_EQ(parse(&env, 3, linger_alone), CLI_ERROR);
	EXPECT_EQ(parse(&env, 5, linger), CLI_OK);
	EXPECT_TRUE(env.prom_linger_s == 0.5);
	EXPECT_EQ(parse(&env, 3, i_alone), CLI_ERROR);
}

TEST(series_keyed_by_exported_values)
{
	static const char *const names[] = { "supervisor", NULL };
	const char *ff[1] = { "dup\xff" }, *fe[1] = { "dup\xfe" };
	const char *q[1] = { "dup?" }, *ok[1] = { "dup\xc3\xa9" };
	struct metric_family *f;
	struct metrics m;

	metrics_init(&m);
	f = metrics_add_family(&m, "c", "help", METRIC_COUNTER, names);
	ASSERT_TRUE(f != NULL);
	/* dup\xff and dup\xfe are both exported "dup?": one series */
	EXPECT_TRUE(metrics_series(f, ff) == metrics_series(f, fe));
	EXPECT_TRUE(metrics_series(f, ff) == metrics_series(f, q));
	EXPECT_TRUE(metrics_series(f, ok) != metrics_series(f, q));
	EXPECT_EQ(f->n, 2);
	metrics_free(&m);
}
