// SPDX-License-Identifier: GPL-2.0
#include <stdlib.h>
#include <string.h>
#include "json_record.h"
#include "json_writer.h"
#include "unit.h"

static char *capture(void (*fn)(FILE *, const void *), const void *arg)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	fn(f, arg);
	fclose(f);
	return buf;
}

static void escape_fn(FILE *f, const void *arg)
{
	jw_escape(f, arg);
}

TEST(escape_quotes_backslash_controls)
{
	char *s = capture(escape_fn, "a\"b\\c\nd\te\x01\x7f\xc3");

	EXPECT_STREQ(s, "\"a\\\"b\\\\c\\nd\\te\\u0001\\u007f\\udcc3\"");
	free(s);
}

static void u64_fn(FILE *f, const void *arg)
{
	struct json_writer w;

	(void)arg;
	jw_init(&w, f);
	jw_begin_object(&w, NULL);
	jw_uint(&w, "id", 18446744073709551615ULL);
	jw_int(&w, "ret", -512);
	jw_null(&w, "x");
	jw_begin_array(&w, "a");
	jw_uint(&w, NULL, 1);
	jw_uint(&w, NULL, 2);
	jw_end_array(&w);
	jw_end_object(&w);
}

static void long_record_fn(FILE *f, const void *arg)
{
	struct json_writer w;

	jw_init(&w, f);
	jw_begin_object(&w, NULL);
	jw_string(&w, "s", arg);
	fputs("<in the record>", f); /* held back: the record is not closed */
	jw_uint(&w, "n", 7);
	jw_end_object(&w);
	fputs("<after>", f);
	jw_init(&w, f);
	jw_uint(&w, NULL, 42); /* a value alone is written at once */
	fputs("<end>", f);
}

/* A record longer than the writer's buffer comes out whole and in order. */
TEST(json_writer_long_record_in_order)
{
	static char big[10001], want[10100];
	char *s;

	memset(big, 'a', sizeof(big) - 1);
	s = capture(long_record_fn, big);
	snprintf(want, sizeof(want), "{\"s\":\"%.*s", 4096 - 6, big);
	EXPECT_TRUE(!strncmp(s, want, strlen(want)));
	EXPECT_TRUE(strstr(s, "<in the record>") != NULL);
	EXPECT_TRUE(strstr(s, "\",\"n\":7}<after>42<end>") != NULL);
	free(s);
}

TEST(full_u64_ids_and_nesting)
{
	char *s = capture(u64_fn, NULL);

	EXPECT_STREQ(
		s,
		"{\"id\":18446744073709551615,\"ret\":-512,\"x\":null,\"a\":[1,2]}");
	free(s);
}

static void knotif_fn(FILE *f, const void *arg)
{
	json_write_knotif(f, arg);
}

TEST(knotif_record_nulls_for_what_did_not_happen)
{
	struct knotif k = {};
	char *s;

	k.ev.key.id = 7;
	k.ev.t_notify_ns = 100;
	k.ev.t_return_ns = 300;
	k.ev.ret = -512;
	k.ev.nr = 39; /* getpid */
	snprintf(k.ev.comm, sizeof(k.ev.comm), "a\"b");
	k.have_event = true;
	knotif_derive(&k);
	s = capture(knotif_fn, &k);
	EXPECT_TRUE(strstr(s, "\"comm\":\"a\\\"b\""));
	EXPECT_TRUE(strstr(s, "\"syscall\":\"getpid\""));
	EXPECT_TRUE(strstr(s, "\"t_recv_ns\":null"));
	EXPECT_TRUE(strstr(s, "\"queue_ns\":null"));
	EXPECT_TRUE(strstr(s, "\"total_ns\":200"));
	EXPECT_TRUE(strstr(s, "\"interruptible_ns\":200"));
	EXPECT_TRUE(strstr(s, "\"supervisor_pid\":null"));
	EXPECT_TRUE(strstr(s, "\"outcome\":\"interrupted_before_recv\""));
	EXPECT_TRUE(strstr(s, "\"reply\":null"));
	EXPECT_TRUE(strstr(s, "\"signals\":[]"));
	EXPECT_TRUE(strstr(s, "\"killable_by\":null"));
	EXPECT_TRUE(s[strlen(s) - 1] == '\n');
	free(s);
}
