// SPDX-License-Identifier: GPL-2.0
/* ADDFD matched as the kernel does; "--" alone, -u and --as-root. */
#include <linux/ioctl.h>
#include <linux/types.h>
#include <unistd.h>
#include "cli.h"
#include "notifwait.h"
#include "unit.h"

#define SECCOMP_MAGIC '!'

TEST(addfd_any_size_or_direction)
{
	EXPECT_TRUE(NW_IOCTL_IS_ADDFD(NW_IOCTL_NOTIF_ADDFD));
	EXPECT_TRUE(NW_IOCTL_IS_ADDFD(_IOC(_IOC_WRITE, SECCOMP_MAGIC, 3, 32)));
	EXPECT_TRUE(
		NW_IOCTL_IS_ADDFD(_IOC(_IOC_WRITE, SECCOMP_MAGIC, 3, 4095)));
	EXPECT_TRUE(NW_IOCTL_IS_ADDFD(
		_IOC(_IOC_READ | _IOC_WRITE, SECCOMP_MAGIC, 3, 24)));
	EXPECT_TRUE(NW_IOCTL_IS_ADDFD(_IOC(_IOC_READ, SECCOMP_MAGIC, 3, 40)));
	EXPECT_TRUE(NW_IOCTL_IS_ADDFD(_IOC(_IOC_NONE, SECCOMP_MAGIC, 3, 0)));
	/* the other NOTIF commands, and number 3 of another type */
	EXPECT_TRUE(!NW_IOCTL_IS_ADDFD(NW_IOCTL_NOTIF_RECV));
	EXPECT_TRUE(!NW_IOCTL_IS_ADDFD(NW_IOCTL_NOTIF_SEND));
	EXPECT_TRUE(!NW_IOCTL_IS_ADDFD(NW_IOCTL_NOTIF_ID_VALID));
	EXPECT_TRUE(!NW_IOCTL_IS_ADDFD(_IOC(_IOC_WRITE, '"', 3, 24)));
	EXPECT_TRUE(!NW_IOCTL_IS_ADDFD(_IOC(_IOC_WRITE, SECCOMP_MAGIC, 4, 24)));
}

static enum cli_result parse(struct env *env, int argc, char **argv)
{
	optind = 0;
	return cli_parse(argc, argv, env);
}

TEST(dashdash_needs_a_command)
{
	struct env env;
	char *alone[] = { "notifwait", "--", NULL };
	char *after_opts[] = { "notifwait", "-j", "-d", "1", "--", NULL };
	char *as_output[] = { "notifwait", "-o", "--", NULL };
	char *with_cmd[] = { "notifwait", "--", "true", NULL };

	EXPECT_EQ(parse(&env, 2, alone), CLI_ERROR);
	EXPECT_EQ(parse(&env, 5, after_opts), CLI_ERROR);
	/* "--" as -o's argument is a file name, not the separator */
	EXPECT_EQ(parse(&env, 3, as_output), CLI_OK);
	EXPECT_STREQ(env.output, "--");
	EXPECT_TRUE(env.command == NULL);
	EXPECT_EQ(parse(&env, 3, with_cmd), CLI_OK);
	EXPECT_STREQ(env.command[0], "true");
}

TEST(user_and_as_root)
{
	struct env env;
	char *user[] = { "notifwait", "-u", "nobody", "--", "id", NULL };
	char *long_user[] = { "notifwait", "--user=65534", "--", "id", NULL };
	char *as_root[] = { "notifwait", "--as-root", "--", "id", NULL };
	char *no_cmd[] = { "notifwait", "-u", "nobody", NULL };
	char *root_no_cmd[] = { "notifwait", "--as-root", NULL };
	char *both[] = { "notifwait", "-u", "nobody", "--as-root",
			 "--",	      "id", NULL };
	char *empty[] = { "notifwait", "-u", "", "--", "id", NULL };

	EXPECT_EQ(parse(&env, 5, user), CLI_OK);
	EXPECT_STREQ(env.run_as_user, "nobody");
	EXPECT_TRUE(!env.as_root);
	EXPECT_EQ(parse(&env, 4, long_user), CLI_OK);
	EXPECT_STREQ(env.run_as_user, "65534");
	EXPECT_EQ(parse(&env, 4, as_root), CLI_OK);
	EXPECT_TRUE(env.as_root && !env.run_as_user);
	EXPECT_EQ(parse(&env, 3, no_cmd), CLI_ERROR);
	EXPECT_EQ(parse(&env, 2, root_no_cmd), CLI_ERROR);
	EXPECT_EQ(parse(&env, 6, both), CLI_ERROR);
	EXPECT_EQ(parse(&env, 5, empty), CLI_ERROR);
}
