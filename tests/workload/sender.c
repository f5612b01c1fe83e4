// SPDX-License-Identifier: GPL-2.0
/*
 * Helper processes: the periodic SIGURG sender (like Go's asynchronous
 * preemption) and the one that SIGKILLs the supervisor mid-wait.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "nw.h"

int nw_sigurg_sender_main(void)
{
	uint64_t period = nw_opts.sigurg_period_us * 1000ULL, next = nw_now() + period;
	pid_t self = getpid();
	uint64_t t0, t1;
	int i, r, e, in;
	long rounds = 0;

	while (!__atomic_load_n(&nw_shared->targets_done, __ATOMIC_SEQ_CST)) {
		if (nw_opts.sigurg_count >= 0 && rounds++ >= nw_opts.sigurg_count) {
			nw_sleep_until(nw_now() + 1000000); /* until the end */
			continue;
		}
		nw_sleep_until(next);
		/* like Go's sysmon: a late tick is not made up for by a burst */
		next += period;
		if (next < nw_now())
			next = nw_now() + period;
		for (i = 0; i < nw_shared->nslots; i++) {
			struct nw_slot *s = &nw_shared->slots[i];

			if (!__atomic_load_n(&s->ready, __ATOMIC_SEQ_CST) ||
			    __atomic_load_n(&s->exited, __ATOMIC_SEQ_CST))
				continue;
			in = __atomic_load_n(&s->in_syscall, __ATOMIC_SEQ_CST);
			t0 = nw_now();
			r = syscall(__NR_tgkill, s->pid, s->tid, SIGURG);
			e = r ? errno : 0;
			t1 = nw_now();
			truth_emit("signal", "\"sender_pid\":%d,\"target_pid\":%d,"
				   "\"target_tid\":%d,\"sig\":%d,\"phase\":\"periodic\","
				   "\"id\":null,\"in_syscall\":%s,\"t_before\":%llu,"
				   "\"t_after\":%llu,\"ret\":%d,\"errno\":%d",
				   self, s->pid, s->tid, SIGURG, in ? "true" : "false",
				   (unsigned long long)t0, (unsigned long long)t1, r, e);
			NW_COUNT(signals);
		}
	}
	return NW_EXIT_OK;
}

int nw_supervisor_killer_main(int pipe_fd)
{
	pid_t victim = nw_shared->supervisor_pid;
	uint64_t t_recv, t0, t1;
	ssize_t n;
	int r, e;

	do
		n = read(pipe_fd, &t_recv, sizeof(t_recv));
	while (n < 0 && errno == EINTR);
	if (n != sizeof(t_recv))
		return NW_EXIT_OK;	/* the supervisor never received */
	nw_sleep_until(t_recv + nw_opts.kill_supervisor_after_recv_us * 1000ULL);
	t0 = nw_now();
	r = kill(victim, SIGKILL);
	e = r ? errno : 0;
	t1 = nw_now();
	truth_emit("kill", "\"sender_pid\":%d,\"victim\":\"supervisor\",\"pid\":%d,"
		   "\"tid\":%d,\"id\":null,\"t_before\":%llu,\"t_after\":%llu,"
		   "\"ret\":%d,\"errno\":%d",
		   getpid(), victim, victim, (unsigned long long)t0,
		   (unsigned long long)t1, r, e);
	NW_COUNT(kills);
	return NW_EXIT_OK;
}
