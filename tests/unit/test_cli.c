// SPDX-License-Identifier: GPL-2.0
#include <unistd.h>
#include <getopt.h>
#include "cli.h"
#include "pid_check.h"
#include "syscalls.h"
#include "unit.h"

TEST(durations)
{
	double v = 0;

	EXPECT_EQ(parse_duration("1.5", &v), 0);
	EXPECT_TRUE(v == 1.5);
	EXPECT_EQ(parse_duration("250ms", &v), 0);
	EXPECT_TRUE(v == 0.25);
	EXPECT_EQ(parse_duration("2m", &v), 0);
	EXPECT_TRUE(v == 120);
	EXPECT_TRUE(parse_duration("-1", &v) < 0);
	EXPECT_TRUE(parse_duration("0", &v) < 0);
	EXPECT_TRUE(parse_duration("1x", &v) < 0);
	EXPECT_TRUE(parse_duration("", &v) < 0);
	EXPECT_TRUE(parse_duration("nan", &v) < 0);
	EXPECT_TRUE(parse_duration("inf", &v) < 0);
}

TEST(pids)
{
	pid_t p = 0;

	EXPECT_EQ(parse_pid("1234", &p), 0);
	EXPECT_EQ(p, 1234);
	EXPECT_TRUE(parse_pid("abc", &p) < 0);
	EXPECT_TRUE(parse_pid("-5", &p) < 0);
	EXPECT_TRUE(parse_pid("0", &p) < 0);
	EXPECT_TRUE(parse_pid("12a", &p) < 0);
	EXPECT_TRUE(parse_pid("99999999999", &p) < 0);
}

TEST(syscall_names)
{
	EXPECT_EQ(nw_syscall_number("getppid"), 110);
	EXPECT_EQ(nw_syscall_number("110"), 110);
	EXPECT_EQ(nw_syscall_number("no_such_call"), -1);
	EXPECT_STREQ(nw_syscall_name(257), "openat");
	EXPECT_STREQ(nw_syscall_name(99999), "nr_99999");
}

static enum cli_result parse(struct env *env, int argc, char **argv)
{
	optind = 0;
	return cli_parse(argc, argv, env);
}

TEST(command_after_dashdash)
{
	struct env env;
	char *ok[] = { "notifwait", "-j", "-s", "7", "--", "ls", "-l", NULL };
	char *stray[] = { "notifwait", "-j", "ls", NULL };
	char *needs_hist[] = { "notifwait", "-i", "1", NULL };

	EXPECT_EQ(parse(&env, 7, ok), CLI_OK);
	EXPECT_TRUE(env.json);
	EXPECT_EQ(env.supervisor_pid, 7);
	ASSERT_TRUE(env.command);
	EXPECT_STREQ(env.command[0], "ls");
	EXPECT_STREQ(env.command[1], "-l");
	EXPECT_EQ(parse(&env, 3, stray), CLI_ERROR);
	EXPECT_EQ(parse(&env, 3, needs_hist), CLI_ERROR);
}

TEST(cli_rejects_what_can_never_match)
{
	char *short_i[] = { "notifwait", "-H", "-i", "10ms", NULL };
	char *ok_i[] = { "notifwait", "-H", "-i", "50ms", NULL };
	char *json_arg[] = { "notifwait", "--json=1", NULL };
	struct env env;

	optind = 0;
	EXPECT_EQ(cli_parse(4, short_i, &env), CLI_ERROR);
	optind = 0;
	EXPECT_EQ(cli_parse(4, ok_i, &env), CLI_OK);
	optind = 0;
	EXPECT_EQ(cli_parse(2, json_arg, &env), CLI_ERROR);
	optind = 0;
	EXPECT_EQ(nw_syscall_number("4095"), -1);
	EXPECT_EQ(nw_syscall_number("39"), 39);
}

TEST(kernel_threads_are_never_targets)
{
	EXPECT_TRUE(nw_is_kernel_thread(2) ||
		    access("/proc/2/stat", R_OK)); /* kthreadd, outside a pid ns */
	EXPECT_TRUE(!nw_is_kernel_thread(getpid()));
	EXPECT_TRUE(!nw_is_kernel_thread(1));
}

TEST(ringbuf_size)
{
	struct env env;
	unsigned int b = 0;
	char *ok[] = { "notifwait", "--ringbuf-size", "64K", NULL };
	char *odd[] = { "notifwait", "--ringbuf-size", "3M", NULL };
	char *none[] = { "notifwait", NULL };

	EXPECT_EQ(parse_ringbuf_size("4096", &b), 0);
	EXPECT_EQ(b, 4096u);
	EXPECT_EQ(parse_ringbuf_size("4M", &b), 0);
	EXPECT_EQ(b, 4u << 20);
	EXPECT_EQ(parse_ringbuf_size("1G", &b), 0);
	EXPECT_EQ(b, 1u << 30);
	EXPECT_TRUE(parse_ringbuf_size("2048", &b) < 0); /* under a page */
	EXPECT_TRUE(parse_ringbuf_size("2G", &b) < 0);
	EXPECT_TRUE(parse_ringbuf_size("12K", &b) < 0); /* not a power of 2 */
	EXPECT_TRUE(parse_ringbuf_size("-4K", &b) < 0);
	EXPECT_TRUE(parse_ringbuf_size("4KB", &b) < 0);
	EXPECT_TRUE(parse_ringbuf_size("", &b) < 0);
	EXPECT_TRUE(parse_ringbuf_size("17179869185G", &b) < 0); /* wraps to 1G */
	EXPECT_TRUE(parse_ringbuf_size("99999999999999999999", &b) < 0);
	EXPECT_EQ(parse(&env, 3, ok), CLI_OK);
	EXPECT_EQ(env.ringbuf_bytes, 64u << 10);
	EXPECT_EQ(parse(&env, 3, odd), CLI_ERROR);
	EXPECT_EQ(parse(&env, 1, none), CLI_OK);
	EXPECT_EQ(env.ringbuf_bytes, 0u);
}

/* --replay reports a recording: what chose the tracing cannot apply. */
TEST(replay_takes_only_report_options)
{
	struct env env;
	char *ok[] = { "notifwait", "--replay", "r.rec", "-j", "-s", "7",
		       "--summary", NULL };
	char *with_pid[] = { "notifwait", "--replay", "r.rec", "-p", "7", NULL };
	char *with_backend[] = { "notifwait", "--replay", "r.rec",
				 "--backend", "fentry", NULL };
	char *with_record[] = { "notifwait", "--replay", "r.rec", "--record",
				"s.rec", NULL };
	char *with_cmd[] = { "notifwait", "--replay", "r.rec", "--", "ls",
			     NULL };
	char *with_duration[] = { "notifwait", "--replay", "r.rec", "-d", "1",
				  NULL };
	char *empty[] = { "notifwait", "--replay", "", NULL };

	EXPECT_EQ(parse(&env, 7, ok), CLI_OK);
	EXPECT_STREQ(env.replay, "r.rec");
	EXPECT_EQ(env.supervisor_pid, 7);
	EXPECT_EQ(parse(&env, 5, with_pid), CLI_ERROR);
	EXPECT_EQ(parse(&env, 5, with_backend), CLI_ERROR);
	EXPECT_EQ(parse(&env, 5, with_record), CLI_ERROR);
	EXPECT_EQ(parse(&env, 5, with_cmd), CLI_ERROR);
	EXPECT_EQ(parse(&env, 5, with_duration), CLI_ERROR);
	EXPECT_EQ(parse(&env, 3, empty), CLI_ERROR);
}
