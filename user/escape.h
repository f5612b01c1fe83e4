/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel-provided strings (comm) are bytes, not text: escapes for the text
 * outputs (ps/strace style), JSON and Prometheus label values. Every form is
 * lossless: the original bytes can be recovered (docs/output-escaping.md).
 */
#ifndef NW_ESCAPE_H
#define NW_ESCAPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* The longest text escape of @n bytes, NUL included: "\ooo" per byte. */
#define NW_TEXT_ESCAPED_SIZE(n) ((n)*4 + 1)

/*
 * Length of the well-formed UTF-8 sequence at @p within @avail bytes, or 0:
 * rejects truncated sequences, overlongs, surrogates and code points past
 * U+10FFFF.
 */
size_t nw_utf8_len(const unsigned char *p, size_t avail);

/*
 * Text: printable ASCII and printable UTF-8 as they are; \n \t \r and \\ as
 * in C; every other control byte (0x00-0x1f, 0x7f, the C1 range U+0080-U+009F)
 * and every byte of invalid UTF-8 as a 3-digit octal escape (\033, \377).
 * Reads at most @max bytes of @src, stops at a NUL; always terminates @dst.
 * Returns @dst.
 */
char *nw_text_escape(char *dst, size_t size, const char *src, size_t max);

/*
 * A Prometheus label value for a comm: its text escape, with a leading '('
 * written as \050 so that a comm never equals a built-in value such as
 * "(not received)" or "(other)".
 */
char *nw_label_escape(char *dst, size_t size, const char *src, size_t max);

/*
 * A JSON string literal, quotes included: valid UTF-8 as UTF-8; " \ and the
 * controls escaped (\n \r \t \b \f, else \u00XX; also U+0080-U+009F and
 * U+2028/U+2029 as \uXXXX); each byte of invalid UTF-8 as the lone surrogate
 * \udcXX (Python's "surrogateescape", PEP 383), which valid UTF-8 never yields.
 */
void nw_json_escape(FILE *out, const char *s);
/* The same, handed out in pieces to @put. */
typedef void (*nw_put_fn)(void *ctx, const char *p, size_t n);
void nw_json_escape_to(nw_put_fn put, void *ctx, const char *s);
/*
 * How many leading bytes of @s (@len long) a JSON string literal holds as
 * they are: printable ASCII but quote and backslash.
 */
size_t nw_json_plain_len(const char *s, size_t len);

#endif /* NW_ESCAPE_H */
