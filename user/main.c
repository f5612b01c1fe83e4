// SPDX-License-Identifier: GPL-2.0
/*
 * notifwait: the pipeline, wired together.
 *   backend (facts) -> ring buffer -> joiner [-> recording] -> stats + sinks
 *   --replay FILE -> joiner -> stats + sinks
 */
#define _GNU_SOURCE
#include <errno.h>
#include <malloc.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "backend.h"
#include "bound_check.h"
#include "cli.h"
#include "command.h"
#include "findings.h"
#include "folded.h"
#include "joiner.h"
#include "output.h"
#include "pid_check.h"
#include "privilege.h"
#include "prom_http.h"
#include "recording.h"
#include "replay.h"
#include "run_end.h"
#include "sink_prom.h"
#include "sinks.h"
#include "stats.h"
#include "sup_stacks.h"
#include "syscalls.h"
#include "timeline_svg.h"

#define POLL_MS NW_POLL_MS

struct app {
	struct env env;
	struct backend backend;
	struct report_info info;
	struct stats stats;
	struct findings findings;
	struct sinks sinks;
	struct sink *prom; /* also in sinks; fed the BPF counters each loop */
	struct bound_config bound_cfg; /* --check-bound */
	struct bound_check bound;
	struct joiner *joiner;
	unsigned long long no_memory; /* the statistics' */
	struct recording_writer *rec; /* --record */
	__u64 rec_counters_ns; /* when COUNTERS were last recorded */
	/* the BPF counters once tracing ended, or a replay's last COUNTERS */
	struct nw_counters bpf_final;
	bool bpf_frozen;
	struct recording_reader *replay; /* --replay */
	__u64 replay_now_ns; /* the recording's clock */
	__u64 replay_next_interval_ns; /* -i */
	struct ring_buffer *rb;
	struct sup_stacks *stacks; /* --supervisor-stacks */
	FILE *stacks_out;
	struct command cmd;
	struct cmd_cred cred; /* who COMMAND runs as */
	struct run_end end; /* signals, -d, and ending the COMMAND */
	bool have_cmd;
	bool cmd_unrunnable; /* exit 127 like a shell */
	FILE *out; /* stdout or -o: an output.h buffer */
	FILE *text; /* where text goes besides JSON: out, or stderr with -j */
};

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
		app->no_memory++;
	if (app->env.check_bound)
		bound_check_add(&app->bound, k);
	findings_add(&app->findings, k);
	sinks_knotif(&app->sinks, k);
}

static void on_reply_failed(const struct nw_reply_failed_event *r, void *ctx)
{
	struct app *app = ctx;

	if (app->env.supervisor_pid &&
	    r->supervisor_tgid != (__u32)app->env.supervisor_pid)
		return;
	stats_add_reply_failed(&app->stats);
	findings_add_reply_failed(&app->findings, r);
	sinks_reply_failed(&app->sinks, r);
}

/* The joiner: a supervisor thread slept in these stacks while it held one. */
static void on_stack(__u32 tgid, __u32 tid, const char *comm, __s32 kstack,
		     __s32 ustack, __u64 weight_ns, void *ctx)
{
	struct app *app = ctx;

	if (app->env.supervisor_pid && tgid != (__u32)app->env.supervisor_pid)
		return;
	sup_stacks_add(app->stacks, tgid, tid, comm, kstack, ustack, weight_ns);
}

static int lookup_stack(void *ctx, __s32 id, __u64 ips[NW_SUP_STACK_DEPTH])
{
	struct app *app = ctx;
	int n = 0;

	memset(ips, 0, NW_SUP_STACK_DEPTH * sizeof(ips[0]));
	if (backend_stack_lookup(&app->backend, id, ips,
				 NW_SUP_STACK_DEPTH * sizeof(ips[0])))
		return -errno;
	while (n < NW_SUP_STACK_DEPTH && ips[n])
		n++;
	return n;
}

/* Opened with the report, so a bad path fails before tracing. */
static int setup_stacks(struct app *app)
{
	struct nw_output *o;

	if (!app->env.supervisor_stacks)
		return 0;
	o = output_open_path(app->env.supervisor_stacks);
	if (!o)
		return -EIO; /* said why */
	app->stacks_out = output_file(o);
	/* reads kallsyms now: no CAP_SYSLOG is kept after attaching */
	app->stacks = sup_stacks_new(lookup_stack, app);
	if (!app->stacks) {
		fprintf(stderr, "notifwait: out of memory\n");
		return -ENOMEM;
	}
	return 0;
}

/* At the end, while the map is still there: the folded stacks. */
static void write_stacks(struct app *app)
{
	int err;

	if (!app->stacks)
		return;
	err = sup_stacks_write(app->stacks, app->stacks_out);
	if (err)
		fprintf(stderr, "notifwait: --supervisor-stacks %s: %s\n",
			app->env.supervisor_stacks, strerror(-err));
}

static int on_record(void *ctx, void *data, size_t size)
{
	struct app *app = ctx;

	const struct nw_fact_hdr *h = data;

	if (app->rec)
		recording_fact(app->rec, data, size);
	if (app->stacks && size >= sizeof(*h) && h->kind == NW_FACT_STACK)
		sup_stacks_seen(app->stacks, h->tgid);
	joiner_feed(app->joiner, data, size);
	return 0;
}

static void totals(struct app *app, struct run_totals *t)
{
	struct joiner_counters jc;

	memset(t, 0, sizeof(*t));
	t->stats = &app->stats;
	t->findings = &app->findings;
	if (app->bpf_frozen)
		t->bpf = app->bpf_final;
	else
		backend_counters(&app->backend, &t->bpf);
	t->no_memory = app->no_memory;
	t->stacks = app->stacks;
	if (app->stacks)
		t->bpf.lost_stacks += sup_stacks_unresolved(app->stacks);
	if (app->joiner) {
		joiner_counters(app->joiner, &jc);
		t->bpf.dropped_knotifs += jc.dropped_knotifs;
		t->bpf.dropped_signals += jc.dropped_signals;
		t->bpf.unidentified += jc.unidentified;
		t->malformed += jc.malformed;
		t->late_facts = jc.late;
		t->switch_gaps = jc.switch_gaps;
		t->no_memory += jc.no_memory;
	}
	t->elapsed_s = ((app->replay ? app->replay_now_ns : mono_ns()) -
			app->info.start_ns) /
		       1e9;
	if (app->env.check_bound) {
		bound_check_set_lost(&app->bound, &t->bpf, t->malformed,
				     t->no_memory);
		t->bound = &app->bound;
	}
}

static int setup_sinks(struct app *app)
{
	FILE *text = app->text;
	int err = 0;

	if (app->env.json)
		err |= sinks_add(&app->sinks,
				 sink_json_new(app->out, &app->info));
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
	FILE *text = app->text;
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

static int new_joiner(struct app *app)
{
	struct joiner_config cfg = {
		.max_knotifs = app->env.max_knotifs,
		.knotif = on_ready,
		.reply_failed = on_reply_failed,
		.stack = app->stacks ? on_stack : NULL,
		.ctx = app,
	};

	app->joiner = joiner_new(&cfg);
	if (!app->joiner) {
		fprintf(stderr, "notifwait: out of memory\n");
		return -ENOMEM;
	}
	return 0;
}

/* The facts go to the joiner, and with --record to the file as well. */
static int start_joiner(struct app *app)
{
	struct recording_info info;
	int err;

	err = new_joiner(app);
	if (err || !app->env.record)
		return err;
	recording_info_host(&info);
	info.backend = app->backend.name;
	info.backend_reason = app->backend.reason;
	info.mono_start_ns = app->info.start_ns;
	app->rec = recording_create(app->env.record, &info);
	app->rec_counters_ns = app->info.start_ns;
	return app->rec ? 0 : -EIO; /* recording_create said why */
}

/* The BPF side's counters, for a replay's lost record and metrics. */
static void record_counters(struct app *app, const struct nw_counters *c)
{
	__u64 values[NW_COUNTERS_LEN];

	nw_counters_to_list(c, values);
	recording_counters(app->rec, values, NW_COUNTERS_LEN);
}

static int start_tracing(struct app *app)
{
	struct backend_config cfg = {
		.target_tgid = app->env.target_pid,
		.syscall_nr = app->env.syscall_nr,
		.trace_descendants = app->have_cmd,
		.ringbuf_bytes = app->env.ringbuf_bytes,
		.want_stacks = app->env.supervisor_stacks != NULL,
	};
	int err;

	err = backend_start(&app->backend, &cfg, app->env.backend);
	if (err)
		return err;
	/* loading parsed the kernel's BTF (megabytes, freed): give it back */
	malloc_trim(0);
	app->info.start_ns = mono_ns();
	err = start_joiner(app);
	if (err)
		return err;
	if (app->have_cmd && backend_trace_tgid(&app->backend, app->cmd.pid)) {
		fprintf(stderr,
			"notifwait: cannot add the command to the traced set\n");
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
	return 0;
}

static void consume(struct app *app)
{
	/* Records are posted without wake-ups: drain on a timer as well. */
	__u64 now;

	ring_buffer__poll(app->rb, POLL_MS);
	/*
	 * The clock before the read: a fact older than the window was
	 * reserved (and so committed) before it, a stall of ours between the
	 * read and the clock cannot make it late.
	 */
	now = mono_ns();
	ring_buffer__consume(app->rb);
	if (app->rec) {
		struct nw_counters c;

		/* the tick recorded is the tick fed: a replay agrees */
		recording_tick(app->rec, now);
		if (now - app->rec_counters_ns >= 1000000000ULL) {
			backend_counters(&app->backend, &c);
			record_counters(app, &c);
			app->rec_counters_ns = now;
		}
	}
	joiner_tick(app->joiner, now);
	output_flush_all(); /* whole records, at least once per poll */
}

static void run(struct app *app)
{
	__u64 now, next_interval = 0, deadline = 0;
	struct run_totals t;

	if (app->env.interval_s)
		next_interval = app->info.start_ns + app->env.interval_s * 1e9;
	if (app->env.duration_s)
		deadline = app->info.start_ns + app->env.duration_s * 1e9;
	for (;;) {
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
		if (run_end_step(&app->end, app->have_cmd ? &app->cmd : NULL,
				 deadline && now >= deadline, now))
			break;
	}
	/* Let deliveries of signals right after the last returns arrive. */
	consume(app);
	/* what the report says is what a replay of the recording says */
	backend_counters(&app->backend, &app->bpf_final);
	app->bpf_frozen = true;
	joiner_finish(app->joiner);
	write_stacks(app);
	if (app->rec)
		record_counters(app, &app->bpf_final);
}

static void report_end(struct app *app)
{
	struct run_totals t;
	struct folded_top top;

	if (app->stacks &&
	    folded_top(sup_stacks_folded(app->stacks), &top, 1) == 1)
		findings_set_top_stack(&app->findings, top.text, top.weight);
	findings_finish(&app->findings);
	totals(app, &t);
	sinks_finish(&app->sinks, &t);
	output_flush_all();
	fprintf(stderr,
		"notifwait: %s%llu notifications; lost records: %llu, notifications dropped (map full): %llu, signals dropped: %llu, probe runs missed: %llu, unidentified: %llu",
		app->replay ? "replayed " : "", app->stats.knotifs,
		(unsigned long long)t.bpf.lost_records,
		(unsigned long long)t.bpf.dropped_knotifs,
		(unsigned long long)t.bpf.dropped_signals,
		(unsigned long long)t.bpf.missed_runs,
		(unsigned long long)t.bpf.unidentified);
	if (app->stacks)
		fprintf(stderr, ", supervisor stacks lost: %llu",
			(unsigned long long)t.bpf.lost_stacks);
	if (t.late_facts)
		fprintf(stderr,
			", facts out of order (later than the window): %llu",
			t.late_facts);
	if (t.switch_gaps)
		fprintf(stderr,
			", handle splits not given (a supervisor switch missing): %llu",
			t.switch_gaps);
	if (app->replay && recording_cut_short(app->replay))
		fprintf(stderr,
			"; the recording was cut short (no end marker: the tracer was killed or its disk filled), replayed up to its last whole entry");
	if (output_lines_lost())
		fprintf(stderr, ", output lines not written: %llu",
			output_lines_lost());
	if (app->prom && sink_prom_failed_writes(app->prom))
		fprintf(stderr, ", --prom-file writes failed: %llu",
			sink_prom_failed_writes(app->prom));
	fputc('\n', stderr);
}

static int check_pid(pid_t pid, const char *opt)
{
	if (pid && kill(pid, 0) && errno == ESRCH) {
		fprintf(stderr, "notifwait: no such process for %s: %d\n", opt,
			pid);
		return -ESRCH;
	}
	if (pid && nw_is_kernel_thread(pid)) {
		fprintf(stderr,
			"notifwait: %d is a kernel thread (%s): it makes no system calls, so it never waits for a notification nor receives one\n",
			pid, opt);
		return -EINVAL;
	}
	return 0;
}

/* Opened close-on-exec; a regular -o file is truncated after start-up. */
static int open_outputs(struct app *app)
{
	struct nw_output *out, *err;

	out = app->env.output ? output_open_path(app->env.output) :
				output_open_fd(STDOUT_FILENO, "stdout");
	if (!out)
		return -EIO;
	app->out = app->text = output_file(out);
	if (app->env.json) {
		err = output_open_fd(STDERR_FILENO, "stderr");
		if (!err)
			return -ENOMEM;
		app->text = output_file(err);
	}
	return 0;
}

/* The outputs and the sinks: live and --replay alike. */
static int prepare_report(struct app *app)
{
	int err;

	if (open_outputs(app))
		return -EIO; /* said why */
	stats_init(&app->stats);
	findings_init(&app->findings,
		      &(struct findings_config){
			      .restart_threshold = app->env.restart_threshold,
			      .budget_ns = app->env.bound_budget_s * 1e9 + 0.5,
		      });
	/* only -j's summary record and --summary show the groups */
	app->stats.no_groups = !app->env.json && !app->env.summary;
	err = setup_sinks(app);
	if (!err)
		err = setup_bound_timeline(app);
	if (!err)
		err = setup_stacks(app);
	if (err)
		return err;
	return setup_prom(app);
}

static int prepare(struct app *app)
{
	int err;

	if (check_pid(app->env.target_pid, "-p") ||
	    check_pid(app->env.supervisor_pid, "-s"))
		return -ESRCH;
	err = prepare_report(app);
	if (err)
		return err;
	run_end_install();
	libbpf_set_print(app->env.verbose ? libbpf_print : NULL);
	if (app->have_cmd) {
		err = command_check(app->env.command[0]);
		if (err) {
			fprintf(stderr, "notifwait: cannot run '%s': %s\n",
				app->env.command[0], strerror(-err));
			app->cmd_unrunnable = true;
			return err;
		}
		err = cmd_cred_resolve(&app->cred, app->env.run_as_user,
				       app->env.as_root);
		if (err)
			return err;
		err = command_spawn(&app->cmd, app->env.command, &app->cred);
		if (err) {
			fprintf(stderr, "notifwait: cannot fork: %s\n",
				strerror(-err));
			return err;
		}
	}
	return 0;
}

/* Whether bpf() on an fd we hold still works (see privilege_drop). */
static int bpf_probe(void *ctx)
{
	struct app *app = ctx;
	struct bpf_map_info info = {};
	__u32 len = sizeof(info);
	int err;

	err = bpf_obj_get_info_by_fd(backend_records_fd(&app->backend), &info,
				     &len);
	return err < 0 ? err : 0;
}

/* Attached: keep only what the rest of the run uses, then serve HTTP. */
static int drop_privileges(struct app *app)
{
	struct keep_caps keep = {
		/* a COMMAND of another user is signalled at the end */
		.kill = app->have_cmd && app->cred.uid != geteuid(),
		.dac_override = app->env.prom_file != NULL,
		/* a privileged supervisor's /proc/PID/maps, to name its frames */
		.sys_ptrace = app->env.supervisor_stacks != NULL,
	};
	char kept[128];
	int err;

	err = privilege_drop(&keep, bpf_probe, app, kept, sizeof(kept));
	if (err)
		return err;
	if (app->env.verbose)
		fprintf(stderr, "notifwait: capabilities kept: %s\n", kept);
	return prom_http_serve();
}

static int release_command(struct app *app)
{
	int err = command_release(&app->cmd);

	if (!err)
		return 0;
	fprintf(stderr, "notifwait: cannot run '%s': %s\n", app->env.command[0],
		strerror(-err));
	command_reap(&app->cmd, true);
	return err;
}

static void cleanup(struct app *app)
{
	if (app->have_cmd)
		command_kill(&app->cmd);
	ring_buffer__free(app->rb);
	backend_stop(&app->backend);
	if (app->rec)
		recording_close(app->rec);
	joiner_free(app->joiner);
	sup_stacks_free(app->stacks);
	recording_close_reader(app->replay);
	sinks_destroy(&app->sinks);
	stats_free(&app->stats);
	cmd_cred_free(&app->cred);
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

/* Ends --record: END written, the file closed; 0 or the entries lost. */
static unsigned long long finish_recording(struct app *app)
{
	unsigned long long lost;

	if (!app->rec)
		return 0;
	lost = recording_close(app->rec);
	app->rec = NULL;
	if (lost)
		fprintf(stderr,
			"notifwait: --record %s: %llu entries not written\n",
			app->env.record, lost);
	return lost;
}

/* -i during a replay: intervals by the recording's clock. */
static void on_replay_tick(__u64 now_ns, void *ctx)
{
	struct app *app = ctx;
	struct run_totals t;

	app->replay_now_ns = now_ns;
	/* as live, once per poll: the output is not held whole in memory */
	output_flush_all();
	while (app->replay_next_interval_ns &&
	       now_ns >= app->replay_next_interval_ns) {
		totals(app, &t);
		sinks_interval(&app->sinks, &t);
		app->replay_next_interval_ns += app->env.interval_s * 1e9;
	}
}

/* --replay FILE: no BPF, no root; the exit status as a live run's. */
static int replay_run(struct app *app)
{
	const struct nw_rec_header *h;

	app->replay = replay_open(app->env.replay);
	if (!app->replay)
		return 1;
	h = recording_header(app->replay);
	app->info.backend = h->backend;
	app->info.backend_reason = h->backend_reason;
	app->info.start_ns = app->replay_now_ns = h->mono_start_ns;
	app->bpf_frozen = true; /* bpf_final: the last COUNTERS entry */
	if (app->env.interval_s)
		app->replay_next_interval_ns =
			app->info.start_ns + app->env.interval_s * 1e9;
	if (prepare_report(app) || new_joiner(app) || output_begin_all())
		return 1;
	replay_feed(app->replay, app->joiner, &app->bpf_final, on_replay_tick,
		    app);
	joiner_finish(app->joiner);
	report_end(app);
	if (app->env.check_bound)
		return bound_exit_code(app, 0);
	return 0;
}

int main(int argc, char **argv)
{
	struct app app = {};
	unsigned long long lost, prom_failed = 0, rec_lost = 0;
	bool started = false;
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
	if (app.env.replay) {
		code = replay_run(&app);
		started = true;
		goto out;
	}
	if (prepare(&app) || start_tracing(&app) || output_begin_all() ||
	    drop_privileges(&app)) {
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
	rec_lost = finish_recording(&app);
	report_end(&app);
	code = 0;
	started = true;
	if (app.have_cmd) {
		/* exited, or SIGKILL could not end it (said on stderr) */
		code = app.end.gave_up ? 1 : command_exit_code(&app.cmd);
	}
	if (app.env.check_bound)
		code = bound_exit_code(&app, code);
out:
	prom_failed = started && app.prom ? sink_prom_failed_writes(app.prom) :
					    0;
	cleanup(&app);
	/* Every write is checked: a report with lines missing is a failure. */
	lost = output_close_all();
	if (started && (lost || prom_failed || rec_lost) && !code)
		code = 1;
	return code;
}
