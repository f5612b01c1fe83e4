// SPDX-License-Identifier: GPL-2.0
/*
 * Target processes: install the filter, hand the listener to the
 * supervisor, then T threads each make K intercepted syscalls, retrying
 * on EINTR like the Go runtime does (or, in exec mode, exec PROGRAM).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ids.h"
#include "nw.h"
#include "spawn.h"

#define HANDLER_BUF 4096

/* Filled by the signal handler: async-signal-safe, written out later. */
struct handler_buf {
	volatile int n;
	int flushed;
	long lost;
	struct {
		int sig;
		uint64_t t;
	} e[HANDLER_BUF];
};

static __thread struct handler_buf hbuf;

struct thread_arg {
	pthread_t thread;
	int target;
	int index;
	struct nw_slot *slot;
	pthread_barrier_t *barrier;
};

static void on_signal(int sig)
{
	uint64_t t = nw_now();
	int n = hbuf.n;

	if (n >= HANDLER_BUF) {
		hbuf.lost++;
		return;
	}
	hbuf.e[n].sig = sig;
	hbuf.e[n].t = t;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	hbuf.n = n + 1;
}

static int install_handlers(void)
{
	struct sigaction sa = { .sa_handler = on_signal };

	sigfillset(&sa.sa_mask);
	sa.sa_flags = nw_opts.sa_restart ? SA_RESTART : 0;
	if (nw_opts.signal && sigaction(nw_opts.signal, &sa, NULL))
		return -1;
	if (nw_opts.sigurg_period_us >= 0 && sigaction(SIGURG, &sa, NULL))
		return -1;
	return 0;
}

static void flush_handlers(const struct nw_slot *slot)
{
	sigset_t all, old;
	int i;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	for (i = hbuf.flushed; i < hbuf.n; i++) {
		truth_emit("handler", "\"pid\":%d,\"tid\":%d,\"sig\":%d,\"t\":%llu",
			   slot->pid, slot->tid, hbuf.e[i].sig,
			   (unsigned long long)hbuf.e[i].t);
		NW_COUNT(handlers);
	}
	hbuf.n = hbuf.flushed = 0;
	if (hbuf.lost) {
		__atomic_add_fetch(&nw_shared->counts.handlers_lost, hbuf.lost, __ATOMIC_RELAXED);
		hbuf.lost = 0;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

static long intercepted_syscall(void)
{
	if (nw_opts.nr == __NR_openat)
		return syscall(__NR_openat, AT_FDCWD, "/dev/null", O_RDONLY | O_CLOEXEC, 0);
	return syscall(nw_opts.nr, 0, 0, 0, 0, 0, 0);
}

static void one_attempt(struct thread_arg *a, int iter, int attempt, long *ret, int *err)
{
	struct nw_slot *s = a->slot;
	uint64_t t0, t1;

	s->iter = iter;
	s->attempt = attempt;
	__atomic_store_n(&s->in_syscall, 1, __ATOMIC_SEQ_CST);
	t0 = nw_now();
	*ret = intercepted_syscall();
	*err = *ret == -1 ? errno : 0;
	t1 = nw_now();
	__atomic_store_n(&s->in_syscall, 0, __ATOMIC_SEQ_CST);
	flush_handlers(s);
	truth_emit("syscall",
		   "\"pid\":%d,\"tid\":%d,\"ns_pid\":%d,\"ns_tid\":%d,\"target\":%d,"
		   "\"thread\":%d,\"nr\":%d,\"iter\":%d,\"attempt\":%d,\"retry\":%s,"
		   "\"t_before\":%llu,\"t_after\":%llu,\"ret\":%ld,\"errno\":%d",
		   s->pid, s->tid, s->ns_pid, s->ns_tid, a->target, a->index,
		   nw_opts.nr, iter, attempt, attempt ? "true" : "false",
		   (unsigned long long)t0, (unsigned long long)t1, *ret, *err);
	NW_COUNT(syscalls);
	if (*ret != -1)
		NW_COUNT(syscalls_ok);
	if (*err == EINTR)
		NW_COUNT(syscalls_eintr);
	if (*err == ENOSYS)
		NW_COUNT(syscalls_enosys);
	if (attempt)
		NW_COUNT(retries);
	if (nw_opts.nr == __NR_openat && *ret >= 0)
		close(*ret);
}

static void *thread_main(void *p)
{
	struct thread_arg *a = p;
	struct nw_slot *s = a->slot;
	struct nw_ids ids;
	int iter, attempt, err;
	long ret;

	if (nw_thread_ids(&ids))
		exit(NW_EXIT_FAIL);
	s->pid = ids.pid;
	s->tid = ids.tid;
	s->ns_pid = ids.ns_pid;
	s->ns_tid = ids.ns_tid;
	s->target = a->target;
	s->sig_iter = -1;
	truth_emit("thread", "\"pid\":%d,\"tid\":%d,\"ns_pid\":%d,\"ns_tid\":%d,"
		   "\"target\":%d,\"thread\":%d",
		   s->pid, s->tid, s->ns_pid, s->ns_tid, a->target, a->index);
	__atomic_store_n(&s->ready, 1, __ATOMIC_SEQ_CST);
	pthread_barrier_wait(a->barrier);	/* all ids known */
	pthread_barrier_wait(a->barrier);	/* rlimit applied */

	for (iter = 0; iter < nw_opts.iterations; iter++) {
		attempt = 0;
		do
			one_attempt(a, iter, attempt++, &ret, &err);
		while (ret == -1 && err == EINTR);
	}
	flush_handlers(s);
	__atomic_store_n(&s->exited, 1, __ATOMIC_SEQ_CST);
	return NULL;
}

/* One target process; listener < 0 in a shared-listener group. */
int nw_apply_rlimit_nofile(void)
{
	struct rlimit rl = {
		.rlim_cur = nw_opts.rlimit_nofile,
		.rlim_max = nw_opts.rlimit_nofile,
	};

	if (nw_opts.rlimit_nofile < 0)
		return 0;
	if (setrlimit(RLIMIT_NOFILE, &rl)) {
		perror("nw-workload: setrlimit(RLIMIT_NOFILE)");
		return -1;
	}
	return 0;
}

int nw_target_main(int target_idx, int sock)
{
	int nthreads = nw_opts.threads, i, fd;
	struct thread_arg *args;
	pthread_barrier_t barrier;
	pthread_attr_t attr;
	struct nw_ids ids;

	if (install_handlers()) {
		perror("nw-workload: sigaction");
		return NW_EXIT_FAIL;
	}
	if (sock >= 0) {
		fd = nw_install_filter();
		if (fd < 0 || nw_send_fd(sock, fd, target_idx))
			return NW_EXIT_FAIL;
		close(fd);
		close(sock);
	}
	if (nw_thread_ids(&ids))
		return NW_EXIT_FAIL;
	truth_emit("target", "\"pid\":%d,\"ns_pid\":%d,\"target\":%d,\"listener\":%d",
		   ids.pid, ids.ns_pid, target_idx,
		   nw_opts.shared_listener ? 0 : target_idx);
	if (nw_opts.exec_argv)
		return nw_exec_program(target_idx);

	args = calloc(nthreads, sizeof(*args));
	if (!args)
		return NW_EXIT_FAIL;
	pthread_barrier_init(&barrier, NULL, nthreads + 1);
	/*
	 * Small stacks, so that thousands of threads fit: the static TLS
	 * (the handler buffer, 64 KiB) is carved from the same mapping.
	 */
	if (pthread_attr_init(&attr) ||
	    pthread_attr_setstacksize(&attr, nw_opts.thread_stack_kib * 1024)) {
		fprintf(stderr, "nw-workload: pthread_attr_setstacksize failed\n");
		return NW_EXIT_FAIL;
	}
	for (i = 0; i < nthreads; i++) {
		args[i].target = target_idx;
		args[i].index = i;
		args[i].slot = &nw_shared->slots[target_idx * nthreads + i];
		args[i].barrier = &barrier;
		errno = pthread_create(&args[i].thread, &attr, thread_main, &args[i]);
		if (errno) {
			perror("nw-workload: pthread_create");
			exit(NW_EXIT_FAIL);
		}
	}
	pthread_attr_destroy(&attr);
	pthread_barrier_wait(&barrier);
	if (nw_apply_rlimit_nofile())
		exit(NW_EXIT_FAIL);
	pthread_barrier_wait(&barrier);
	for (i = 0; i < nthreads; i++)
		pthread_join(args[i].thread, NULL);
	return NW_EXIT_OK;
}

static int target_child(void *arg)
{
	return nw_target_main((int)(long)arg, -1);
}

/* --shared-listener: one filter, inherited by every target process. */
int nw_target_leader_main(int sock)
{
	int fd, i, rc = NW_EXIT_OK;

	fd = nw_install_filter();
	if (fd < 0 || nw_send_fd(sock, fd, 0))
		return NW_EXIT_FAIL;
	close(fd);
	close(sock);
	for (i = 0; i < nw_opts.targets; i++)
		if (nw_spawn("target", target_child, (void *)(long)i) < 0)
			rc = NW_EXIT_FAIL;
	if (nw_reap_all(NULL))
		rc = NW_EXIT_FAIL;
	return rc;
}
