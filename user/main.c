// SPDX-License-Identifier: GPL-2.0
/*
 * notifwait: the pipeline, wired together.
 *   backend (BPF) -> ring buffer -> decoder -> knotif_table -> stats + sinks
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include "backend.h"
#include "bound_check.h"
#include "cli.h"
#include "command.h"
#include "decoder.h"
#include "knotif_table.h"
#include "sink_prom.h"
#include "sinks.h"
#include "stats.h"
#include "syscalls.h"
#include "timeline_svg.h"

#define POLL_MS 50

struct app {
	struct env env;
	struct backend backend;
	struct report_info info;
	struct stats stats;
	struct sinks sinks;
	struct sink *prom; /* also in sinks; fed the BPF counters each loop */
	struct bound_config bound_cfg; /* --check-bound */
	struct bound_check bound;
	struct knotif_table *table;
	struct decoder decoder;
	struct ring_buffer *rb;
	struct command cmd;
	bool have_cmd;
	bool cmd_unrunnable; /* exit 127 like a shell */
	FILE *out;
};

static volatile sig_atomic_t exiting;

static void on_signal(int sig)
{
	(void)sig;
	exiting = 1;
}

static int libbpf_print(enum libbpf_print_level level, const char *fmt,
			va_list args)
{
	(void)level;
	return vfprintf(stderr, fmt, args);
}

static __u64 mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static void on_ready(struct knotif *k, void *ctx)
{
	struct app *app = ctx;

	if (app->env.supervisor_pid &&
	    k->ev.supervisor_tgid != (__u32)app->env.supervisor_pid)
		return;
	if (stats_add(&app->stats, k, nw_syscall_name(k->ev.nr)))
		app->decoder.no_memory++;
	if (app->env.check_bound)
		bound_check_add(&app->bound, k);
	sinks_knotif(&app->sinks, k);
}

static void on_reply_failed(const struct nw_reply_failed_event *r, void *ctx)
{
	struct app *app = ctx;

	if (app->env.supervisor_pid &&
	    r->supervisor_tgid != (__u32)app->env.supervisor_pid)
		return;
	stats_add_reply_failed(&app->stats);
	sinks_reply_failed(&app->sinks, r);
}

static int on_record(void *ctx, void *data, size_t size)
{
	struct app *app = ctx;

	decoder_feed(&app->decoder, data, size);
	return 0;
}

static void on_pending(const struct nw_knotif_event *e, void *ctx)
{
	struct app *app = ctx;

	decoder_feed_pending(&app->decoder, e);
}

static void totals(struct app *app, struct run_totals *t)
{
	memset(t, 0, sizeof(*t));
	t->stats = &app->stats;
	backend_counters(&app->backend, &t->bpf);
	t->malformed = app->decoder.malformed;
	t->no_memory = app->decoder.no_memory;
	t->elapsed_s = (mono_ns() - app->info.start_ns) / 1e9;
	if (app->env.check_bound) {
		bound_check_set_lost(&app->bound, &t->bpf, t->malformed,
				     t->no_memory);
		t->bound = &app->bound;
	}
}

static int setup_sinks(struct app *app)
{
	FILE *text = app->env.json ? stderr : app->out;
	int err = 0;

	if (app->env.json)
		err |= sinks_add(&app->sinks, sink_json_new(app->out, &app->info));
	else if (!app->env.hist && !app->env.summary)
		err |= sinks_add(&app->sinks,
				 sink_stream_new(app->out, &app->info));
	if (app->env.hist)
		err |= sinks_add(&app->sinks, sink_hist_new(text, &app->info));
	if (app->env.summary)
		err |= sinks_add(&app->sinks,
				 sink_summary_new(text, &app->info));
	if (err)
		fprintf(stderr, "notifwait: out of memory\n");
	return err ? -ENOMEM : 0;
}

/* --check-bound and --timeline; a bad timeline path fails before tracing. */
static int setup_bound_timeline(struct app *app)
{
	FILE *text = app->env.json ? stderr : app->out;
	struct timeline_options tl = {
		.slowest = app->env.timeline_slowest,
		.have_window = app->env.timeline_window,
		.window_start_s = app->env.timeline_from_s,
		.window_end_s = app->env.timeline_to_s,
	};
	struct sink *s;

	if (app->env.check_bound) {
		app->bound_cfg.slack_ns = app->env.bound_slack_s * 1e9 + 0.5;
		app->bound_cfg.budget_ns = app->env.bound_budget_s * 1e9 + 0.5;
		bound_check_init(&app->bound, &app->bound_cfg);
		app->info.bound = &app->bound_cfg;
		if (sinks_add(&app->sinks, sink_bound_new(text, &app->info))) {
			fprintf(stderr, "notifwait: out of memory\n");
			return -ENOMEM;
		}
	}
	if (!app->env.timeline)
		return 0;
	s = sink_timeline_new(app->env.timeline, &app->info, &tl);
	if (!s)
		return -EINVAL; /* sink_timeline_new said why */
	if (sinks_add(&app->sinks, s)) {
		fprintf(stderr, "notifwait: too many outputs\n");
		s->destroy(s);
		free(s->priv);
		free(s);
		return -E2BIG;
	}
	return 0;
}

/* Before tracing and the command: a busy port or bad path fails early. */
static int setup_prom(struct app *app)
{
	struct prom_options opt = {
		.listen = app->env.prom_listen,
		.file = app->env.prom_file,
		.interval_s = app->env.interval_s ? app->env.interval_s : 5,
		.linger_s = app->env.prom_linger_s,
	};
	int err;

	if (!opt.listen && !opt.file)
		return 0;
	app->prom = sink_prom_new(&app->info, &opt);
	if (!app->prom)
		return -EINVAL; /* sink_prom_new said why */
	err = sinks_add(&app->sinks, app->prom);
	if (err) {
		fprintf(stderr, "notifwait: too many outputs\n");
		app->prom->destroy(app->prom);
		free(app->prom->priv);
		free(app->prom);
		app->prom = NULL;
	}
	return err;
}

static int start_tracing(struct app *app)
{
	struct backend_config cfg = {
		.target_tgid = app->env.target_pid,
		.syscall_nr = app->env.syscall_nr,
		.trace_descendants = app->have_cmd,
		.max_knotifs = app->env.max_knotifs,
		.ringbuf_bytes = app->env.ringbuf_bytes,
	};
	int err;

	err = backend_start(&app->backend, &cfg, app->env.backend);
	if (err)
		return err;
	if (app->have_cmd && backend_trace_tgid(&app->backend, app->cmd.pid)) {
		fprintf(stderr, "notifwait: cannot add the command to the traced set\n");
		return -EIO;
	}
	app->rb = ring_buffer__new(backend_records_fd(&app->backend), on_record,
				   app, NULL);
	if (!app->rb) {
		fprintf(stderr, "notifwait: cannot open the ring buffer: %s\n",
			strerror(errno));
		return -errno;
	}
	app->info.backend = app->backend.name;
	app->info.backend_reason = app->backend.reason;
	app->info.start_ns = mono_ns();
	return 0;
}

static void consume(struct app *app)
{
	/* Records are posted without wake-ups: drain on a timer as well. */
	ring_buffer__poll(app->rb, POLL_MS);
	ring_buffer__consume(app->rb);
	knotif_table_flush(app->table, mono_ns());
}

static void run(struct app *app)
{
	__u64 now, next_interval = 0, deadline = 0;
	struct run_totals t;

	if (app->env.interval_s)
		next_interval = app->info.start_ns + app->env.interval_s * 1e9;
	if (app->env.duration_s)
		deadline = app->info.start_ns + app->env.duration_s * 1e9;
	while (!exiting) {
		consume(app);
		if (app->prom) {
			totals(app, &t);
			sink_prom_update(app->prom, &t);
		}
		now = mono_ns();
		if (next_interval && now >= next_interval) {
			totals(app, &t);
			sinks_interval(&app->sinks, &t);
			next_interval += app->env.interval_s * 1e9;
		}
		if (deadline && now >= deadline)
			break;
		if (app->have_cmd && command_reap(&app->cmd, false))
			break;
	}
	/* Let deliveries of signals right after the last returns arrive. */
	consume(app);
	backend_for_each_pending(&app->backend, on_pending, app);
	knotif_table_flush_all(app->table);
}

static void report_end(struct app *app)
{
	struct run_totals t;

	totals(app, &t);
	sinks_finish(&app->sinks, &t);
	fprintf(stderr,
		"notifwait: %llu notifications; lost records: %llu, notifications dropped (map full): %llu, signals dropped: %llu, probe runs missed: %llu\n",
		app->stats.knotifs, (unsigned long long)t.bpf.lost_records,
		(unsigned long long)t.bpf.dropped_knotifs,
		(unsigned long long)t.bpf.dropped_signals,
		(unsigned long long)t.bpf.missed_runs);
}

static int check_pid(pid_t pid, const char *opt)
{
	if (pid && kill(pid, 0) && errno == ESRCH) {
		fprintf(stderr, "notifwait: no such process for %s: %d\n", opt,
			pid);
		return -ESRCH;
	}
	return 0;
}

static int prepare(struct app *app)
{
	struct sigaction sa = { .sa_handler = on_signal };
	int err;

	if (check_pid(app->env.target_pid, "-p") ||
	    check_pid(app->env.supervisor_pid, "-s"))
		return -ESRCH;
	app->out = stdout;
	if (app->env.output) {
		app->out = fopen(app->env.output, "w");
		if (!app->out) {
			fprintf(stderr, "notifwait: cannot write %s: %s\n",
				app->env.output, strerror(errno));
			return -errno;
		}
	}
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	libbpf_set_print(app->env.verbose ? libbpf_print : NULL);
	app->table = knotif_table_new(on_ready, app);
	if (!app->table)
		return -ENOMEM;
	app->decoder.table = app->table;
	app->decoder.reply_failed = on_reply_failed;
	app->decoder.ctx = app;
	stats_init(&app->stats);
	err = setup_sinks(app);
	if (!err)
		err = setup_bound_timeline(app);
	if (err)
		return err;
	err = setup_prom(app);
	if (err)
		return err;
	if (app->have_cmd) {
		err = command_check(app->env.command[0]);
		if (err) {
			fprintf(stderr, "notifwait: cannot run '%s': %s\n",
				app->env.command[0], strerror(-err));
			app->cmd_unrunnable = true;
			return err;
		}
		err = command_spawn(&app->cmd, app->env.command);
		if (err) {
			fprintf(stderr, "notifwait: cannot fork: %s\n",
				strerror(-err));
			return err;
		}
	}
	return 0;
}

static int release_command(struct app *app)
{
	int err = command_release(&app->cmd);

	if (!err)
		return 0;
	fprintf(stderr, "notifwait: cannot run '%s': %s\n",
		app->env.command[0], strerror(-err));
	command_reap(&app->cmd, true);
	return err;
}

static void cleanup(struct app *app)
{
	if (app->have_cmd)
		command_kill(&app->cmd);
	ring_buffer__free(app->rb);
	if (app->backend.skel)
		backend_stop(&app->backend);
	sinks_destroy(&app->sinks);
	knotif_table_free(app->table);
	stats_free(&app->stats);
	if (app->out && app->out != stdout)
		fclose(app->out);
}

/* With --check-bound the verdict is the exit status, even with COMMAND. */
static int bound_exit_code(struct app *app, int cmd_code)
{
	struct bound_stats st;
	int code;

	bound_check_stats(&app->bound, &st);
	code = bound_verdict_exit_code(st.verdict);
	if (app->have_cmd && cmd_code)
		fprintf(stderr,
			"notifwait: the command exited %d; exiting %d, the bound verdict (%s)\n",
			cmd_code, code, bound_verdict_name(st.verdict));
	return code;
}

int main(int argc, char **argv)
{
	struct app app = {};
	int code = 1;

	switch (cli_parse(argc, argv, &app.env)) {
	case CLI_EXIT_OK:
		return 0;
	case CLI_ERROR:
		return 2;
	case CLI_OK:
		break;
	}
	app.have_cmd = app.env.command != NULL;
	if (prepare(&app) || start_tracing(&app)) {
		if (app.cmd_unrunnable)
			code = 127;
		goto out;
	}
	fprintf(stderr,
		"notifwait: tracing seccomp user notifications (backend: %s: %s)... %s\n",
		app.backend.name, app.backend.reason,
		app.have_cmd ? "running the command." : "Ctrl-C to end.");
	if (app.have_cmd && release_command(&app)) {
		code = 127;
		goto out;
	}
	run(&app);
	report_end(&app);
	code = 0;
	if (app.have_cmd) {
		command_reap(&app.cmd, true);
		code = command_exit_code(&app.cmd);
	}
	if (app.env.check_bound)
		code = bound_exit_code(&app, code);
out:
	cleanup(&app);
	return code;
}
