// SPDX-License-Identifier: GPL-2.0
/*
 * Child processes: fork, optionally into a new pid namespace, and reap
 * them with a "reap" truth record each.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "nw.h"
#include "spawn.h"

#define MAX_CHILDREN 4200

static struct {
	pid_t pid;
	const char *role;
} children[MAX_CHILDREN];
static int nchildren;

pid_t nw_spawn(const char *role, int (*fn)(void *), void *arg)
{
	pid_t pid;

	if (nchildren == MAX_CHILDREN) {
		fprintf(stderr, "nw-workload: too many children\n");
		return -1;
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		perror("nw-workload: fork");
		return -1;
	}
	if (!pid) {
		/* a killed run (a test's timeout) must not leave workers behind */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		nchildren = 0;
		_exit(fn(arg));
	}
	children[nchildren].pid = pid;
	children[nchildren].role = role;
	nchildren++;
	return pid;
}

struct nsinit_arg {
	const char *role;
	int (*fn)(void *);
	void *arg;
};

/* Parent of the new pid namespace's init: the real target/leader. */
static int nsinit_main(void *p)
{
	struct nsinit_arg *a = p;

	if (unshare(CLONE_NEWPID)) {
		perror("nw-workload: unshare(CLONE_NEWPID)");
		return NW_EXIT_FAIL;
	}
	if (nw_spawn(a->role, a->fn, a->arg) < 0)
		return NW_EXIT_FAIL;
	return nw_reap_all(NULL) ? NW_EXIT_FAIL : NW_EXIT_OK;
}

pid_t nw_spawn_target(const char *role, int (*fn)(void *), void *arg)
{
	struct nsinit_arg a = { .role = role, .fn = fn, .arg = arg };

	if (!nw_opts.pidns)
		return nw_spawn(role, fn, arg);
	return nw_spawn("nsinit", nsinit_main, &a);
}

static int record(int i, int status)
{
	char code[16] = "null", sig[16] = "null";
	int bad = 0;

	if (WIFEXITED(status)) {
		snprintf(code, sizeof(code), "%d", WEXITSTATUS(status));
		bad = WEXITSTATUS(status) != 0;
	} else if (WIFSIGNALED(status)) {
		snprintf(sig, sizeof(sig), "%d", WTERMSIG(status));
	}
	truth_emit("reap", "\"pid\":%d,\"role\":\"%s\",\"exit_code\":%s,\"signal\":%s,"
		   "\"reaper\":%d,\"t\":%llu", children[i].pid, children[i].role,
		   code, sig, getpid(), (unsigned long long)nw_now());
	children[i] = children[--nchildren];
	return bad;
}

/*
 * Wait for one child; timeout_ms < 0 waits forever, else SIGKILL it
 * after timeout_ms. Returns 1 if it exited non-zero, -1 if unknown.
 */
int nw_reap(pid_t pid, int timeout_ms, int *status)
{
	int i, st = 0, waited = 0;
	pid_t r;

	for (i = 0; i < nchildren && children[i].pid != pid; i++)
		;
	if (i == nchildren)
		return -1;
	for (;;) {
		r = waitpid(pid, &st, timeout_ms < 0 ? 0 : WNOHANG);
		if (r == pid)
			break;
		if (r < 0 && errno != EINTR)
			return -1;
		if (r == 0) {
			if (waited >= timeout_ms) {
				kill(pid, SIGKILL);
				timeout_ms = -1;
				continue;
			}
			usleep(10000);
			waited += 10;
		}
	}
	if (status)
		*status = st;
	return record(i, st);
}

/* Wait for every child; returns non-zero if one exited non-zero. */
int nw_reap_all(int *worst)
{
	int i, st, bad = 0;
	pid_t r;

	while (nchildren) {
		r = waitpid(-1, &st, 0);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		for (i = 0; i < nchildren && children[i].pid != r; i++)
			;
		if (i == nchildren)
			continue;
		if (worst && WIFEXITED(st) && WEXITSTATUS(st))
			*worst = WEXITSTATUS(st);
		bad |= record(i, st);
	}
	return bad;
}
