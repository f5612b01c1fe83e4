// SPDX-License-Identifier: GPL-2.0
/*
 * --demo: four sub-workloads at once, about 2-3 seconds in all:
 * deferred signals (killable filter, SIGURG every 10 ms, 20 ms handling),
 * interrupting signals (same without --killable: EINTR retries and SEND
 * failing with ENOENT), an addfd and an addfd+SEND group.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "nw.h"

#define MAX_ARGS 32

static const char *const groups[][MAX_ARGS] = {
	{ "deferred", "--killable", "--iterations", "100",
	  "--handle-us", "20000", "--sigurg-period-us", "10000", NULL },
	{ "interrupted", "--threads", "2", "--iterations", "60",
	  "--handle-us", "6000", "--sigurg-period-us", "10000", NULL },
	{ "addfd", "--syscall", "openat", "--reply", "addfd", "--iterations", "20",
	  "--handle-us", "2000", NULL },
	{ "addfd-send", "--syscall", "openat", "--reply", "addfd-send",
	  "--killable", "--iterations", "20", "--handle-us", "2000", NULL },
};

#define NGROUPS (sizeof(groups) / sizeof(groups[0]))

static pid_t run_group(unsigned int g)
{
	const char *argv[MAX_ARGS + 8];
	int n = 0, i;
	pid_t pid;

	argv[n++] = "nw-workload";
	argv[n++] = "--run";
	argv[n++] = groups[g][0];
	for (i = 1; groups[g][i]; i++)
		argv[n++] = groups[g][i];
	if (nw_opts.truth) {
		argv[n++] = "--truth";
		argv[n++] = nw_opts.truth;
	}
	argv[n] = NULL;
	fflush(NULL);
	pid = fork();
	if (!pid) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		execv("/proc/self/exe", (char **)argv);
		perror("nw-workload: exec /proc/self/exe");
		_exit(NW_EXIT_FAIL);
	}
	return pid;
}

int nw_demo_main(int argc, char **argv)
{
	pid_t pids[NGROUPS];
	unsigned int g;
	int st, rc = NW_EXIT_OK;

	(void)argc;
	(void)argv;
	for (g = 0; g < NGROUPS; g++)
		pids[g] = run_group(g);
	for (g = 0; g < NGROUPS; g++) {
		if (pids[g] < 0 || waitpid(pids[g], &st, 0) < 0 ||
		    !WIFEXITED(st) || WEXITSTATUS(st)) {
			fprintf(stderr, "nw-workload: demo group '%s' failed\n", groups[g][0]);
			rc = NW_EXIT_FAIL;
		}
	}
	return rc;
}
