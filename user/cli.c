// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "prom_http.h"
#include "syscalls.h"

/*
 * getopt_long rather than argp: argp's error path prints a second
 * "Try --help" line, and errors here are one line each.
 */
static const char usage[] =
	"Usage: notifwait [OPTIONS] [-- COMMAND [ARGS...]]\n"
	"Trace seccomp user-notification waits: when each notification was\n"
	"created, received, answered; when the target's wait became killable;\n"
	"the signals that arrived meanwhile and how long they stayed pending.\n"
	"\n"
	"  -p, --pid PID          trace only targets of this process (tgid)\n"
	"  -s, --supervisor PID   trace only notifications this supervisor receives\n"
	"      --syscall NAME     trace only this syscall (name or number)\n"
	"  -j, --json             JSON Lines, one record per notification\n"
	"  -H, --hist             log2 histograms of queue, handle, wake, total\n"
	"                         and signal pending times\n"
	"  -m, --milliseconds     histograms in msecs (default usecs)\n"
	"  -i, --interval SECS    print histograms every SECS (also 250ms, 1m)\n"
	"  -d, --duration SECS    stop after SECS\n"
	"  -o, --output FILE      write the report to FILE instead of stdout\n"
	"      --summary          tables per supervisor and per syscall at exit\n"
	"      --backend NAME     auto (default: the most precise that loads),\n"
	"                         fentry, kprobe or tracepoint\n"
	"      --max-notifs N     notifications followed at once (default 10240)\n"
	"      --ringbuf-size SIZE  ring buffer for records (default 4M; a power\n"
	"                         of 2 from 4K to 1G; lost records: make it larger)\n"
	"      --prom-listen ADDR:PORT  serve Prometheus metrics at /metrics\n"
	"                         (:PORT is 127.0.0.1:PORT, 0.0.0.0:PORT binds all)\n"
	"      --prom-file PATH   node_exporter textfile, rewritten every -i SECS\n"
	"                         (default 5) and at exit\n"
	"      --prom-linger SECS keep serving /metrics SECS after the report\n"
	"      --check-bound      check that each deferred signal was pending no longer\n"
	"                         than reply-sent + wake + slack; exit 0 held, 1 violated,\n"
	"                         2 cannot check (nothing deferred, or events lost)\n"
	"      --slack DURATION   allowance for the signal's own delivery (default 50us)\n"
	"      --budget DURATION  with --check-bound: also no signal pending longer\n"
	"                         than DURATION (finding signal_delay_over_budget)\n"
	"      --restart-threshold N  a syscall restarted N times is a restart_storm\n"
	"                         finding (default 10; 1..1000000)\n"
	"      --timeline FILE    draw the notifications into FILE.svg or FILE.html\n"
	"      --timeline-slowest N  only the N slowest (default: all, up to 2000)\n"
	"      --timeline-window START:END  only seconds START to END after start\n"
	"      --supervisor-stacks FILE  write the stacks supervisor threads blocked\n"
	"                         in while holding a notification, folded, to FILE\n"
	"      --record FILE      also write the raw facts to FILE, for --replay\n"
	"      --replay FILE      report a recording instead of tracing: no root,\n"
	"                         no BPF; takes the report options and -s\n"
	"  -u, --user USER        run COMMAND as USER (default: the sudo user)\n"
	"      --as-root          run COMMAND as root even under sudo\n"
	"  -v, --verbose          libbpf debug output\n"
	"  -h, --help             this help\n"
	"  -V, --version          print the version\n"
	"\n"
	"With -- COMMAND, traces COMMAND and its descendants (as targets or\n"
	"supervisors) and exits with COMMAND's status when it ends (with\n"
	"--check-bound: with the verdict's 0, 1 or 2). SIGINT, SIGTERM, SIGHUP or\n"
	"-d's end send COMMAND that signal (SIGTERM for -d), SIGKILL 5 s later or\n"
	"at a second signal. COMMAND never inherits notifwait's capabilities.\n"
	"\n"
	"Examples:\n"
	"  notifwait                         # every notification, one line each\n"
	"  notifwait -j -o waits.jsonl -d 10 # JSON Lines for 10 seconds\n"
	"  notifwait -H -i 5 -s 1234         # histograms of supervisor 1234\n"
	"  notifwait --summary -- ./sandbox  # trace a command, tables at exit\n";

enum { OPT_PROM_LISTEN = 512, OPT_PROM_FILE, OPT_PROM_LINGER };
enum {
	OPT_CHECK_BOUND = 768, OPT_SLACK, OPT_BUDGET, OPT_TIMELINE,
	OPT_TIMELINE_SLOWEST, OPT_TIMELINE_WINDOW,
};
enum { OPT_SYSCALL = 256, OPT_SUMMARY, OPT_BACKEND, OPT_MAX_NOTIFS };
enum { OPT_AS_ROOT = 1100 };
enum { OPT_RECORD = 1200, OPT_REPLAY };
enum { OPT_RINGBUF_SIZE = 1024 };
enum { OPT_RESTART_THRESHOLD = 1300 };
enum { OPT_SUPERVISOR_STACKS = 1400 };

static const struct option long_options[] = {
	{ "pid", required_argument, NULL, 'p' },
	{ "supervisor", required_argument, NULL, 's' },
	{ "syscall", required_argument, NULL, OPT_SYSCALL },
	{ "json", no_argument, NULL, 'j' },
	{ "hist", no_argument, NULL, 'H' },
	{ "milliseconds", no_argument, NULL, 'm' },
	{ "interval", required_argument, NULL, 'i' },
	{ "duration", required_argument, NULL, 'd' },
	{ "output", required_argument, NULL, 'o' },
	{ "summary", no_argument, NULL, OPT_SUMMARY },
	{ "backend", required_argument, NULL, OPT_BACKEND },
	{ "max-notifs", required_argument, NULL, OPT_MAX_NOTIFS },
	{ "ringbuf-size", required_argument, NULL, OPT_RINGBUF_SIZE },
	{ "prom-listen", required_argument, NULL, OPT_PROM_LISTEN },
	{ "prom-file", required_argument, NULL, OPT_PROM_FILE },
	{ "prom-linger", required_argument, NULL, OPT_PROM_LINGER },
	{ "check-bound", no_argument, NULL, OPT_CHECK_BOUND },
	{ "slack", required_argument, NULL, OPT_SLACK },
	{ "budget", required_argument, NULL, OPT_BUDGET },
	{ "restart-threshold", required_argument, NULL, OPT_RESTART_THRESHOLD },
	{ "timeline", required_argument, NULL, OPT_TIMELINE },
	{ "timeline-slowest", required_argument, NULL, OPT_TIMELINE_SLOWEST },
	{ "timeline-window", required_argument, NULL, OPT_TIMELINE_WINDOW },
	{ "user", required_argument, NULL, 'u' },
	{ "as-root", no_argument, NULL, OPT_AS_ROOT },
	{ "supervisor-stacks", required_argument, NULL, OPT_SUPERVISOR_STACKS },
	{ "record", required_argument, NULL, OPT_RECORD },
	{ "replay", required_argument, NULL, OPT_REPLAY },
	{ "verbose", no_argument, NULL, 'v' },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{},
};

int parse_duration(const char *s, double *seconds)
{
	double v, scale = 1;
	char *end;

	if (!s || !*s)
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s)
		return -EINVAL;
	if (!strcmp(end, "ms"))
		scale = 1e-3;
	else if (!strcmp(end, "us"))
		scale = 1e-6;
	else if (!strcmp(end, "m"))
		scale = 60;
	else if (*end && strcmp(end, "s"))
		return -EINVAL;
	v *= scale;
	if (!isfinite(v) || v <= 0 || v > 1e9)
		return -EINVAL;
	*seconds = v;
	return 0;
}

int parse_pid(const char *s, pid_t *pid)
{
	char *end;
	long v;

	if (!s || !*s)
		return -EINVAL;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || v <= 0 || v > INT_MAX)
		return -EINVAL;
	*pid = (pid_t)v;
	return 0;
}

int parse_ringbuf_size(const char *s, unsigned int *bytes)
{
	unsigned long long v;
	char *end;

	if (!s || *s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s || v > 1ULL << 30) /* no shift can wrap */
		return -EINVAL;
	if (!strcmp(end, "K") || !strcmp(end, "k"))
		v <<= 10;
	else if (!strcmp(end, "M") || !strcmp(end, "m"))
		v <<= 20;
	else if (!strcmp(end, "G") || !strcmp(end, "g"))
		v <<= 30;
	else if (*end)
		return -EINVAL;
	/* the kernel wants a power-of-2 multiple of the page size */
	if (v < 4096 || v > 1ULL << 30 || (v & (v - 1)))
		return -EINVAL;
	*bytes = (unsigned int)v;
	return 0;
}

static enum cli_result fail(const char *fmt, const char *arg)
{
	fprintf(stderr, "notifwait: ");
	fprintf(stderr, fmt, arg);
	fputc('\n', stderr);
	return CLI_ERROR;
}

/* A duration that may be 0 ("0", "0us"): the slack. */
static int parse_duration_or_zero(const char *s, double *seconds)
{
	char *end;

	if (s && *s && strtod(s, &end) == 0 && end != s &&
	    (!*end || !strcmp(end, "s") || !strcmp(end, "ms") ||
	     !strcmp(end, "us"))) {
		*seconds = 0;
		return 0;
	}
	return parse_duration(s, seconds);
}

/* START:END in seconds since tracing began, 0 <= START < END. */
static int parse_window(const char *s, double *from, double *to)
{
	char *end;

	errno = 0;
	*from = strtod(s, &end);
	if (errno || end == s || *end != ':')
		return -EINVAL;
	s = end + 1;
	*to = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(*from) || !isfinite(*to) ||
	    *from < 0 || *to <= *from || *to > 1e9)
		return -EINVAL;
	return 0;
}

static bool timeline_path_ok(const char *path)
{
	size_t n = strlen(path);

	return (n > 4 && !strcmp(path + n - 4, ".svg")) ||
	       (n > 5 && !strcmp(path + n - 5, ".html")) ||
	       (n > 4 && !strcmp(path + n - 4, ".htm"));
}

static enum cli_result parse_bound_timeline(int opt, const char *arg,
					    struct env *env)
{
	char *end;
	long n;

	switch (opt) {
	case OPT_CHECK_BOUND:
		env->check_bound = true;
		break;
	case OPT_SLACK:
		if (parse_duration_or_zero(arg, &env->bound_slack_s))
			return fail("invalid --slack '%s': want a duration >= 0 (50us, 1ms)",
				    arg);
		break;
	case OPT_BUDGET:
		if (parse_duration(arg, &env->bound_budget_s))
			return fail("invalid --budget '%s': want a positive duration (10ms, 1s)",
				    arg);
		break;
	case OPT_TIMELINE:
		if (!timeline_path_ok(arg))
			return fail("invalid --timeline '%s': want FILE.svg or FILE.html",
				    arg);
		env->timeline = arg;
		break;
	case OPT_TIMELINE_SLOWEST:
		errno = 0;
		n = strtol(arg, &end, 10);
		if (errno || end == arg || *end || n < 1 || n > 1000000)
			return fail("invalid --timeline-slowest '%s' (1..1000000)",
				    arg);
		env->timeline_slowest = (unsigned int)n;
		break;
	case OPT_TIMELINE_WINDOW:
		if (parse_window(arg, &env->timeline_from_s,
				 &env->timeline_to_s))
			return fail("invalid --timeline-window '%s': want START:END in seconds since start, START < END",
				    arg);
		env->timeline_window = true;
		break;
	}
	return CLI_OK;
}

static enum cli_result parse_one(int opt, const char *arg, struct env *env,
				 const char *bad)
{
	long n;
	char *end;

	switch (opt) {
	case 'p':
		if (parse_pid(arg, &env->target_pid))
			return fail("invalid pid for -p: '%s'", arg);
		break;
	case 's':
		if (parse_pid(arg, &env->supervisor_pid))
			return fail("invalid pid for -s: '%s'", arg);
		break;
	case OPT_SYSCALL:
		env->syscall_nr = nw_syscall_number(arg);
		if (env->syscall_nr < 0)
			return fail("unknown syscall '%s' (no such name or number on this architecture)",
				    arg);
		break;
	case 'j':
		env->json = true;
		break;
	case 'H':
		env->hist = true;
		break;
	case 'm':
		env->msecs = true;
		break;
	case 'i':
		if (parse_duration(arg, &env->interval_s))
			return fail("invalid interval '%s': want a positive number of seconds (or 250ms, 1m)",
				    arg);
		/* records are read every 50ms: a shorter interval cannot hold */
		if (env->interval_s < NW_MIN_INTERVAL_S)
			return fail("invalid interval '%s': the shortest is 50ms (the poll period)",
				    arg);
		break;
	case 'd':
		if (parse_duration(arg, &env->duration_s))
			return fail("invalid duration '%s': want a positive number of seconds (or 250ms, 1m)",
				    arg);
		break;
	case 'o':
		env->output = arg;
		break;
	case OPT_SUMMARY:
		env->summary = true;
		break;
	case OPT_BACKEND:
		if (strcmp(arg, "auto") && strcmp(arg, "fentry") &&
		    strcmp(arg, "kprobe") && strcmp(arg, "tracepoint"))
			return fail("unknown backend '%s' (auto, fentry, kprobe, tracepoint)",
				    arg);
		env->backend = arg;
		break;
	case OPT_MAX_NOTIFS:
		errno = 0;
		n = strtol(arg, &end, 10);
		if (errno || *end || n < 16 || n > 1 << 22)
			return fail("invalid --max-notifs '%s' (16..4194304)",
				    arg);
		env->max_knotifs = (unsigned int)n;
		env->max_notifs_given = true;
		break;
	case OPT_RESTART_THRESHOLD:
		errno = 0;
		n = strtol(arg, &end, 10);
		if (errno || end == arg || *end || n < 1 || n > 1000000)
			return fail("invalid --restart-threshold '%s' (1..1000000)",
				    arg);
		env->restart_threshold = (unsigned int)n;
		break;
	case OPT_RINGBUF_SIZE:
		if (parse_ringbuf_size(arg, &env->ringbuf_bytes))
			return fail("invalid --ringbuf-size '%s': want a power of 2 from 4K to 1G (64K, 4M)",
				    arg);
		env->ringbuf_given = true;
		break;
	case OPT_PROM_LISTEN: {
		struct prom_addr addr;

		if (prom_listen_parse(arg, &addr))
			return fail("invalid --prom-listen '%s': want ADDR:PORT (:9464, 127.0.0.1:9464, 0.0.0.0:9464, [::1]:9464)",
				    arg);
		env->prom_listen = arg;
		break;
	}
	case OPT_PROM_FILE:
		if (!*arg)
			return fail("%s", "--prom-file needs a path");
		env->prom_file = arg;
		break;
	case OPT_PROM_LINGER:
		if (parse_duration(arg, &env->prom_linger_s))
			return fail("invalid --prom-linger '%s': want a positive number of seconds (or 250ms, 1m)",
				    arg);
		break;
	case OPT_CHECK_BOUND:
	case OPT_SLACK:
	case OPT_BUDGET:
	case OPT_TIMELINE:
	case OPT_TIMELINE_SLOWEST:
	case OPT_TIMELINE_WINDOW:
		return parse_bound_timeline(opt, arg, env);
	case 'u':
		if (!*arg)
			return fail("%s", "-u needs a user name or uid");
		env->run_as_user = arg;
		break;
	case OPT_AS_ROOT:
		env->as_root = true;
		break;
	case OPT_SUPERVISOR_STACKS:
		if (!*arg)
			return fail("%s", "--supervisor-stacks needs a path");
		env->supervisor_stacks = arg;
		break;
	case OPT_RECORD:
		if (!*arg)
			return fail("%s", "--record needs a path");
		env->record = arg;
		break;
	case OPT_REPLAY:
		if (!*arg)
			return fail("%s", "--replay needs a path");
		env->replay = arg;
		break;
	case 'v':
		env->verbose = true;
		break;
	case 'h':
		fputs(usage, stdout);
		return CLI_EXIT_OK;
	case 'V':
		printf("notifwait %s\n", NW_VERSION);
		return CLI_EXIT_OK;
	case ':':
		return fail("option '%s' needs an argument (see --help)", bad);
	default:
		return fail("unknown option '%s' (see --help)", bad);
	}
	return CLI_OK;
}

static enum cli_result cli_check_bound_timeline(struct env *env)
{
	if (!env->check_bound && (env->bound_budget_s ||
				  env->bound_slack_s >= 0))
		return fail("%s", "--budget and --slack need --check-bound");
	if (env->bound_slack_s < 0)
		env->bound_slack_s = 50e-6;
	if (!env->timeline && (env->timeline_slowest || env->timeline_window))
		return fail("%s", "--timeline-slowest and --timeline-window need --timeline");
	return CLI_OK;
}

/* A recording is already traced: only the report options apply. */
static enum cli_result cli_check_replay(const struct env *env)
{
	const char *bad = NULL;

	if (!env->replay)
		return CLI_OK;
	if (env->target_pid)
		bad = "-p";
	else if (env->syscall_nr >= 0)
		bad = "--syscall";
	else if (strcmp(env->backend, "auto"))
		bad = "--backend";
	else if (env->duration_s)
		bad = "-d";
	else if (env->ringbuf_given)
		bad = "--ringbuf-size";
	else if (env->record)
		bad = "--record";
	else if (env->prom_listen)
		bad = "--prom-listen";
	else if (env->command)
		bad = "a COMMAND";
	if (bad)
		return fail("--replay reports what was recorded: %s does not apply (it chose what was traced)",
			    bad);
	if (env->supervisor_stacks)
		return fail("%s", "--replay cannot write --supervisor-stacks: a recording holds stack ids, the stacks stayed in the live run's BPF map");
	return CLI_OK;
}

enum cli_result cli_parse(int argc, char **argv, struct env *env)
{
	const char *last_arg = NULL; /* the last option's argument */
	enum cli_result r;
	int opt;

	memset(env, 0, sizeof(*env));
	env->syscall_nr = -1;
	env->backend = "auto";
	env->max_knotifs = 10240;
	env->bound_slack_s = -1; /* not given: 50us */
	opterr = 0;
	/* '+': stop at the first non-option so COMMAND keeps its options */
	while ((opt = getopt_long(argc, argv, "+:p:s:jHmi:d:o:u:vhV", long_options,
				  NULL)) != -1) {
		const char *given = argv[optind - 1];
		char bad[64];

		if ((opt == '?' || opt == ':') && !strncmp(given, "--", 2)) {
			/* a long option: named as given, without its =VALUE */
			snprintf(bad, sizeof(bad), "%.*s",
				 (int)strcspn(given, "="), given);
			if (opt == '?' && optopt && strchr(given, '='))
				return fail("option '%s' doesn't allow an argument (see --help)",
					    bad);
		} else if ((opt == '?' || opt == ':') && optopt) {
			snprintf(bad, sizeof(bad), "-%c", optopt);
		} else {
			snprintf(bad, sizeof(bad), "%s", given);
		}
		last_arg = optarg;
		r = parse_one(opt, optarg, env, bad);
		if (r != CLI_OK)
			return r;
	}
	/* "--" ending the line (not an option's argument): no COMMAND */
	if (optind == argc && optind > 1 && !strcmp(argv[optind - 1], "--") &&
	    last_arg != argv[optind - 1])
		return fail("%s", "-- needs a COMMAND after it (see --help)");
	if (optind < argc)
		env->command = &argv[optind];
	if (env->command && strcmp(argv[optind - 1], "--"))
		return fail("unexpected argument '%s': put a COMMAND after --",
			    argv[optind]);
	if (env->interval_s && !env->hist && !env->prom_file &&
	    !env->prom_listen)
		return fail("%s", "-i needs -H, --prom-file or --prom-listen (what is written at intervals)");
	if (env->prom_linger_s && !env->prom_listen)
		return fail("%s", "--prom-linger needs --prom-listen");
	if (env->msecs && !env->hist)
		return fail("%s", "-m needs -H");
	if ((env->run_as_user || env->as_root) && !env->command)
		return fail("%s", "-u and --as-root need -- COMMAND");
	if (env->run_as_user && env->as_root)
		return fail("%s", "-u and --as-root exclude each other");
	r = cli_check_replay(env);
	if (r != CLI_OK)
		return r;
	return cli_check_bound_timeline(env);
}
