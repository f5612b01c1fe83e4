// SPDX-License-Identifier: GPL-2.0
/* Command-line options of nw-workload. */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <linux/seccomp.h>
#include <seccomp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nw.h"

static const char usage[] =
"Usage: nw-workload [OPTIONS] [-- PROGRAM [ARGS...]]\n"
"A real seccomp user-notification supervisor and targets (SECCOMP_RET_USER_NOTIF),\n"
"writing the ground truth for the notifwait tests. With PROGRAM, each target\n"
"installs the filter, hands the listener to the supervisor and execs PROGRAM\n"
"instead of making its own syscalls (the filter survives exec).\n"
"\n"
"Targets:\n"
"  --targets N                  target processes (default 1)\n"
"  --threads T                  threads per target (default 1)\n"
"  --iterations K               notifications per thread (default 1)\n"
"  --shared-listener            one listener for all targets (default: one per target)\n"
"  --syscall NAME               intercepted syscall (default getppid; openat for addfd)\n"
"  --pidns                      targets in a new pid namespace (CLONE_NEWPID)\n"
"  --rlimit-nofile N            RLIMIT_NOFILE of the targets (addfd then fails with EMFILE)\n"
"  --sa-restart                 install the target's signal handler with SA_RESTART\n"
"  --thread-stack-kib N         stack size of each target thread in KiB (default 256)\n"
"Supervisor:\n"
"  --handle-us N                sleep between RECV returning and the reply (default 0)\n"
"  --handle-spin                ... computing (a busy loop) instead of sleeping\n"
"  --handle-pipe                ... blocked reading a pipe, in nw_supervisor_blocks_on_pipe(),\n"
"                               until a helper thread writes a byte at the end\n"
"  --pool N                     N worker threads (1..64) handle and reply; the supervisor\n"
"                               thread only RECVs and hands each notification over\n"
"  --recv-delay-us N            sleep before RECV once a notification is pending\n"
"  --hold-recv                  first RECV only once every target thread sleeps in its\n"
"                               syscall: a queue as deep as the threads\n"
"  --killable                   filter flag SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV\n"
"  --recv-flag                  RECV with flags = SECCOMP_USER_NOTIF_FLAG_WAIT_KILLABLE\n"
"                               (exit 3 if the kernel refuses it)\n"
"  --reply KIND                 value|error|continue|addfd|addfd-send (default value)\n"
"  --reply-value V              value of a value reply (default 42)\n"
"  --reply-error ERRNO          errno of an error reply, number or name (default EPERM)\n"
"  --addfd-gap-us N             with --reply addfd: sleep between the addfd and the SEND\n"
"  --addfd-size N               ADDFD with an N-byte zero-padded argument (24..4095)\n"
"Signals and failures:\n"
"  --signal SIG                 signal the supervisor sends to the target thread\n"
"  --signal-after-recv-us N     ... N us after RECV returned (once per iteration)\n"
"  --signal-before-recv         ... before RECV instead (use with --recv-delay-us)\n"
"  --sigurg-period-us N         a sender tgkills SIGURG to every target thread every N us\n"
"  --sigurg-count N             ... and stops after N rounds (default: until the end)\n"
"  --kill-target-after-recv-us N  SIGKILL the target process N us after the first RECV\n"
"  --kill-supervisor-after-recv-us N  a helper SIGKILLs the supervisor N us after the first RECV\n"
"  --close-listener-after-recv  close the listener instead of the first reply\n"
"  --stop-target-us N           SIGSTOP the target just before each reply (it stops on\n"
"                               its way out of the syscall), SIGCONT it N us after the reply\n"
"Output:\n"
"  --truth FILE                 ground truth as JSON Lines (see tests/workload/README.md)\n"
"  --run LABEL                  label written into every truth record (default \"main\")\n"
"  --gate                       print \"supervisor PID\" on stdout, start the targets only\n"
"                               after a line on stdin\n"
"  --demo                       preset for the notifwait demo (~2-3 s)\n"
"  -h, --help                   this text\n"
"\n"
"Examples:\n"
"  nw-workload --killable --signal SIGURG --signal-after-recv-us 5000 --handle-us 20000\n"
"  nw-workload --syscall openat --reply addfd-send --truth truth.jsonl\n"
"  nw-workload --targets 1 --threads 8 --iterations 1000\n"
"  nw-workload --killable --handle-us 20000 -- build/go-target -o go.json\n";

enum {
	OPT_TARGETS = 256, OPT_THREADS, OPT_ITERATIONS, OPT_SHARED, OPT_SYSCALL,
	OPT_HANDLE, OPT_ADDFD_GAP, OPT_RECV_DELAY, OPT_KILLABLE, OPT_RECV_FLAG, OPT_REPLY,
	OPT_REPLY_VALUE, OPT_REPLY_ERROR, OPT_RLIMIT, OPT_SIGNAL, OPT_SIG_AFTER,
	OPT_SIG_BEFORE, OPT_SA_RESTART, OPT_SIGURG, OPT_SIGURG_COUNT, OPT_KILL_TARGET,
	OPT_KILL_SUPERVISOR, OPT_CLOSE, OPT_PIDNS, OPT_TRUTH, OPT_DEMO, OPT_GATE,
	OPT_RUN, OPT_STOP_TARGET, OPT_ADDFD_SIZE, OPT_HOLD_RECV, OPT_HANDLE_SPIN, OPT_STACK,
	OPT_HANDLE_PIPE, OPT_POOL,
};

static const struct option longopts[] = {
	{ "targets", required_argument, NULL, OPT_TARGETS },
	{ "threads", required_argument, NULL, OPT_THREADS },
	{ "iterations", required_argument, NULL, OPT_ITERATIONS },
	{ "shared-listener", no_argument, NULL, OPT_SHARED },
	{ "syscall", required_argument, NULL, OPT_SYSCALL },
	{ "handle-us", required_argument, NULL, OPT_HANDLE },
	{ "addfd-gap-us", required_argument, NULL, OPT_ADDFD_GAP },
	{ "addfd-size", required_argument, NULL, OPT_ADDFD_SIZE },
	{ "hold-recv", no_argument, NULL, OPT_HOLD_RECV },
	{ "handle-spin", no_argument, NULL, OPT_HANDLE_SPIN },
	{ "handle-pipe", no_argument, NULL, OPT_HANDLE_PIPE },
	{ "pool", required_argument, NULL, OPT_POOL },
	{ "thread-stack-kib", required_argument, NULL, OPT_STACK },
	{ "recv-delay-us", required_argument, NULL, OPT_RECV_DELAY },
	{ "killable", no_argument, NULL, OPT_KILLABLE },
	{ "recv-flag", no_argument, NULL, OPT_RECV_FLAG },
	{ "reply", required_argument, NULL, OPT_REPLY },
	{ "reply-value", required_argument, NULL, OPT_REPLY_VALUE },
	{ "reply-error", required_argument, NULL, OPT_REPLY_ERROR },
	{ "rlimit-nofile", required_argument, NULL, OPT_RLIMIT },
	{ "signal", required_argument, NULL, OPT_SIGNAL },
	{ "signal-after-recv-us", required_argument, NULL, OPT_SIG_AFTER },
	{ "signal-before-recv", no_argument, NULL, OPT_SIG_BEFORE },
	{ "sa-restart", no_argument, NULL, OPT_SA_RESTART },
	{ "sigurg-period-us", required_argument, NULL, OPT_SIGURG },
	{ "sigurg-count", required_argument, NULL, OPT_SIGURG_COUNT },
	{ "kill-target-after-recv-us", required_argument, NULL, OPT_KILL_TARGET },
	{ "kill-supervisor-after-recv-us", required_argument, NULL, OPT_KILL_SUPERVISOR },
	{ "close-listener-after-recv", no_argument, NULL, OPT_CLOSE },
	{ "stop-target-us", required_argument, NULL, OPT_STOP_TARGET },
	{ "pidns", no_argument, NULL, OPT_PIDNS },
	{ "truth", required_argument, NULL, OPT_TRUTH },
	{ "run", required_argument, NULL, OPT_RUN },
	{ "gate", no_argument, NULL, OPT_GATE },
	{ "demo", no_argument, NULL, OPT_DEMO },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static const char *const reply_names[] = {
	[NW_REPLY_VALUE] = "value",
	[NW_REPLY_ERROR] = "error",
	[NW_REPLY_CONTINUE] = "continue",
	[NW_REPLY_ADDFD] = "addfd",
	[NW_REPLY_ADDFD_SEND] = "addfd-send",
};

const char *nw_reply_name(enum nw_reply r)
{
	return reply_names[r];
}

static int bad(const char *opt, const char *arg, const char *why)
{
	fprintf(stderr, "nw-workload: invalid %s '%s': %s\n", opt, arg, why);
	return -1;
}

static int parse_long(const char *opt, const char *arg, long min, long max,
		      long *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(arg, &end, 10);
	if (errno || end == arg || *end)
		return bad(opt, arg, "not a number");
	if (v < min || v > max)
		return bad(opt, arg, "out of range");
	*out = v;
	return 0;
}

static int parse_int(const char *opt, const char *arg, int min, int *out)
{
	long v;

	if (parse_long(opt, arg, min, INT_MAX, &v))
		return -1;
	*out = (int)v;
	return 0;
}

static int parse_signal(const char *arg, int *out)
{
	const char *name = arg;
	long v;
	int s;

	if (arg[0] >= '0' && arg[0] <= '9')
		return parse_long("--signal", arg, 1, SIGRTMAX, &v) ? -1 : (*out = (int)v, 0);
	if (!strncasecmp(name, "SIG", 3))
		name += 3;
	for (s = 1; s < SIGRTMIN; s++) {
		const char *abbrev = sigabbrev_np(s);

		if (abbrev && !strcasecmp(abbrev, name)) {
			*out = s;
			return 0;
		}
	}
	return bad("--signal", arg, "unknown signal");
}

static int parse_errno(const char *arg, int *out)
{
	long v;
	int e;

	if (arg[0] >= '0' && arg[0] <= '9') {
		if (parse_long("--reply-error", arg, 1, 4095, &v))
			return -1;
		*out = (int)v;
		return 0;
	}
	for (e = 1; e < 4096; e++) {
		const char *name = strerrorname_np(e);

		if (name && !strcmp(name, arg)) {
			*out = e;
			return 0;
		}
	}
	return bad("--reply-error", arg, "unknown errno name");
}

static int parse_reply(const char *arg, enum nw_reply *out)
{
	unsigned int i;

	for (i = 0; i < sizeof(reply_names) / sizeof(reply_names[0]); i++) {
		if (!strcmp(arg, reply_names[i])) {
			*out = i;
			return 0;
		}
	}
	return bad("--reply", arg, "expected value|error|continue|addfd|addfd-send");
}

static int check(const struct nw_opts *o)
{
	const char *why = NULL;

	if ((o->reply == NW_REPLY_ADDFD || o->reply == NW_REPLY_ADDFD_SEND) &&
	    strcmp(o->syscall_name, "openat"))
		why = "--reply addfd/addfd-send needs --syscall openat";
	else if ((o->signal_after_recv_us >= 0 || o->signal_before_recv) && !o->signal)
		why = "--signal-after-recv-us/--signal-before-recv need --signal";
	else if (o->signal && o->signal_after_recv_us < 0 && !o->signal_before_recv)
		why = "--signal needs --signal-after-recv-us or --signal-before-recv";
	else if (o->signal_before_recv && o->signal_after_recv_us >= 0)
		why = "--signal-before-recv and --signal-after-recv-us exclude each other";
	else if (o->signal == SIGKILL || o->signal == SIGSTOP)
		why = "--signal cannot be SIGKILL/SIGSTOP (see --kill-target-after-recv-us)";
	else if (o->targets * (long)o->threads > NW_MAX_TARGET_THREADS)
		why = "more than 16384 target threads";
	else if (o->sigurg_count >= 0 && o->sigurg_period_us < 0)
		why = "--sigurg-count needs --sigurg-period-us";
	else if (o->handle_pipe && o->handle_spin)
		why = "--handle-pipe and --handle-spin exclude each other";
	else if (o->pool && o->close_listener_after_recv)
		why = "--pool and --close-listener-after-recv exclude each other (the RECV thread owns the listener)";
	else if (o->hold_recv && o->exec_argv)
		why = "--hold-recv needs the built-in target's threads, not PROGRAM";
	else if (o->exec_argv && o->demo)
		why = "--demo runs its own targets: no PROGRAM";
	else if (o->exec_argv && (o->threads > 1 || o->iterations > 1))
		why = "--threads/--iterations drive the built-in target: PROGRAM makes its own syscalls";
	else if (o->exec_argv && (o->signal || o->sigurg_period_us >= 0 ||
				  o->kill_target_after_recv_us >= 0 || o->sa_restart))
		why = "--signal/--sigurg-period-us/--kill-target-after-recv-us/--sa-restart "
		      "need the built-in target's threads, not PROGRAM";
	if (why) {
		fprintf(stderr, "nw-workload: %s\n", why);
		return -1;
	}
	return 0;
}

int nw_parse_options(int argc, char **argv, struct nw_opts *o)
{
	int c, r = 0;

	*o = (struct nw_opts) {
		.targets = 1, .threads = 1, .iterations = 1,
		.syscall_name = "getppid", .reply = NW_REPLY_VALUE,
		.reply_value = 42, .reply_error = 1 /* EPERM */,
		.addfd_size = sizeof(struct seccomp_notif_addfd),
		.rlimit_nofile = -1, .signal_after_recv_us = -1,
		.sigurg_period_us = -1, .sigurg_count = -1, .kill_target_after_recv_us = -1,
		.kill_supervisor_after_recv_us = -1, .stop_target_us = -1,
		.run = "main", .thread_stack_kib = 256,
	};

	opterr = 0;
	while (!r && (c = getopt_long(argc, argv, "+:h", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_TARGETS: r = parse_int("--targets", optarg, 1, &o->targets); break;
		case OPT_THREADS: r = parse_int("--threads", optarg, 1, &o->threads); break;
		case OPT_ITERATIONS: r = parse_int("--iterations", optarg, 1, &o->iterations); break;
		case OPT_SHARED: o->shared_listener = true; break;
		case OPT_SYSCALL: o->syscall_name = optarg; break;
		case OPT_HANDLE: r = parse_long("--handle-us", optarg, 0, LONG_MAX / 1000, &o->handle_us); break;
		case OPT_ADDFD_GAP: r = parse_long("--addfd-gap-us", optarg, 0, LONG_MAX / 1000, &o->addfd_gap_us); break;
		case OPT_ADDFD_SIZE: r = parse_long("--addfd-size", optarg, 24, NW_ADDFD_SIZE_MAX, &o->addfd_size); break;
		case OPT_HOLD_RECV: o->hold_recv = true; break;
		case OPT_HANDLE_SPIN: o->handle_spin = true; break;
		case OPT_HANDLE_PIPE: o->handle_pipe = true; break;
		case OPT_POOL: r = parse_long("--pool", optarg, 1, 64, &o->pool); break;
		case OPT_STACK: r = parse_long("--thread-stack-kib", optarg, 128, 65536, &o->thread_stack_kib); break;
		case OPT_RECV_DELAY: r = parse_long("--recv-delay-us", optarg, 0, LONG_MAX / 1000, &o->recv_delay_us); break;
		case OPT_KILLABLE: o->killable = true; break;
		case OPT_RECV_FLAG: o->recv_flag = true; break;
		case OPT_REPLY: r = parse_reply(optarg, &o->reply); break;
		case OPT_REPLY_VALUE: r = parse_long("--reply-value", optarg, LONG_MIN, LONG_MAX, &o->reply_value); break;
		case OPT_REPLY_ERROR: r = parse_errno(optarg, &o->reply_error); break;
		case OPT_RLIMIT: r = parse_long("--rlimit-nofile", optarg, 0, INT_MAX, &o->rlimit_nofile); break;
		case OPT_SIGNAL: r = parse_signal(optarg, &o->signal); break;
		case OPT_SIG_AFTER: r = parse_long("--signal-after-recv-us", optarg, 0, LONG_MAX / 1000, &o->signal_after_recv_us); break;
		case OPT_SIG_BEFORE: o->signal_before_recv = true; break;
		case OPT_SA_RESTART: o->sa_restart = true; break;
		case OPT_SIGURG_COUNT: r = parse_long("--sigurg-count", optarg, 1, LONG_MAX, &o->sigurg_count); break;
		case OPT_SIGURG: r = parse_long("--sigurg-period-us", optarg, 1, LONG_MAX / 1000, &o->sigurg_period_us); break;
		case OPT_KILL_TARGET: r = parse_long("--kill-target-after-recv-us", optarg, 0, LONG_MAX / 1000, &o->kill_target_after_recv_us); break;
		case OPT_KILL_SUPERVISOR: r = parse_long("--kill-supervisor-after-recv-us", optarg, 0, LONG_MAX / 1000, &o->kill_supervisor_after_recv_us); break;
		case OPT_CLOSE: o->close_listener_after_recv = true; break;
		case OPT_STOP_TARGET: r = parse_long("--stop-target-us", optarg, 0, LONG_MAX / 1000, &o->stop_target_us); break;
		case OPT_PIDNS: o->pidns = true; break;
		case OPT_TRUTH: o->truth = optarg; break;
		case OPT_RUN: o->run = optarg; break;
		case OPT_GATE: o->gate = true; break;
		case OPT_DEMO: o->demo = true; break;
		case 'h': fputs(usage, stdout); exit(NW_EXIT_OK);
		case ':':
			fprintf(stderr, "nw-workload: option '%s' needs an argument\n", argv[optind - 1]);
			return -1;
		default:
			fprintf(stderr, "nw-workload: unknown option '%s' (see --help)\n", argv[optind - 1]);
			return -1;
		}
	}
	if (r)
		return -1;
	/* "+": options stop at PROGRAM, whose own options stay its own */
	if (optind < argc)
		o->exec_argv = &argv[optind];
	o->nr = seccomp_syscall_resolve_name(o->syscall_name);
	if (o->nr == __NR_SCMP_ERROR) {
		fprintf(stderr, "nw-workload: unknown syscall '%s'\n", o->syscall_name);
		return -1;
	}
	return check(o);
}
