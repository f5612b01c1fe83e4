// SPDX-License-Identifier: GPL-2.0
/*
 * nw-workload launcher: forks the supervisor, the helpers and the
 * targets, reaps them and writes the summary record.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "nw.h"
#include "spawn.h"

struct nw_opts nw_opts;
struct nw_shared *nw_shared;

static int sock_pair[2] = { -1, -1 };
static int helper_pipe[2] = { -1, -1 };

static int supervisor_child(void *arg)
{
	(void)arg;
	close(sock_pair[1]);
	if (helper_pipe[0] >= 0)
		close(helper_pipe[0]);
	return nw_supervisor_main(sock_pair[0],
				  nw_opts.shared_listener ? 1 : nw_opts.targets,
				  helper_pipe[1]);
}

static int killer_child(void *arg)
{
	(void)arg;
	close(sock_pair[0]);
	close(sock_pair[1]);
	close(helper_pipe[1]);
	return nw_supervisor_killer_main(helper_pipe[0]);
}

static int sender_child(void *arg)
{
	(void)arg;
	close(sock_pair[0]);
	close(sock_pair[1]);
	return nw_sigurg_sender_main();
}

static int target_child(void *arg)
{
	close(sock_pair[0]);
	return nw_target_main((int)(long)arg, sock_pair[1]);
}

static int leader_child(void *arg)
{
	(void)arg;
	close(sock_pair[0]);
	return nw_target_leader_main(sock_pair[1]);
}

static void emit_start(void)
{
	truth_emit("start", "\"launcher_pid\":%d,\"supervisor_pid\":%d,\"targets\":%d,"
		   "\"threads\":%d,\"iterations\":%d,\"shared_listener\":%s,"
		   "\"syscall\":\"%s\",\"nr\":%d,\"killable\":%s,\"recv_flag\":%s,"
		   "\"reply\":\"%s\",\"pidns\":%s,\"handle_us\":%ld,\"exec\":%s,\"t\":%llu",
		   getpid(), nw_shared->supervisor_pid, nw_opts.targets,
		   nw_opts.threads, nw_opts.iterations,
		   nw_opts.shared_listener ? "true" : "false", nw_opts.syscall_name,
		   nw_opts.nr, nw_opts.killable ? "true" : "false",
		   nw_opts.recv_flag ? "true" : "false", nw_reply_name(nw_opts.reply),
		   nw_opts.pidns ? "true" : "false", nw_opts.handle_us,
		   nw_opts.exec_argv ? "true" : "false", (unsigned long long)nw_now());
}

static void emit_summary(int sup_status, int rc)
{
	const struct nw_counts *c = &nw_shared->counts;

	truth_emit("summary", "\"syscalls\":%ld,\"syscalls_ok\":%ld,\"syscalls_eintr\":%ld,"
		   "\"syscalls_enosys\":%ld,\"retries\":%ld,\"recvs\":%ld,\"recvs_ok\":%ld,"
		   "\"recvs_failed\":%ld,\"sends\":%ld,\"sends_ok\":%ld,\"sends_enoent\":%ld,"
		   "\"addfds\":%ld,\"addfds_ok\":%ld,\"addfds_enoent\":%ld,"
		   "\"addfds_failed\":%ld,\"signals\":%ld,\"handlers\":%ld,"
		   "\"handlers_lost\":%ld,\"kills\":%ld,\"listener_closes\":%ld,"
		   "\"supervisor_status\":%d,\"exit_code\":%d,\"t\":%llu",
		   c->syscalls, c->syscalls_ok, c->syscalls_eintr, c->syscalls_enosys,
		   c->retries, c->recvs, c->recvs_ok, c->recvs_failed, c->sends,
		   c->sends_ok, c->sends_enoent, c->addfds, c->addfds_ok,
		   c->addfds_enoent, c->addfds_failed, c->signals, c->handlers,
		   c->handlers_lost, c->kills, c->listener_closes, sup_status, rc,
		   (unsigned long long)nw_now());
}

static int gate(pid_t supervisor)
{
	char line[64];

	printf("supervisor %d\n", supervisor);
	fflush(stdout);
	if (!fgets(line, sizeof(line), stdin)) {
		fprintf(stderr, "nw-workload: --gate: stdin closed\n");
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	int nslots, i, n_target_side = 0, st, rc = NW_EXIT_OK, bad = 0;
	pid_t supervisor, killer = -1, sender = -1, *target_side;
	size_t size;

	if (nw_parse_options(argc, argv, &nw_opts))
		return NW_EXIT_USAGE;
	if (truth_open(nw_opts.truth))
		return NW_EXIT_FAIL;
	if (nw_opts.demo)
		return nw_demo_main(argc, argv);

	nslots = nw_opts.targets * nw_opts.threads;
	size = sizeof(*nw_shared) + nslots * sizeof(struct nw_slot);
	nw_shared = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	target_side = calloc(nw_opts.targets, sizeof(*target_side));
	if (nw_shared == MAP_FAILED || !target_side) {
		perror("nw-workload: mmap");
		return NW_EXIT_FAIL;
	}
	nw_shared->nslots = nslots;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sock_pair) ||
	    (nw_opts.kill_supervisor_after_recv_us >= 0 && pipe2(helper_pipe, O_CLOEXEC))) {
		perror("nw-workload: socketpair/pipe");
		return NW_EXIT_FAIL;
	}

	supervisor = nw_spawn("supervisor", supervisor_child, NULL);
	if (supervisor < 0)
		return NW_EXIT_FAIL;
	nw_shared->supervisor_pid = supervisor;
	emit_start();
	if (helper_pipe[0] >= 0) {
		killer = nw_spawn("killer", killer_child, NULL);
		close(helper_pipe[0]);
		close(helper_pipe[1]);
	}
	if (nw_opts.gate && gate(supervisor))
		bad = 1;
	if (!bad && nw_opts.sigurg_period_us >= 0)
		sender = nw_spawn("sender", sender_child, NULL);
	if (!bad && nw_opts.shared_listener)
		target_side[n_target_side++] = nw_spawn_target("leader", leader_child, NULL);
	else
		for (i = 0; !bad && i < nw_opts.targets; i++)
			target_side[n_target_side++] =
				nw_spawn_target("target", target_child, (void *)(long)i);
	close(sock_pair[0]);
	close(sock_pair[1]);

	for (i = 0; i < n_target_side; i++)
		if (target_side[i] < 0 || nw_reap(target_side[i], -1, &st))
			bad = 1;
	__atomic_store_n(&nw_shared->targets_done, 1, __ATOMIC_SEQ_CST);
	if (sender > 0 && nw_reap(sender, -1, NULL))
		bad = 1;
	st = 0;
	nw_reap(supervisor, 5000, &st);
	if (killer > 0)
		nw_reap(killer, 5000, NULL);

	if (WIFEXITED(st) && WEXITSTATUS(st) == NW_EXIT_UNSUPPORTED)
		rc = NW_EXIT_UNSUPPORTED;
	else if (bad || (WIFEXITED(st) && WEXITSTATUS(st)) ||
		 (WIFSIGNALED(st) && killer < 0))
		rc = NW_EXIT_FAIL;
	if (rc == NW_EXIT_FAIL)
		fprintf(stderr, "nw-workload: a target or the supervisor failed (see the reap records)\n");
	emit_summary(st, rc);
	return rc;
}
