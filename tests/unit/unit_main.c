// SPDX-License-Identifier: GPL-2.0
#include "unit.h"

struct unit_test unit_tests[UNIT_MAX_TESTS];
int unit_ntests;

int main(void)
{
	int i, passed = 0, failed = 0;

	for (i = 0; i < unit_ntests; i++) {
		int f = 0;

		unit_tests[i].fn(&f);
		printf("%s %s\n", f ? "FAIL" : "PASS", unit_tests[i].name);
		if (f)
			failed++;
		else
			passed++;
	}
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
