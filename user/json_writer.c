// SPDX-License-Identifier: GPL-2.0
#include <inttypes.h>
#include "escape.h"
#include "json_writer.h"

void jw_init(struct json_writer *w, FILE *out)
{
	w->out = out;
	w->need_comma = false;
}

void jw_escape(FILE *out, const char *s)
{
	nw_json_escape(out, s);
}

static void key(struct json_writer *w, const char *k)
{
	if (w->need_comma)
		fputc(',', w->out);
	w->need_comma = true;
	if (k) {
		jw_escape(w->out, k);
		fputc(':', w->out);
	}
}

void jw_begin_object(struct json_writer *w, const char *k)
{
	key(w, k);
	fputc('{', w->out);
	w->need_comma = false;
}

void jw_end_object(struct json_writer *w)
{
	fputc('}', w->out);
	w->need_comma = true;
}

void jw_begin_array(struct json_writer *w, const char *k)
{
	key(w, k);
	fputc('[', w->out);
	w->need_comma = false;
}

void jw_end_array(struct json_writer *w)
{
	fputc(']', w->out);
	w->need_comma = true;
}

void jw_uint(struct json_writer *w, const char *k, uint64_t v)
{
	key(w, k);
	fprintf(w->out, "%" PRIu64, v);
}

void jw_int(struct json_writer *w, const char *k, int64_t v)
{
	key(w, k);
	fprintf(w->out, "%" PRId64, v);
}

void jw_double(struct json_writer *w, const char *k, double v)
{
	key(w, k);
	fprintf(w->out, "%.9g", v);
}

void jw_bool(struct json_writer *w, const char *k, bool v)
{
	key(w, k);
	fputs(v ? "true" : "false", w->out);
}

void jw_null(struct json_writer *w, const char *k)
{
	key(w, k);
	fputs("null", w->out);
}

void jw_string(struct json_writer *w, const char *k, const char *s)
{
	key(w, k);
	jw_escape(w->out, s);
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
