// SPDX-License-Identifier: GPL-2.0
/* symbolize.h on this process and on this kernel's kallsyms. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>
#include "symbolize.h"
#include "unit.h"

/* Exported and out of line: the symbol the lookup must find by name. */
__attribute__((noinline)) int nw_symbolize_unit_target(int x);
__attribute__((noinline)) int nw_symbolize_unit_target(int x)
{
	__asm__ volatile("" : "+r"(x));
	return x * 3 + 1;
}

TEST(symbolize_user_names_own_and_libc_functions)
{
	struct symbolizer *s = symbolizer_new();
	__u64 fn = (uintptr_t)&nw_symbolize_unit_target;
	char buf[256], small[5], want[300];
	const char *base;
	Dl_info info;

	ASSERT_TRUE(s != NULL);
	EXPECT_EQ(nw_symbolize_unit_target(1), 4);
	EXPECT_EQ(symbolize_user(s, getpid(), fn, buf, sizeof(buf)), 0);
	EXPECT_STREQ(buf, "nw_symbolize_unit_target");
	/* inside the function (a return address), from the cached Dwfl */
	EXPECT_EQ(symbolize_user(s, getpid(), fn + 1, buf, sizeof(buf)), 0);
	EXPECT_STREQ(buf, "nw_symbolize_unit_target");
	/* truncated to the buffer, always terminated; len 0 writes nothing */
	EXPECT_EQ(symbolize_user(s, getpid(), fn, small, sizeof(small)), 0);
	EXPECT_STREQ(small, "nw_s");
	small[0] = 'x';
	EXPECT_EQ(symbolize_user(s, getpid(), fn, small, 0), 0);
	EXPECT_EQ(small[0], 'x');

	/* libc's getpid (or an alias such as __getpid) */
	EXPECT_EQ(symbolize_user(s, getpid(), (uintptr_t)&getpid, buf,
				 sizeof(buf)),
		  0);
	if (!strstr(buf, "getpid"))
		UNIT_REPORT("getpid symbolized as '%s'", buf), *_failed = 1;

	/* mapped, no symbol: libc's ELF header -> "[libc.so.6]" */
	ASSERT_TRUE(dladdr((void *)&getpid, &info) && info.dli_fbase);
	base = strrchr(info.dli_fname, '/');
	snprintf(want, sizeof(want), "[%s]", base ? base + 1 : info.dli_fname);
	EXPECT_EQ(symbolize_user(s, getpid(), (uintptr_t)info.dli_fbase, buf,
				 sizeof(buf)),
		  0);
	EXPECT_STREQ(buf, want);

	/* after forget, the maps are read again */
	symbolizer_forget(s, getpid());
	symbolizer_forget(s, getpid()); /* twice: nothing to drop */
	EXPECT_EQ(symbolize_user(s, getpid(), fn, buf, sizeof(buf)), 0);
	EXPECT_STREQ(buf, "nw_symbolize_unit_target");
	symbolizer_free(s);
	symbolizer_free(NULL);
}

TEST(symbolize_user_garbage_and_gone_pids_are_unknown)
{
	struct symbolizer *s = symbolizer_new();
	__u64 fn = (uintptr_t)&nw_symbolize_unit_target;
	char buf[64];
	__u32 i;

	ASSERT_TRUE(s != NULL);
	EXPECT_EQ(symbolize_user(s, getpid(), 0x10, buf, sizeof(buf)), -1);
	EXPECT_STREQ(buf, "[unknown]");
	EXPECT_EQ(symbolize_user(s, getpid(), ~0ULL, buf, sizeof(buf)), -1);
	EXPECT_STREQ(buf, "[unknown]");
	/* past PID_MAX_LIMIT (4M): no such process, ever */
	EXPECT_EQ(symbolize_user(s, INT32_MAX, fn, buf, sizeof(buf)), -1);
	EXPECT_STREQ(buf, "[unknown]");
	EXPECT_EQ(symbolize_user(s, INT32_MAX, fn, buf, sizeof(buf)), -1);
	/* more pids than the cache holds: the oldest go, this one stays
	 * usable (and ASan sees every evicted Dwfl freed) */
	EXPECT_EQ(symbolize_user(s, getpid(), fn, buf, sizeof(buf)), 0);
	for (i = 0; i < NW_SYMBOLIZE_MAX_PIDS + 8; i++) {
		EXPECT_EQ(symbolize_user(s, INT32_MAX - 1 - i, fn, buf,
					 sizeof(buf)),
			  -1);
		if (i % 64 == 0) /* keep ours recent */
			EXPECT_EQ(symbolize_user(s, getpid(), fn, buf,
						 sizeof(buf)),
				  0);
	}
	EXPECT_EQ(symbolize_user(s, getpid(), fn, buf, sizeof(buf)), 0);
	EXPECT_STREQ(buf, "nw_symbolize_unit_target");
	symbolizer_free(s);
}

/* The address of the global text symbol @name in *@addr (0: hidden); 0 or
 * -1 when kallsyms cannot be read or has no such symbol. */
static int kallsyms_addr(const char *name, unsigned long long *addr)
{
	char line[512], sym[256], type;
	FILE *f = fopen("/proc/kallsyms", "re");
	int ret = -1;

	if (!f)
		return -1;
	while (ret && fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx %c %255s", addr, &type, sym) == 3 &&
		    type == 'T' && !strcmp(sym, name) && !strchr(line, '['))
			ret = 0;
	fclose(f);
	return ret;
}

TEST(symbolize_kernel_names_schedule)
{
	struct symbolizer *s = symbolizer_new();
	unsigned long long addr = 0;
	char buf[64];

	ASSERT_TRUE(s != NULL);
	ASSERT_TRUE(!kallsyms_addr("schedule", &addr));
	if (!addr) {
		/* kptr_restrict (or no CAP_SYSLOG): unknown, not a crash */
		fprintf(stderr, "  note: /proc/kallsyms shows zero addresses: "
				"kernel names not checked\n");
		EXPECT_EQ(symbolize_kernel(s, 0xffffffff81000000ULL, buf,
					   sizeof(buf)),
			  -1);
		EXPECT_STREQ(buf, "[unknown]");
		symbolizer_free(s);
		return;
	}
	EXPECT_EQ(symbolize_kernel(s, (__u64)addr, buf, sizeof(buf)), 0);
	EXPECT_STREQ(buf, "schedule");
	EXPECT_EQ(symbolize_kernel(s, (__u64)addr + 1, buf, sizeof(buf)), 0);
	EXPECT_STREQ(buf, "schedule");
	EXPECT_EQ(symbolize_kernel(s, 0x10, buf, sizeof(buf)), -1);
	EXPECT_STREQ(buf, "[unknown]");
	symbolizer_free(s);
}
