/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A minimal test harness in the manner of the kernel's kselftest_harness:
 * TEST(name) registers a test, EXPECT_* records a failure and goes on,
 * ASSERT_* ends the test. The runner prints one line per test and the
 * closing "N passed, N failed" line.
 */
#ifndef NW_UNIT_H
#define NW_UNIT_H

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

struct unit_test {
	const char *name;
	void (*fn)(int *failed);
};

#define UNIT_MAX_TESTS 256
extern struct unit_test unit_tests[UNIT_MAX_TESTS];
extern int unit_ntests;

#define TEST(name)                                                        \
	static void test_##name(int *_failed);                            \
	__attribute__((constructor)) static void register_##name(void)    \
	{                                                                 \
		unit_tests[unit_ntests++] =                               \
			(struct unit_test){ #name, test_##name };         \
	}                                                                 \
	static void test_##name(int *_failed)

#define UNIT_REPORT(fmt, ...)                                              \
	fprintf(stderr, "  %s:%d: " fmt "\n", __FILE__, __LINE__, __VA_ARGS__)

#define EXPECT_EQ(a, b)                                                   \
	do {                                                              \
		long long _a = (long long)(a), _b = (long long)(b);       \
		if (_a != _b) {                                           \
			UNIT_REPORT("%s == %s: %lld != %lld", #a, #b, _a, _b); \
			*_failed = 1;                                     \
		}                                                         \
	} while (0)

#define EXPECT_TRUE(c)                                                    \
	do {                                                              \
		if (!(c)) {                                               \
			UNIT_REPORT("%s is false", #c);                   \
			*_failed = 1;                                     \
		}                                                         \
	} while (0)

#define EXPECT_STREQ(a, b)                                                \
	do {                                                              \
		const char *_a = (a), *_b = (b);                          \
		if (!_a || !_b || strcmp(_a, _b)) {                       \
			UNIT_REPORT("%s == %s: '%s' != '%s'", #a, #b,     \
				    _a ? _a : "(null)", _b ? _b : "(null)"); \
			*_failed = 1;                                     \
		}                                                         \
	} while (0)

#define ASSERT_TRUE(c)                                                    \
	do {                                                              \
		if (!(c)) {                                               \
			UNIT_REPORT("%s is false", #c);                   \
			*_failed = 1;                                     \
			return;                                           \
		}                                                         \
	} while (0)

#endif /* NW_UNIT_H */
