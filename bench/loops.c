// SPDX-License-Identifier: GPL-2.0
/*
 * Unrelated load for the overhead benchmark: what notifwait costs tasks that
 * never notify. "syscall N": N getppid() calls (sys_enter/sys_exit hooks);
 * "pingpong N": N pipe round trips between two processes (sched_switch and
 * sched_waking hooks). Prints ns per operation.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int pingpong(long n)
{
	int ab[2], ba[2];
	char c = 0;
	long i;
	pid_t pid;

	if (pipe(ab) || pipe(ba))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		for (i = 0; i < n; i++)
			if (read(ab[0], &c, 1) != 1 || write(ba[1], &c, 1) != 1)
				_exit(1);
		_exit(0);
	}
	for (i = 0; i < n; i++)
		if (write(ab[1], &c, 1) != 1 || read(ba[0], &c, 1) != 1)
			return -1;
	waitpid(pid, NULL, 0);
	return 0;
}

int main(int argc, char **argv)
{
	double t0, t1;
	long n, i;

	if (argc != 3 || (n = atol(argv[2])) <= 0) {
		fprintf(stderr, "usage: loops syscall|pingpong N\n");
		return 2;
	}
	t0 = now_ns();
	if (!strcmp(argv[1], "syscall")) {
		for (i = 0; i < n; i++)
			syscall(SYS_getppid);
	} else if (!strcmp(argv[1], "pingpong")) {
		if (pingpong(n))
			return 1;
	} else {
		fprintf(stderr, "loops: unknown load '%s'\n", argv[1]);
		return 2;
	}
	t1 = now_ns();
	printf("%.1f\n", (t1 - t0) / n);
	return 0;
}
