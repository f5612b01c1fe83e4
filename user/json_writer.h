/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A small streaming JSON writer. Hand-written on purpose: notification ids
 * are full u64 values, which jansson and json-c store as signed 64-bit.
 */
#ifndef NW_JSON_WRITER_H
#define NW_JSON_WRITER_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct json_writer {
	FILE *out;
	bool need_comma;
	unsigned int depth; /* objects and arrays open */
	size_t len;
	char buf[4096]; /* the record so far: written out when it closes */
};

/*
 * Nothing reaches @out before the outermost object or array is closed
 * (a longer one in 4 KiB pieces); close it before writing to @out
 * directly.
 */
void jw_init(struct json_writer *w, FILE *out);
void jw_begin_object(struct json_writer *w, const char *key);
void jw_end_object(struct json_writer *w);
void jw_begin_array(struct json_writer *w, const char *key);
void jw_end_array(struct json_writer *w);
void jw_uint(struct json_writer *w, const char *key, uint64_t v);
void jw_int(struct json_writer *w, const char *key, int64_t v);
void jw_double(struct json_writer *w, const char *key, double v);
void jw_bool(struct json_writer *w, const char *key, bool v);
void jw_null(struct json_writer *w, const char *key);
void jw_string(struct json_writer *w, const char *key, const char *s);
/* An unsigned value, or null when @present is false. */
void jw_uint_or_null(struct json_writer *w, const char *key, bool present,
		     uint64_t v);
void jw_string_or_null(struct json_writer *w, const char *key, const char *s);
/* Writes @s as a JSON string literal with escapes, quotes included. */
void jw_escape(FILE *out, const char *s);

#endif /* NW_JSON_WRITER_H */
