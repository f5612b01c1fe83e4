// SPDX-License-Identifier: GPL-2.0
/* --prom-file replaces only a regular file (or a missing one). */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include "prom_textfile.h"
#include "unit.h"

TEST(prom_textfile_replaces_only_regular_files)
{
	char dir[] = "/tmp/nw-unit-prom.XXXXXX", path[128];
	struct stat st;

	ASSERT_TRUE(mkdtemp(dir) != NULL);
	snprintf(path, sizeof(path), "%s/m.prom", dir);
	EXPECT_TRUE(prom_textfile_refused(path) == NULL); /* missing */
	EXPECT_EQ(prom_textfile_write(path, "a 1\n", 4), 0);
	EXPECT_TRUE(prom_textfile_refused(path) == NULL); /* regular */
	EXPECT_EQ(prom_textfile_write(path, "a 2\n", 4), 0);
	unlink(path);

	ASSERT_TRUE(!mkfifo(path, 0600));
	EXPECT_STREQ(prom_textfile_refused(path), "a FIFO");
	EXPECT_EQ(prom_textfile_write(path, "a 3\n", 4), -EEXIST);
	EXPECT_TRUE(!lstat(path, &st) && S_ISFIFO(st.st_mode));
	unlink(path);

	ASSERT_TRUE(!symlink("/dev/null", path));
	EXPECT_STREQ(prom_textfile_refused(path), "a symbolic link");
	EXPECT_EQ(prom_textfile_write(path, "a 4\n", 4), -EEXIST);
	EXPECT_TRUE(!lstat(path, &st) && S_ISLNK(st.st_mode));
	unlink(path);

	EXPECT_STREQ(prom_textfile_refused(dir), "a directory");
	EXPECT_STREQ(prom_textfile_refused("/dev/null"), "a character device");
	rmdir(dir);
}
