// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "syscalls.h"

#define NW_VERSION "0.1"

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
	"  -v, --verbose          libbpf debug output\n"
	"  -h, --help             this help\n"
	"  -V, --version          print the version\n"
	"\n"
	"With -- COMMAND, traces COMMAND and its descendants (as targets or\n"
	"supervisors) and exits with COMMAND's status when it ends.\n"
	"\n"
	"Examples:\n"
	"  notifwait                         # every notification, one line each\n"
	"  notifwait -j -o waits.jsonl -d 10 # JSON Lines for 10 seconds\n"
	"  notifwait -H -i 5 -s 1234         # histograms of supervisor 1234\n"
	"  notifwait --summary -- ./sandbox  # trace a command, tables at exit\n";

enum { OPT_SYSCALL = 256, OPT_SUMMARY, OPT_BACKEND, OPT_MAX_NOTIFS };

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

static enum cli_result fail(const char *fmt, const char *arg)
{
	fprintf(stderr, "notifwait: ");
	fprintf(stderr, fmt, arg);
	fputc('\n', stderr);
	return CLI_ERROR;
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
			return fail("unknown syscall '%s'", arg);
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

enum cli_result cli_parse(int argc, char **argv, struct env *env)
{
	enum cli_result r;
	int opt;

	memset(env, 0, sizeof(*env));
	env->syscall_nr = -1;
	env->backend = "auto";
	env->max_knotifs = 10240;
	opterr = 0;
	/* '+': stop at the first non-option so COMMAND keeps its options */
	while ((opt = getopt_long(argc, argv, "+:p:s:jHmi:d:o:vhV", long_options,
				  NULL)) != -1) {
		char bad[64];

		if ((opt == '?' || opt == ':') && optopt)
			snprintf(bad, sizeof(bad), "-%c", optopt);
		else
			snprintf(bad, sizeof(bad), "%s", argv[optind - 1]);
		r = parse_one(opt, optarg, env, bad);
		if (r != CLI_OK)
			return r;
	}
	if (optind < argc)
		env->command = &argv[optind];
	if (env->command && strcmp(argv[optind - 1], "--"))
		return fail("unexpected argument '%s': put a COMMAND after --",
			    argv[optind]);
	if (env->interval_s && !env->hist)
		return fail("%s", "-i needs -H (histograms are what is printed at intervals)");
	if (env->msecs && !env->hist)
		return fail("%s", "-m needs -H");
	return CLI_OK;
}
