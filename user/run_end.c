// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include "run_end.h"

static volatile sig_atomic_t first_signal, signal_count;

static void on_signal(int sig)
{
	if (!first_signal)
		first_signal = sig;
	if (signal_count < 1000)
		signal_count++;
}

void run_end_install(void)
{
	struct sigaction sa = { .sa_handler = on_signal };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

int run_end_signal(void)
{
	return first_signal;
}

static void kill_now(struct run_end *e, struct command *cmd, __u64 now,
		     const char *why)
{
	fprintf(stderr,
		"notifwait: %s: sending SIGKILL to the command (pid %d)\n", why,
		cmd->pid);
	command_signal(cmd, SIGKILL);
	e->phase = RUN_END_KILLED;
	e->give_up_ns = now + NW_REAP_S * 1000000000ULL;
}

static void start_ending(struct run_end *e, struct command *cmd, int sig,
			 __u64 now)
{
	e->sent = sig ? sig : SIGTERM;
	if (sig)
		fprintf(stderr, "notifwait: received SIG%s", sigabbrev_np(sig));
	else
		fprintf(stderr, "notifwait: the duration (-d) expired");
	fprintf(stderr,
		": sending SIG%s to the command (pid %d), SIGKILL in %d s\n",
		sigabbrev_np(e->sent), cmd->pid, NW_GRACE_S);
	command_signal(cmd, e->sent);
	e->phase = RUN_END_GRACE;
	e->kill_at_ns = now + NW_GRACE_S * 1000000000ULL;
}

bool run_end_step(struct run_end *e, struct command *cmd, bool expired,
		  __u64 now)
{
	int sig = first_signal;

	if (e->phase == RUN_END_DONE)
		return true;
	if (cmd && command_reap(cmd, false)) {
		if (e->phase != RUN_END_RUNNING)
			fprintf(stderr,
				"notifwait: the command (pid %d) ended\n",
				cmd->pid);
		e->phase = RUN_END_DONE;
		return true;
	}
	switch (e->phase) {
	case RUN_END_RUNNING:
		if (!sig && !expired)
			return false;
		if (!cmd) {
			e->phase = RUN_END_DONE;
			return true;
		}
		start_ending(e, cmd, sig, now);
		/* the signal that started the end is the first */
		e->signals_seen = sig ? 1 : 0;
		/* two signals before this step escalate at once */
		__attribute__((fallthrough));
	case RUN_END_GRACE:
		if ((unsigned int)signal_count > e->signals_seen)
			kill_now(e, cmd, now, "another signal");
		else if (now >= e->kill_at_ns)
			kill_now(e, cmd, now,
				 "the command did not end in time");
		return false;
	case RUN_END_KILLED:
		if (now < e->give_up_ns)
			return false;
		fprintf(stderr,
			"notifwait: the command (pid %d) did not end %d s after SIGKILL; not waiting for it\n",
			cmd->pid, NW_REAP_S);
		e->gave_up = true;
		e->phase = RUN_END_DONE;
		return true;
	case RUN_END_DONE:
		break;
	}
	return true;
}
