// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE /* fwrite_unlocked, fputs_unlocked */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "escape.h"

size_t nw_utf8_len(const unsigned char *p, size_t avail)
{
	unsigned int cp, n, i;

	if (!avail)
		return 0;
	if (p[0] < 0x80)
		return 1;
	if ((p[0] & 0xe0) == 0xc0) {
		n = 2;
		cp = p[0] & 0x1f;
	} else if ((p[0] & 0xf0) == 0xe0) {
		n = 3;
		cp = p[0] & 0x0f;
	} else if ((p[0] & 0xf8) == 0xf0) {
		n = 4;
		cp = p[0] & 0x07;
	} else {
		return 0; /* a continuation byte, or 0xf8..0xff */
	}
	if (n > avail)
		return 0;
	for (i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80) /* also stops at a NUL */
			return 0;
		cp = cp << 6 | (p[i] & 0x3f);
	}
	if ((n == 2 && cp < 0x80) || (n == 3 && cp < 0x800) ||
	    (n == 4 && cp < 0x10000) || cp > 0x10ffff ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

/* U+0080..U+009F: C1 controls, e.g. U+009B, a CSI on some terminals. */
static bool is_c1(const unsigned char *p, size_t n)
{
	return n == 2 && p[0] == 0xc2 && p[1] < 0xa0;
}

struct buf {
	char *p;
	size_t left; /* room before the NUL */
};

static void put(struct buf *b, const char *s, size_t n)
{
	if (n > b->left)
		n = b->left;
	memcpy(b->p, s, n);
	b->p += n;
	b->left -= n;
}

static void put_octal(struct buf *b, unsigned char c)
{
	char o[4] = { '\\', '0' + (c >> 6), '0' + ((c >> 3) & 7),
		      '0' + (c & 7) };

	put(b, o, sizeof(o));
}

char *nw_text_escape(char *dst, size_t size, const char *src, size_t max)
{
	const unsigned char *p = (const unsigned char *)src;
	size_t len = strnlen(src, max), i = 0, n, k;
	struct buf b = { dst, size ? size - 1 : 0 };

	if (!size)
		return dst;
	while (i < len) {
		switch (p[i]) {
		case '\\':
			put(&b, "\\\\", 2);
			i++;
			continue;
		case '\n':
			put(&b, "\\n", 2);
			i++;
			continue;
		case '\t':
			put(&b, "\\t", 2);
			i++;
			continue;
		case '\r':
			put(&b, "\\r", 2);
			i++;
			continue;
		}
		n = nw_utf8_len(p + i, len - i);
		if (n == 1 && p[i] >= 0x20 && p[i] != 0x7f) {
			put(&b, (const char *)p + i, 1);
		} else if (n > 1 && !is_c1(p + i, n)) {
			put(&b, (const char *)p + i, n);
		} else {
			if (!n)
				n = 1; /* an invalid byte alone */
			for (k = 0; k < n; k++)
				put_octal(&b, p[i + k]);
		}
		i += n;
	}
	*b.p = '\0';
	return dst;
}

char *nw_label_escape(char *dst, size_t size, const char *src, size_t max)
{
	nw_text_escape(dst, size, src, max);
	if (dst[0] == '(' && size > 4) {
		size_t len = strlen(dst);

		if (len + 4 > size) /* the escaped form is cut short */
			len = size - 4;
		memmove(dst + 4, dst + 1, len - 1);
		memcpy(dst, "\\050", 4);
		dst[len + 3] = '\0';
	}
	return dst;
}

/*
 * Whether any of the 8 bytes of @x is not plain: below 0x20, '"', '\\',
 * 0x7f or above. Exact for "any" (the borrow trick only errs in bytes above
 * a byte it rightly flags); the byte loop then finds which.
 */
static bool word_has_special(uint64_t x)
{
	const uint64_t ones = 0x0101010101010101ULL;
	const uint64_t highs = 0x8080808080808080ULL;
	uint64_t q = x ^ (ones * '"'), b = x ^ (ones * '\\');
	uint64_t del = x ^ (ones * 0x7f);

	return (((x - ones * 0x20) & ~x) | ((q - ones) & ~q) |
		((b - ones) & ~b) | ((del - ones) & ~del) | x) &
	       highs;
}

static bool byte_plain(unsigned char c)
{
	return c >= 0x20 && c < 0x7f && c != '"' && c != '\\';
}

/* A word at a time: keys and values are mostly plain ASCII. */
size_t nw_json_plain_len(const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0;
	uint64_t x;

	for (; i + 8 <= len; i += 8) {
		memcpy(&x, p + i, 8);
		if (word_has_special(x))
			break;
	}
	while (i < len && byte_plain(p[i]))
		i++;
	return i;
}

void nw_json_escape_to(nw_put_fn put, void *ctx, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t len = strlen(s), i = 0, n;
	char u[8];

	put(ctx, "\"", 1);
	while (i < len) {
		size_t plain = nw_json_plain_len(s + i, len - i);

		if (plain) { /* written as one run */
			put(ctx, s + i, plain);
			i += plain;
			continue;
		}
		switch (p[i]) {
		case '"':
			put(ctx, "\\\"", 2);
			i++;
			continue;
		case '\\':
			put(ctx, "\\\\", 2);
			i++;
			continue;
		case '\n':
			put(ctx, "\\n", 2);
			i++;
			continue;
		case '\r':
			put(ctx, "\\r", 2);
			i++;
			continue;
		case '\t':
			put(ctx, "\\t", 2);
			i++;
			continue;
		case '\b':
			put(ctx, "\\b", 2);
			i++;
			continue;
		case '\f':
			put(ctx, "\\f", 2);
			i++;
			continue;
		}
		n = nw_utf8_len(p + i, len - i);
		if (!n) {
			snprintf(u, sizeof(u), "\\udc%02x",
				 p[i]); /* 0x80..0xff */
			put(ctx, u, 6);
			n = 1;
		} else if (n == 1 && (p[i] < 0x20 || p[i] == 0x7f)) {
			snprintf(u, sizeof(u), "\\u%04x", p[i]);
			put(ctx, u, 6);
		} else if (is_c1(p + i, n)) {
			snprintf(u, sizeof(u), "\\u%04x", p[i + 1]);
			put(ctx, u, 6);
		} else if (n == 3 && p[i] == 0xe2 && p[i + 1] == 0x80 &&
			   (p[i + 2] == 0xa8 || p[i + 2] == 0xa9)) {
			snprintf(u, sizeof(u), "\\u%04x",
				 0x2000 | (p[i + 2] - 0x80));
			put(ctx, u, 6);
		} else {
			put(ctx, s + i, n);
		}
		i += n;
	}
	put(ctx, "\"", 1);
}

static void put_file(void *ctx, const char *p, size_t n)
{
	fwrite_unlocked(p, 1, n, ctx);
}

void nw_json_escape(FILE *out, const char *s)
{
	nw_json_escape_to(put_file, out, s);
}
