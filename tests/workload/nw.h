/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nw-workload: a real seccomp user-notification supervisor and real
 * targets, writing the ground truth the notifwait tests compare against.
 */
#ifndef NW_H
#define NW_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#define NW_EXIT_OK		0
#define NW_EXIT_FAIL		1
#define NW_EXIT_USAGE		2
#define NW_EXIT_UNSUPPORTED	3

/* openat(..., mode = NW_ESCAPE_MODE) passes the filter: the target's own /proc reads. */
#define NW_ESCAPE_MODE		0x7eadU
/* --addfd-size: the kernel refuses a size of a page or more (EINVAL) */
#define NW_ADDFD_SIZE_MAX	4095

enum nw_reply {
	NW_REPLY_VALUE,
	NW_REPLY_ERROR,
	NW_REPLY_CONTINUE,
	NW_REPLY_ADDFD,
	NW_REPLY_ADDFD_SEND,
};

/* pid_max is 32768 by default: room for the tracer and the rest */
#define NW_MAX_TARGET_THREADS 16384

struct nw_opts {
	int targets;
	int threads;
	int iterations;
	bool shared_listener;
	const char *syscall_name;
	int nr;
	long handle_us;
	long addfd_gap_us; /* sleep between an addfd and its SEND */
	long addfd_size; /* the ADDFD ioctl's argument size (default 24) */
	long recv_delay_us;
	long thread_stack_kib;		/* target threads' stack size */
	bool hold_recv;			/* first RECV once every thread waits */
	bool handle_spin;		/* --handle-us computes instead of sleeping */
	bool handle_pipe;		/* ... blocks reading a pipe instead */
	long pool;			/* worker threads that handle and reply; 0: none */
	bool killable;
	bool recv_flag;
	enum nw_reply reply;
	long reply_value;
	int reply_error;
	long rlimit_nofile;		/* -1: unchanged */
	int signal;			/* 0: none */
	long signal_after_recv_us;	/* -1: none */
	bool signal_before_recv;
	bool sa_restart;
	long sigurg_period_us;		/* -1: none */
	long sigurg_count;		/* -1: until the targets are done */
	long kill_target_after_recv_us;	/* -1: none */
	long kill_supervisor_after_recv_us;	/* -1: none */
	bool close_listener_after_recv;
	long stop_target_us;		/* -1: none; else SIGSTOP before the reply, SIGCONT N us after */
	bool pidns;
	bool gate;
	bool demo;
	const char *truth;
	const char *run;		/* label copied into every record */
	char **exec_argv;		/* -- PROGRAM ARGS: targets exec it; NULL: built-in loop */
};

/* One target thread, in memory shared by every process of the run. */
struct nw_slot {
	pid_t pid;		/* host tgid */
	pid_t tid;		/* host tid */
	pid_t ns_pid;		/* tgid in the target's own pid namespace */
	pid_t ns_tid;
	int target;		/* target process index */
	int ready;		/* ids filled, handler installed */
	int exited;
	int in_syscall;
	int iter;
	int attempt;
	int sig_iter;		/* last iteration signalled by the supervisor */
};

struct nw_counts {
	long syscalls, syscalls_ok, syscalls_eintr, syscalls_enosys, retries;
	long recvs, recvs_ok, recvs_failed;
	long sends, sends_ok, sends_enoent;
	long addfds, addfds_ok, addfds_enoent, addfds_failed;
	long signals, handlers, handlers_lost, kills, listener_closes;
};

struct nw_shared {
	int nslots;
	int targets_done;
	pid_t supervisor_pid;
	int kill_target_done;
	int close_done;
	struct nw_counts counts;
	struct nw_slot slots[];
};

extern struct nw_opts nw_opts;
extern struct nw_shared *nw_shared;

#define NW_COUNT(field) __atomic_add_fetch(&nw_shared->counts.field, 1, __ATOMIC_RELAXED)

/* options.c */
int nw_parse_options(int argc, char **argv, struct nw_opts *o);
const char *nw_reply_name(enum nw_reply r);

/* clock.c */
uint64_t nw_now(void);
void nw_sleep_until(uint64_t t_ns);

/* truth.c */
int truth_open(const char *path);
void truth_emit(const char *ev, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* filter.c */
int nw_install_filter(void);
int nw_send_fd(int sock, int fd, int idx);
int nw_recv_fd(int sock, int *idx);

/* target.c */
int nw_target_main(int target_idx, int sock);
int nw_target_leader_main(int sock);

/* exec.c */
int nw_exec_program(int target_idx);
/* --rlimit-nofile, before the first intercepted syscall; -1 on failure. */
int nw_apply_rlimit_nofile(void);

/* supervisor.c */
int nw_supervisor_main(int sock, int nlisteners, int helper_pipe);

/* sender.c */
int nw_sigurg_sender_main(void);
int nw_supervisor_killer_main(int helper_pipe);

/* demo.c */
int nw_demo_main(int argc, char **argv);

#endif /* NW_H */
