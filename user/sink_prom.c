// SPDX-License-Identifier: GPL-2.0
/*
 * --prom-listen / --prom-file: finished notifications into the metric
 * registry. The tracer's thread updates it, the HTTP thread renders it: one
 * mutex around both. Labels are low-cardinality only (comms, syscalls,
 * outcomes, effects, errno names): never a pid or a notification id.
 */
#define _GNU_SOURCE /* open_memstream */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "bound_check.h"
#include "cli.h"
#include "errnames.h"
#include "escape.h"
#include "findings.h"
#include "metrics.h"
#include "prom_http.h"
#include "prom_textfile.h"
#include "sink_prom.h"
#include "syscalls.h"

#define NOT_RECEIVED "(not received)"

enum {
	F_NOTIFS,
	F_QUEUE,
	F_HANDLE,
	F_WAKE,
	F_TOTAL,
	F_PENDING,
	F_SIGNALS,
	F_ADDFD,
	F_REPLY_FAILED,
	F_LOST,
	F_DROPPED,
	F_BOUND,
	F_FINDINGS,
	F_HANDLE_STATE,
	F_QUEUE_STATE,
	F_BUILD,
	F_BACKEND,
	F_COUNT,
};

static const struct {
	const char *name, *help;
	enum metric_type type;
	const char *labels[METRICS_MAX_LABELS + 1];
} families[F_COUNT] = {
	[F_NOTIFS] = { "notifwait_notifications",
		       "Finished seccomp user notifications by supervisor comm, syscall and outcome.",
		       METRIC_COUNTER,
		       { "supervisor", "syscall", "outcome" } },
	[F_QUEUE] = { "notifwait_queue_seconds",
		      "Time from the notification to the supervisor's RECV.",
		      METRIC_HISTOGRAM,
		      { "supervisor", "syscall" } },
	[F_HANDLE] = { "notifwait_handle_seconds",
		       "Time from RECV to the reply that reached the target.",
		       METRIC_HISTOGRAM,
		       { "supervisor", "syscall" } },
	[F_WAKE] = { "notifwait_wake_seconds",
		     "Time from the reply to the target's return from the syscall.",
		     METRIC_HISTOGRAM,
		     { "supervisor", "syscall" } },
	[F_TOTAL] = { "notifwait_total_seconds",
		      "Time from the notification to the target's return.",
		      METRIC_HISTOGRAM,
		      { "supervisor", "syscall" } },
	[F_PENDING] = { "notifwait_signal_pending_seconds",
			"Time a signal sent to a waiting target stayed pending, by effect.",
			METRIC_HISTOGRAM,
			{ "effect" } },
	[F_SIGNALS] = { "notifwait_signals",
			"Signals sent to waiting targets, by effect (deferred, interrupted, ...).",
			METRIC_COUNTER,
			{ "effect" } },
	[F_ADDFD] = { "notifwait_addfd",
		      "SECCOMP_IOCTL_NOTIF_ADDFD calls by result (ok or the errno name).",
		      METRIC_COUNTER,
		      { "result" } },
	[F_REPLY_FAILED] = { "notifwait_reply_failed",
			     "Supervisor replies that failed (target gone), by errno name.",
			     METRIC_COUNTER,
			     { "error" } },
	[F_LOST] = { "notifwait_lost_events",
		     "Records lost because the ring buffer was full.",
		     METRIC_COUNTER,
		     { NULL } },
	[F_DROPPED] = { "notifwait_dropped",
			"Notifications (map full), signals (too many in one wait), probe runs (the kernel skipped a program already active on the CPU), waits whose notification could not be identified (unidentified), not followed; handle splits not given because a supervisor switch was missing (switch_gaps).",
			METRIC_COUNTER,
			{ "what" } },
	[F_HANDLE_STATE] = { "notifwait_handle_state_seconds",
			     "Handle time of the supervisor thread that received and replied, by state (running, runnable, blocked).",
			     METRIC_COUNTER,
			     { "supervisor", "state" } },
	[F_QUEUE_STATE] = { "notifwait_queue_state_seconds",
			    "Queue time by what the listener's supervisor threads did (supervisor_runnable: waiting to receive, supervisor_busy: handling another, supervisor_blocked: asleep elsewhere, no_receiver, unknown).",
			    METRIC_COUNTER,
			    { "supervisor", "state" } },
	[F_FINDINGS] = { "notifwait_findings",
			 "Conditions found in the notifications, by kind (restart_storm, lost_reply, ...).",
			 METRIC_COUNTER,
			 { "kind" } },
	[F_BOUND] = { "notifwait_bound_violations",
		      "Deferred signals that broke the --check-bound limit, by kind (bound, budget).",
		      METRIC_COUNTER,
		      { "kind" } },
	[F_BUILD] = { "notifwait_build_info",
		      "notifwait's version; the value is always 1.",
		      METRIC_GAUGE,
		      { "version" } },
	[F_BACKEND] = { "notifwait_backend_info",
			"The tracing backend in use; the value is always 1.",
			METRIC_GAUGE,
			{ "backend" } },
};

struct prom_state {
	pthread_mutex_t lock;
	struct metrics m;
	struct metric_family *f[F_COUNT];
	struct prom_options opt;
	struct prom_http *http;
	__u64 next_write_ns;
	bool write_warned; /* one line per streak of textfile failures */
	unsigned long long failed_writes; /* after start-up: exit status 1 */
	bool backend_known;
	bool finished;
};

static __u64 mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* A counter of the series with these labels; a lost update on ENOMEM. */
static void inc(struct prom_state *st, int fam, const char *const *values,
		unsigned long long n)
{
	struct metric_series *s = metrics_series(st->f[fam], values);

	if (s)
		s->value += n;
}

static void set(struct prom_state *st, int fam, const char *const *values,
		unsigned long long v)
{
	struct metric_series *s = metrics_series(st->f[fam], values);

	if (s)
		s->value = v;
}

static void observe(struct prom_state *st, int fam, const char *const *values,
		    __u64 from, __u64 to)
{
	struct metric_series *s;
	__u64 d;

	if (!nw_span(from, to, &d))
		return;
	s = metrics_series(st->f[fam], values);
	if (s)
		metrics_observe_ns(s, d);
}

static void prom_knotif(struct sink *s, const struct knotif *k)
{
	struct prom_state *st = s->priv;
	const struct nw_knotif_event *e = &k->ev;
	__u64 t_reply = k->reply_reached ? e->t_reply_ns : 0;
	__u64 t_return = k->pending ? 0 : e->t_return_ns;
	char comm[NW_TEXT_ESCAPED_SIZE(NW_COMM_LEN)];
	/*
	 * Series are keyed by the exported value: the escaped comm, which
	 * never starts with '(' like the built-in values.
	 */
	const char *sup = e->supervisor_tgid ?
				  nw_label_escape(comm, sizeof(comm),
						  e->supervisor_comm,
						  NW_COMM_LEN) :
				  NOT_RECEIVED;
	const char *lv[3] = { sup, nw_syscall_name(e->nr),
			      nw_outcome_name(k->outcome) };
	unsigned int i;

	pthread_mutex_lock(&st->lock);
	inc(st, F_NOTIFS, lv, 1);
	if (k->reply_reached && k->handle_split.known) {
		const char *run[2] = { sup, "running" };
		const char *wait[2] = { sup, "runnable" };
		const char *blocked[2] = { sup, "blocked" };

		inc(st, F_HANDLE_STATE, run, k->handle_split.running_ns);
		inc(st, F_HANDLE_STATE, wait, k->handle_split.runnable_ns);
		inc(st, F_HANDLE_STATE, blocked, k->handle_split.blocked_ns);
	}
	if (k->have_queue_split)
		for (i = 0; i < NW_QUEUE_STATES; i++) {
			const char *qs[2] = { sup, nw_queue_state_name(i) };

			inc(st, F_QUEUE_STATE, qs, k->queue_split[i]);
		}
	observe(st, F_QUEUE, lv, e->t_notify_ns, e->t_recv_ns);
	observe(st, F_HANDLE, lv, e->t_recv_ns, t_reply);
	observe(st, F_WAKE, lv, t_reply, t_return);
	observe(st, F_TOTAL, lv, e->t_notify_ns, t_return);
	for (i = 0; i < e->nsignals && i < NW_MAX_SIGNALS; i++) {
		const char *effect[1] = { nw_effect_name(k->effect[i]) };

		inc(st, F_SIGNALS, effect, 1);
		observe(st, F_PENDING, effect, e->signals[i].t_sent_ns,
			k->t_delivered_ns[i]);
	}
	for (i = 0; i < k->naddfd; i++) {
		const char *result[1] = {
			k->addfd[i].ret >= 0 ? "ok" :
					       nw_errno_name(k->addfd[i].ret)
		};

		inc(st, F_ADDFD, result, 1);
	}
	pthread_mutex_unlock(&st->lock);
}

static void prom_reply_failed(struct sink *s,
			      const struct nw_reply_failed_event *r)
{
	struct prom_state *st = s->priv;
	const char *error[1] = { nw_errno_name(r->ret) };

	pthread_mutex_lock(&st->lock);
	inc(st, F_REPLY_FAILED, error, 1);
	pthread_mutex_unlock(&st->lock);
}

static char *render(void *ctx, enum metrics_format fmt, size_t *len)
{
	struct prom_state *st = ctx;
	char *buf = NULL;
	FILE *f;
	int err;

	f = open_memstream(&buf, len);
	if (!f)
		return NULL;
	pthread_mutex_lock(&st->lock);
	err = metrics_write(&st->m, f, fmt);
	pthread_mutex_unlock(&st->lock);
	if (fclose(f) || err) {
		free(buf);
		return NULL;
	}
	return buf;
}

static int write_textfile(struct prom_state *st)
{
	size_t len = 0;
	char *buf = render(st, METRICS_TEXT, &len);
	int err = buf ? prom_textfile_write(st->opt.file, buf, len) : -ENOMEM;

	free(buf);
	if (err == -EEXIST && !st->write_warned)
		fprintf(stderr,
			"notifwait: --prom-file %s is %s: only a regular file is replaced\n",
			st->opt.file,
			prom_textfile_refused(st->opt.file) ?:
				"not a regular file");
	else if (err && !st->write_warned)
		fprintf(stderr, "notifwait: cannot write %s: %s\n",
			st->opt.file, strerror(-err));
	st->write_warned = err != 0;
	if (err)
		st->failed_writes++;
	return err;
}

static void update_counters(struct sink *s, const struct run_totals *t)
{
	struct prom_state *st = s->priv;
	static const char *const knotifs[1] = { "knotifs" };
	static const char *const signals[1] = { "signals" };
	static const char *const runs[1] = { "probe_runs" };
	static const char *const unidentified[1] = { "unidentified" };
	static const char *const gaps[1] = { "switch_gaps" };
	static const char *const bound[1] = { "bound" };
	static const char *const budget[1] = { "budget" };
	int i;

	pthread_mutex_lock(&st->lock);
	set(st, F_LOST, NULL, t->bpf.lost_records);
	set(st, F_DROPPED, knotifs, t->bpf.dropped_knotifs);
	set(st, F_DROPPED, signals, t->bpf.dropped_signals);
	set(st, F_DROPPED, runs, t->bpf.missed_runs);
	set(st, F_DROPPED, unidentified, t->bpf.unidentified);
	set(st, F_DROPPED, gaps, t->switch_gaps);
	/* Read from the header's struct: no link dependency on bound_check.o */
	if (t->bound) {
		set(st, F_BOUND, bound, t->bound->st.violations);
		set(st, F_BOUND, budget, t->bound->st.budget_violations);
	}
	for (i = 0; t->findings && i < FINDING_COUNT; i++) {
		const char *kind[1] = { finding_kind_name(i) };

		set(st, F_FINDINGS, kind, findings_count(t->findings, i));
	}
	if (!st->backend_known && s->info->backend) {
		const char *backend[1] = { s->info->backend };

		set(st, F_BACKEND, backend, 1);
		st->backend_known = true;
	}
	pthread_mutex_unlock(&st->lock);
}

unsigned long long sink_prom_failed_writes(const struct sink *s)
{
	const struct prom_state *st = s->priv;

	return st->failed_writes;
}

void sink_prom_update(struct sink *s, const struct run_totals *t)
{
	struct prom_state *st = s->priv;
	__u64 now;

	update_counters(s, t);
	if (!st->opt.file)
		return;
	now = mono_ns();
	if (now < st->next_write_ns)
		return;
	write_textfile(st);
	st->next_write_ns = now + st->opt.interval_s * 1e9;
}

static void prom_finish(struct sink *s, const struct run_totals *t)
{
	struct prom_state *st = s->priv;

	update_counters(s, t);
	if (st->opt.file)
		write_textfile(st);
	st->finished = true;
}

/* Until the time is up or a signal (Ctrl-C) comes. */
static void linger(double seconds)
{
	struct timespec ts = {
		.tv_sec = (time_t)seconds,
		.tv_nsec = (long)((seconds - (time_t)seconds) * 1e9),
	};

	nanosleep(&ts, NULL);
}

static void prom_destroy(struct sink *s)
{
	struct prom_state *st = s->priv;

	if (st->http && st->finished && st->opt.linger_s > 0)
		linger(st->opt.linger_s);
	prom_http_stop(st->http);
	metrics_free(&st->m);
	pthread_mutex_destroy(&st->lock);
}

static int init_registry(struct prom_state *st)
{
	static const char *const version[1] = { NW_VERSION };
	static const char *const knotifs[1] = { "knotifs" };
	static const char *const runs[1] = { "probe_runs" };
	static const char *const signals[1] = { "signals" };
	static const char *const unidentified[1] = { "unidentified" };
	static const char *const gaps[1] = { "switch_gaps" };
	static const char *const bound[1] = { "bound" };
	static const char *const budget[1] = { "budget" };
	int i;

	metrics_init(&st->m);
	for (i = 0; i < F_COUNT; i++) {
		st->f[i] = metrics_add_family(&st->m, families[i].name,
					      families[i].help,
					      families[i].type,
					      families[i].labels);
		if (!st->f[i])
			return -ENOMEM;
	}
	st->f[F_HANDLE_STATE]->ns_as_seconds = true;
	st->f[F_QUEUE_STATE]->ns_as_seconds = true;
	/* Series that exist from the start, so that rate() sees the zero. */
	if (!metrics_series(st->f[F_LOST], NULL) ||
	    !metrics_series(st->f[F_DROPPED], knotifs) ||
	    !metrics_series(st->f[F_DROPPED], signals) ||
	    !metrics_series(st->f[F_DROPPED], runs) ||
	    !metrics_series(st->f[F_DROPPED], unidentified) ||
	    !metrics_series(st->f[F_DROPPED], gaps) ||
	    !metrics_series(st->f[F_BOUND], bound) ||
	    !metrics_series(st->f[F_BOUND], budget))
		return -ENOMEM;
	for (i = 0; i < FINDING_COUNT; i++) {
		const char *kind[1] = { finding_kind_name(i) };

		if (!metrics_series(st->f[F_FINDINGS], kind))
			return -ENOMEM;
	}
	set(st, F_BUILD, version, 1);
	return 0;
}

struct sink *sink_prom_new(const struct report_info *info,
			   const struct prom_options *opt)
{
	struct prom_addr addr;
	struct prom_state *st;
	struct sink *s;

	if (opt->listen && prom_listen_parse(opt->listen, &addr)) {
		fprintf(stderr, "notifwait: invalid --prom-listen '%s'\n",
			opt->listen);
		return NULL;
	}
	s = sink_alloc("prom", stderr, info, sizeof(*st));
	if (!s) {
		fprintf(stderr, "notifwait: out of memory\n");
		return NULL;
	}
	st = s->priv;
	st->opt = *opt;
	pthread_mutex_init(&st->lock, NULL);
	s->knotif = prom_knotif;
	s->reply_failed = prom_reply_failed;
	s->finish = prom_finish;
	s->destroy = prom_destroy;
	if (init_registry(st)) {
		fprintf(stderr, "notifwait: out of memory\n");
		goto fail;
	}
	/* Fail before tracing: a file that cannot be written, a busy port. */
	if (opt->file && write_textfile(st))
		goto fail;
	st->next_write_ns = mono_ns() + opt->interval_s * 1e9;
	if (opt->listen) {
		st->http = prom_http_start(&addr, render, st);
		if (!st->http)
			goto fail;
	}
	return s;
fail:
	prom_destroy(s);
	free(s->priv);
	free(s);
	return NULL;
}
