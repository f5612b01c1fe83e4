// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE /* fwrite_unlocked */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include "escape.h"
#include "json_writer.h"

/*
 * A record is built in w->buf and goes to the FILE in one write when its
 * outermost object or array ends: a stdio call per key and value (about
 * 100 a record) was a third of the reporter's time at its peak rate
 * (perf, 20,000 records). Only one thread writes an output (output.c).
 */
static void flush(struct json_writer *w)
{
	if (w->len)
		fwrite_unlocked(w->buf, 1, w->len, w->out);
	w->len = 0;
}

static void put_n(void *ctx, const char *p, size_t n)
{
	struct json_writer *w = ctx;

	if (n > sizeof(w->buf) - w->len) {
		flush(w);
		if (n > sizeof(w->buf)) {
			fwrite_unlocked(p, 1, n, w->out);
			return;
		}
	}
	memcpy(w->buf + w->len, p, n);
	w->len += n;
}

static void put(struct json_writer *w, char c)
{
	if (w->len == sizeof(w->buf))
		flush(w);
	w->buf[w->len++] = c;
}

static void put_u64(struct json_writer *w, uint64_t v)
{
	char d[20];
	size_t n = sizeof(d);

	do {
		d[--n] = '0' + v % 10;
		v /= 10;
	} while (v);
	put_n(w, d + n, sizeof(d) - n);
}

/* A value written outside any object or array is whole at once. */
static void value_done(struct json_writer *w)
{
	if (!w->depth)
		flush(w);
}

void jw_init(struct json_writer *w, FILE *out)
{
	w->out = out;
	w->need_comma = false;
	w->depth = 0;
	w->len = 0;
}

void jw_escape(FILE *out, const char *s)
{
	nw_json_escape(out, s);
}

static void key(struct json_writer *w, const char *k)
{
	size_t n;

	if (w->need_comma)
		put(w, ',');
	w->need_comma = true;
	if (!k)
		return;
	/* keys are the program's own names: one copy, "key": */
	n = strlen(k);
	if (n + 3 <= sizeof(w->buf) - w->len && nw_json_plain_len(k, n) == n) {
		w->buf[w->len++] = '"';
		memcpy(w->buf + w->len, k, n);
		w->len += n;
		w->buf[w->len++] = '"';
		w->buf[w->len++] = ':';
		return;
	}
	nw_json_escape_to(put_n, w, k);
	put(w, ':');
}

void jw_begin_object(struct json_writer *w, const char *k)
{
	key(w, k);
	put(w, '{');
	w->need_comma = false;
	w->depth++;
}

void jw_end_object(struct json_writer *w)
{
	put(w, '}');
	w->need_comma = true;
	if (w->depth)
		w->depth--;
	value_done(w);
}

void jw_begin_array(struct json_writer *w, const char *k)
{
	key(w, k);
	put(w, '[');
	w->need_comma = false;
	w->depth++;
}

void jw_end_array(struct json_writer *w)
{
	put(w, ']');
	w->need_comma = true;
	if (w->depth)
		w->depth--;
	value_done(w);
}

void jw_uint(struct json_writer *w, const char *k, uint64_t v)
{
	key(w, k);
	put_u64(w, v);
	value_done(w);
}

void jw_int(struct json_writer *w, const char *k, int64_t v)
{
	key(w, k);
	if (v < 0) {
		put(w, '-');
		put_u64(w, -(uint64_t)v);
	} else {
		put_u64(w, v);
	}
	value_done(w);
}

void jw_double(struct json_writer *w, const char *k, double v)
{
	char d[32];
	int n = snprintf(d, sizeof(d), "%.9g", v);

	key(w, k);
	put_n(w, d, n > 0 && (size_t)n < sizeof(d) ? (size_t)n : 0);
	value_done(w);
}

void jw_bool(struct json_writer *w, const char *k, bool v)
{
	key(w, k);
	put_n(w, v ? "true" : "false", v ? 4 : 5);
	value_done(w);
}

void jw_null(struct json_writer *w, const char *k)
{
	key(w, k);
	put_n(w, "null", 4);
	value_done(w);
}

void jw_string(struct json_writer *w, const char *k, const char *s)
{
	key(w, k);
	nw_json_escape_to(put_n, w, s);
	value_done(w);
}

void jw_uint_or_null(struct json_writer *w, const char *k, bool present,
		     uint64_t v)
{
	if (present)
		jw_uint(w, k, v);
	else
		jw_null(w, k);
}

void jw_string_or_null(struct json_writer *w, const char *k, const char *s)
{
	if (s)
		jw_string(w, k, s);
	else
		jw_null(w, k);
}
