/* SPDX-License-Identifier: GPL-2.0 */
/* Command line: options into struct env, with one-line errors. */
#ifndef NW_CLI_H
#define NW_CLI_H

#include <stdbool.h>
#include <sys/types.h>

#define NW_VERSION "0.1"
/* The reporter reads records every 50ms: the shortest -i. */
#define NW_POLL_MS 50
#define NW_MIN_INTERVAL_S (NW_POLL_MS / 1000.0)

struct env {
	pid_t target_pid; /* -p: target tgid */
	pid_t supervisor_pid; /* -s: supervisor tgid */
	int syscall_nr; /* --syscall, -1 for all */
	bool json;
	bool hist;
	bool msecs;
	bool summary;
	bool verbose;
	double interval_s; /* -i, 0 when not given */
	double duration_s; /* -d, 0 when not given */
	const char *output; /* -o */
	const char *backend; /* --backend */
	unsigned int max_knotifs;
	unsigned int ringbuf_bytes; /* --ringbuf-size, 0: the object's 4 MiB */
	const char *prom_listen; /* --prom-listen ADDR:PORT */
	const char *prom_file; /* --prom-file PATH */
	double prom_linger_s; /* --prom-linger, 0 when not given */
	bool check_bound; /* --check-bound */
	double bound_slack_s; /* --slack (default 50us) */
	double bound_budget_s; /* --budget, 0 when not given */
	unsigned int restart_threshold; /* --restart-threshold, 0: 10 */
	const char *timeline; /* --timeline FILE.svg|FILE.html */
	unsigned int timeline_slowest; /* --timeline-slowest, 0: the cap */
	bool timeline_window; /* --timeline-window START:END given */
	double timeline_from_s, timeline_to_s; /* seconds since start */
	char **command; /* after --, NULL-terminated, or NULL */
	const char *run_as_user; /* -u USER: COMMAND's user */
	bool as_root; /* --as-root: COMMAND stays root under sudo */
	const char *record; /* --record FILE: the facts, for --replay */
	const char *supervisor_stacks; /* --supervisor-stacks FILE: folded */
	const char *replay; /* --replay FILE: report a recording, no tracing */
	bool ringbuf_given, max_notifs_given; /* for --replay's checks */
};

enum cli_result {
	CLI_OK,
	CLI_EXIT_OK, /* --help or --version printed */
	CLI_ERROR, /* one line printed on stderr */
};

enum cli_result cli_parse(int argc, char **argv, struct env *env);
/* "1.5", "250ms", "2s", "1m": > 0 and finite. Returns 0 or -EINVAL. */
int parse_duration(const char *s, double *seconds);
/* A positive decimal pid. Returns 0 or -EINVAL. */
int parse_pid(const char *s, pid_t *pid);
/*
 * A ring buffer size: bytes, or with K, M or G (powers of 1024); a power
 * of 2 from 4K (a page) to 1G. Returns 0 or -EINVAL.
 */
int parse_ringbuf_size(const char *s, unsigned int *bytes);

#endif /* NW_CLI_H */
