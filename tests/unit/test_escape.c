// SPDX-License-Identifier: GPL-2.0
/* The comm escapers: text (ps/strace style), Prometheus labels, JSON. */
#define _GNU_SOURCE
#include <stdlib.h>
#include "escape.h"
#include "unit.h"

static const char *text(const char *s)
{
	static char buf[NW_TEXT_ESCAPED_SIZE(64)];

	return nw_text_escape(buf, sizeof(buf), s, 64);
}

static char *json(const char *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	nw_json_escape(f, s);
	fclose(f);
	return buf;
}

TEST(utf8_len_rejects_malformed)
{
	EXPECT_EQ(nw_utf8_len((const unsigned char *)"a", 1), 1);
	EXPECT_EQ(nw_utf8_len((const unsigned char *)"\xc3\xa9", 2), 2);
	EXPECT_EQ(nw_utf8_len((const unsigned char *)"\xc3\xa9", 1), 0);
	EXPECT_EQ(nw_utf8_len((const unsigned char *)"\xe2\x82\xac", 3), 3);
	EXPECT_EQ(nw_utf8_len((const unsigned char *)"\xe2\x82", 2), 0);
	EXPECT_EQ(nw_utf8_len((const unsigned char *)"\xf0\x9f\x98\x80", 4), 4);
	/* overlong '/', overlong NUL, surrogate, past U+10FFFF */
	EXPECT_EQ(nw_utf8_len((const unsigned char *)"\xc0\xaf", 2), 0);
	EXPECT_EQ(nw_utf8_len((const unsigned char *)"\xe0\x80\x80", 3), 0);
	EXPECT_EQ(nw_utf8_len((const unsigned char *)"\xed\xa0\x80", 3), 0);
	EXPECT_EQ(nw_utf8_len((const unsigned char *)"\xf4\x90\x80\x80", 4), 0);
	EXPECT_EQ(nw_utf8_len((const unsigned char *)"\x80", 1), 0);
	EXPECT_EQ(nw_utf8_len((const unsigned char *)"\xff", 1), 0);
}

TEST(text_escape_controls_and_invalid_bytes)
{
	EXPECT_STREQ(text("plain-comm 1"), "plain-comm 1");
	EXPECT_STREQ(text("a\nb"), "a\\nb");
	EXPECT_STREQ(text("\t\r"), "\\t\\r");
	EXPECT_STREQ(text("\033[31mred"), "\\033[31mred");
	EXPECT_STREQ(text("del\x7f"), "del\\177");
	EXPECT_STREQ(text("back\\slash"), "back\\\\slash");
	EXPECT_STREQ(text("\x01"), "\\001");
	/* valid UTF-8 stays, invalid bytes one by one */
	EXPECT_STREQ(text("\xc3\xa9t\xc3\xa9"), "\xc3\xa9t\xc3\xa9");
	EXPECT_STREQ(text("dup\xff"), "dup\\377");
	EXPECT_STREQ(text("dup\xfe"), "dup\\376");
	EXPECT_STREQ(text("cut\xe2\x82"), "cut\\342\\202");
	EXPECT_STREQ(text("\xc0\xaf"), "\\300\\257");
	EXPECT_STREQ(text("\xed\xa0\x80"), "\\355\\240\\200");
	/* C1 control U+009B (a CSI on some terminals) */
	EXPECT_STREQ(text("\302\2332J"), "\\302\\2332J");
	EXPECT_STREQ(text("\xc2\xa0"), "\xc2\xa0");
}

TEST(text_escape_bounds)
{
	char small[6];
	char comm[16] = "0123456789abcdef"; /* no NUL: at most 16 bytes read */
	char big[NW_TEXT_ESCAPED_SIZE(16)];

	EXPECT_STREQ(nw_text_escape(small, sizeof(small), "\033\033", 2),
		     "\\033\\");
	EXPECT_STREQ(nw_text_escape(big, sizeof(big), comm, sizeof(comm)),
		     "0123456789abcdef");
	memset(comm, 0xff, sizeof(comm));
	nw_text_escape(big, sizeof(big), comm, sizeof(comm));
	EXPECT_EQ(strlen(big), 64);
}

TEST(label_escape_keeps_builtins_out_of_the_comm_space)
{
	char buf[NW_TEXT_ESCAPED_SIZE(16)];

	EXPECT_STREQ(nw_label_escape(buf, sizeof(buf), "(not received)", 16),
		     "\\050not received)");
	EXPECT_STREQ(nw_label_escape(buf, sizeof(buf), "(other)", 16),
		     "\\050other)");
	EXPECT_STREQ(nw_label_escape(buf, sizeof(buf), "sup(1)", 16), "sup(1)");
	EXPECT_STREQ(nw_label_escape(buf, sizeof(buf), "dup\xff", 16),
		     "dup\\377");
	EXPECT_STREQ(nw_label_escape(buf, sizeof(buf), "(", 16), "\\050");
	EXPECT_STREQ(nw_label_escape(buf, sizeof(buf), "", 16), "");
}

TEST(json_escape_keeps_utf8_and_encodes_invalid_bytes)
{
	static const struct {
		const char *in, *want;
	} cases[] = {
		{ "\xc3\xa9t\xc3\xa9", "\"\xc3\xa9t\xc3\xa9\"" },
		{ "a\"b\\c", "\"a\\\"b\\\\c\"" },
		{ "\n\r\t\b\f", "\"\\n\\r\\t\\b\\f\"" },
		{ "\033x\x7f", "\"\\u001bx\\u007f\"" },
		{ "dup\xff", "\"dup\\udcff\"" },
		{ "cut\xe2\x82", "\"cut\\udce2\\udc82\"" },
		{ "\xc0\xaf", "\"\\udcc0\\udcaf\"" },
		{ "\xed\xa0\x80", "\"\\udced\\udca0\\udc80\"" },
		{ "\xc2\x9b", "\"\\u009b\"" },
		{ "\xe2\x80\xa8", "\"\\u2028\"" },
		{ "\xf0\x9f\x98\x80", "\"\xf0\x9f\x98\x80\"" },
	};
	unsigned int i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *s = json(cases[i].in);

		EXPECT_STREQ(s, cases[i].want);
		free(s);
	}
}

/*
 * The word-at-a-time plain run ends exactly where a byte loop would: every
 * byte value at every place of a word, and past a word's end.
 */
TEST(json_plain_len_word_matches_bytes)
{
	char buf[24];
	unsigned int c, at, want, bad = 0;

	for (c = 0; c < 256; c++) {
		for (at = 0; at < sizeof(buf); at++) {
			memset(buf, 'a', sizeof(buf));
			buf[at] = (char)c;
			want = c >= 0x20 && c < 0x7f && c != '"' && c != '\\' ?
				       sizeof(buf) :
				       at;
			if (nw_json_plain_len(buf, sizeof(buf)) != want)
				bad++;
			/* a length that ends before the byte, or inside a word */
			if (nw_json_plain_len(buf, at) != at)
				bad++;
		}
	}
	EXPECT_EQ(bad, 0);
}
