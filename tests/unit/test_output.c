// SPDX-License-Identifier: GPL-2.0
/* output.h: whole lines per write(), close-on-exec, checked writes. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "output.h"
#include "unit.h"

/*
 * An output writing into a SOCK_SEQPACKET pair: each read() of @p[0]
 * returns exactly one write(). NULL if either cannot be made.
 */
static struct nw_output *seqpacket_output(int p[2])
{
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK, 0, p))
		return NULL;
	return output_open_fd(p[1], "socket");
}

static void seqpacket_close(int p[2])
{
	output_close_all();
	close(p[0]);
	close(p[1]);
}

TEST(output_writes_whole_lines_in_pipe_buf_chunks)
{
	char buf[3 * PIPE_BUF];
	struct nw_output *o;
	int p[2], i;
	ssize_t n;
	FILE *f;

	o = seqpacket_output(p);
	ASSERT_TRUE(o != NULL);
	f = output_file(o);
	fputs("half", f);
	EXPECT_EQ(output_flush(o), 0);
	/* nothing yet: no whole line */
	EXPECT_EQ(read(p[0], buf, sizeof(buf)), -1);
	fputs(" line\n", f);
	for (i = 0; i < 200; i++) /* 200 * 50 bytes: more than PIPE_BUF */
		fprintf(f, "%048d\n", i);
	EXPECT_EQ(output_flush(o), 0);
	/* each read returns one write(): whole lines, no more than PIPE_BUF */
	n = read(p[0], buf, sizeof(buf));
	EXPECT_TRUE(n > 0 && n <= PIPE_BUF && buf[n - 1] == '\n');
	EXPECT_TRUE(!strncmp(buf, "half line\n", 10));
	while ((n = read(p[0], buf, sizeof(buf))) > 0)
		EXPECT_TRUE(n <= PIPE_BUF && buf[n - 1] == '\n');
	seqpacket_close(p);
}

/* chunk_len(): a line longer than PIPE_BUF goes alone, whole, and the
 * lines after it in their own chunks. */
TEST(output_writes_a_line_longer_than_pipe_buf_alone)
{
	char buf[3 * PIPE_BUF];
	struct nw_output *o;
	int p[2], i;
	FILE *f;

	o = seqpacket_output(p);
	ASSERT_TRUE(o != NULL);
	f = output_file(o);
	fputs("short\n", f);
	for (i = 0; i < PIPE_BUF + 100; i++)
		fputc('x', f);
	fputs("\nafter\npartial", f);
	EXPECT_EQ(output_flush(o), 0);
	EXPECT_EQ(read(p[0], buf, sizeof(buf)), 6);
	EXPECT_EQ(read(p[0], buf, sizeof(buf)), PIPE_BUF + 101);
	EXPECT_EQ(read(p[0], buf, sizeof(buf)), 6);
	EXPECT_TRUE(!strncmp(buf, "after\n", 6));
	EXPECT_EQ(read(p[0], buf, sizeof(buf)), -1); /* "partial" is held */
	seqpacket_close(p);
}

TEST(output_counts_lines_it_cannot_write)
{
	struct nw_output *o;
	int fd = open("/dev/full", O_WRONLY | O_CLOEXEC);
	FILE *f;

	ASSERT_TRUE(fd >= 0);
	o = output_open_fd(fd, "/dev/full");
	ASSERT_TRUE(o != NULL);
	f = output_file(o);
	fputs("one\ntwo\nthree\n", f);
	EXPECT_TRUE(output_flush(o) < 0);
	EXPECT_EQ(output_lines_lost(), 3);
	output_close_all();
	close(fd);
}

TEST(output_path_is_cloexec_and_truncated_only_at_begin)
{
	char path[] = "/tmp/nw-unit-output.XXXXXX";
	int fd = mkstemp(path), flags;
	bool before[64];
	struct nw_output *o;
	char buf[32] = "";

	ASSERT_TRUE(fd >= 0);
	ASSERT_TRUE(write(fd, "previous\n", 9) == 9);
	close(fd);
	o = output_open_path(path);
	ASSERT_TRUE(o != NULL);
	/* a failed start-up: the previous content is still there */
	output_close_all();
	fd = open(path, O_RDONLY);
	EXPECT_EQ(read(fd, buf, sizeof(buf)), 9);
	close(fd);

	for (fd = 0; fd < 64; fd++)
		before[fd] = fcntl(fd, F_GETFD) >= 0;
	o = output_open_path(path);
	ASSERT_TRUE(o != NULL);
	for (fd = 3; fd < 64; fd++) {
		flags = fcntl(fd, F_GETFD);
		if (!before[fd] && flags >= 0)
			EXPECT_TRUE(flags & FD_CLOEXEC);
	}
	fd = open(path, O_RDONLY);
	EXPECT_EQ(output_begin_all(), 0);
	fputs("new\n", output_file(o));
	output_flush(o);
	memset(buf, 0, sizeof(buf));
	EXPECT_EQ(read(fd, buf, sizeof(buf)), 4);
	EXPECT_STREQ(buf, "new\n");
	close(fd);
	output_close_all();
	unlink(path);
}

/*
 * A regular file that stops taking bytes (RLIMIT_FSIZE) mid-chunk: the
 * part written is cut back off, and the next chunk that fits goes where
 * the cut one began.
 */
TEST(output_regular_file_cut_back_to_whole_chunks)
{
	char path[] = "/tmp/nw-unit-output.XXXXXX";
	int fd = mkstemp(path), status;
	struct stat st;
	pid_t pid;

	ASSERT_TRUE(fd >= 0);
	close(fd);
	pid = fork();
	if (pid == 0) {
		struct rlimit rl = { 10000, 10000 };
		char line[100];
		struct nw_output *o;
		int i;

		signal(SIGXFSZ, SIG_IGN);
		setrlimit(RLIMIT_FSIZE, &rl);
		o = output_open_path(path);
		if (!o || output_begin_all())
			_exit(2);
		memset(line, 'x', sizeof(line) - 1);
		line[sizeof(line) - 1] = '\n';
		/* 50 lines of 100 fit; 60 more cross the limit and are cut */
		for (i = 0; i < 50; i++)
			fwrite(line, 1, sizeof(line), output_file(o));
		if (output_flush(o))
			_exit(3);
		for (i = 0; i < 60; i++)
			fwrite(line, 1, sizeof(line), output_file(o));
		if (!output_flush(o))
			_exit(4);
		/* 40 fit where the cut chunk began */
		for (i = 0; i < 40; i++)
			fwrite(line, 1, sizeof(line), output_file(o));
		if (output_flush(o))
			_exit(5);
		_exit(output_close_all() == 60 ? 0 : 6);
	}
	ASSERT_TRUE(pid > 0 && waitpid(pid, &status, 0) == pid);
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(WEXITSTATUS(status), 0);
	ASSERT_TRUE(stat(path, &st) == 0);
	EXPECT_EQ(st.st_size, 9000);
	unlink(path);
}
