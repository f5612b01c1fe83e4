// SPDX-License-Identifier: GPL-2.0
/*
 * nw-factdump: load bpf/facts.bpf.c's tracepoint programs, print every fact
 * the ring buffer brings, one line each, and the counters at the end. With
 * --joined the facts also go through the joiner (user/joiner.c), which
 * prints one line per notification record and its counters.
 *
 *   nw-factdump [-p PID] [-d SECONDS] [--joined] [--quiet]
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include "facts.h"
#include "joiner.h"
#include "knotif.h"
#include "facts.skel.h"

static volatile sig_atomic_t stop;
static bool quiet;
static struct joiner *joiner;
static unsigned long long nfacts, nrecords;

static void on_sigint(int sig)
{
	(void)sig;
	stop = 1;
}

static __u64 now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static void print_fact(const void *data, size_t size)
{
	const struct nw_fact_hdr *h = data;

	printf("%" PRIu64 " cpu=%u tid=%u tgid=%u flags=0x%x ",
	       (uint64_t)h->t_ns, h->cpu, h->tid, h->tgid, h->flags);
	if (size < sizeof(*h) || h->size != size) {
		printf("MALFORMED kind=%u size=%zu\n", h->kind, size);
		return;
	}
	switch (h->kind) {
	case NW_FACT_TASK: {
		const struct nw_fact_task *f = data;

		printf("TASK comm=%.16s vtid=%u\n", f->comm, f->vtid);
		break;
	}
	case NW_FACT_WAIT: {
		const struct nw_fact_wait *f = data;

		printf("WAIT filter=0x%llx id=%llu t_start=%llu pending=0x%llx nr=%d arch=0x%x\n",
		       (unsigned long long)f->filter, (unsigned long long)f->id,
		       (unsigned long long)f->t_start_ns,
		       (unsigned long long)f->pending, f->nr, f->arch);
		break;
	}
	case NW_FACT_RETURN: {
		const struct nw_fact_return *f = data;

		printf("RETURN filter=0x%llx id=%llu ret=%lld pending=0x%llx nr=%d\n",
		       (unsigned long long)f->filter, (unsigned long long)f->id,
		       (long long)f->ret, (unsigned long long)f->pending,
		       f->nr);
		break;
	}
	case NW_FACT_RECV: {
		const struct nw_fact_recv *f = data;

		printf("RECV filter=0x%llx id=%llu seen_pid=%u flags_in=0x%x target=%u/%u nr=%d arch=0x%x\n",
		       (unsigned long long)f->filter, (unsigned long long)f->id,
		       f->seen_pid, f->flags_in, f->target_tid, f->target_tgid,
		       f->nr, f->arch);
		break;
	}
	case NW_FACT_REPLY: {
		const struct nw_fact_reply *f = data;

		printf("REPLY filter=0x%llx id=%llu val=%lld error=%d flags=0x%x newfd=%u cmd=0x%x\n",
		       (unsigned long long)f->filter, (unsigned long long)f->id,
		       (long long)f->val, f->error, f->flags, f->newfd, f->cmd);
		break;
	}
	case NW_FACT_REPLY_DONE: {
		const struct nw_fact_reply_done *f = data;

		printf("REPLY_DONE filter=0x%llx id=%llu ret=%lld\n",
		       (unsigned long long)f->filter, (unsigned long long)f->id,
		       (long long)f->ret);
		break;
	}
	case NW_FACT_SIGNAL: {
		const struct nw_fact_signal *f = data;

		printf("SIGNAL target=%u/%u sig=%u result=%d filter=0x%llx id=%llu nr=%d\n",
		       f->target_tid, f->target_tgid, f->sig, f->result,
		       (unsigned long long)f->filter, (unsigned long long)f->id,
		       f->nr);
		break;
	}
	case NW_FACT_DELIVER: {
		const struct nw_fact_deliver *f = data;

		printf("DELIVER sig=%u sa_flags=0x%x\n", f->sig, f->sa_flags);
		break;
	}
	default:
		printf("UNKNOWN kind=%u size=%zu\n", h->kind, size);
	}
}

static int on_fact(void *ctx, void *data, size_t size)
{
	(void)ctx;
	nfacts++;
	if (!quiet)
		print_fact(data, size);
	if (joiner)
		joiner_feed(joiner, data, size);
	return 0;
}

static void on_record(struct knotif *k, void *ctx)
{
	const struct nw_knotif_event *e = &k->ev;
	unsigned int i;

	(void)ctx;
	nrecords++;
	printf("RECORD id=%llu filter=0x%llx tid=%u tgid=%u comm=%.16s outcome=%s t_notify=%llu t_recv=%llu t_reply=%llu t_return=%llu source=%s ret=%lld signals=",
	       (unsigned long long)e->key.id, (unsigned long long)e->key.filter,
	       e->target_tid, e->target_tgid, e->comm,
	       nw_outcome_name(k->outcome), (unsigned long long)e->t_notify_ns,
	       (unsigned long long)e->t_recv_ns,
	       (unsigned long long)e->t_reply_ns,
	       (unsigned long long)e->t_return_ns,
	       nw_notify_source_name(e->notify_source), (long long)e->ret);
	for (i = 0; i < e->nsignals && i < NW_MAX_SIGNALS; i++)
		printf("%s%u@%llu", i ? "," : "", e->signals[i].sig,
		       (unsigned long long)e->signals[i].t_sent_ns);
	if (!e->nsignals)
		printf("-");
	printf("\n");
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: nw-factdump [-p PID] [-d SECONDS] [--joined] [--quiet]\n"
		"  -p PID      only targets of this process\n"
		"  -d SECONDS  stop after SECONDS (default: at SIGINT)\n"
		"  --joined    also print the joiner's records\n"
		"  --quiet     do not print the facts\n");
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "joined", no_argument, NULL, 'j' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	struct joiner_config cfg = { .knotif = on_record };
	struct joiner_counters jc;
	struct ring_buffer *rb = NULL;
	struct facts_bpf *skel;
	double duration = 0;
	__u64 deadline = 0;
	bool joined = false;
	int pid = 0, c, err;

	while ((c = getopt_long(argc, argv, "p:d:h", opts, NULL)) != -1) {
		switch (c) {
		case 'p':
			pid = atoi(optarg);
			break;
		case 'd':
			duration = atof(optarg);
			break;
		case 'j':
			joined = true;
			break;
		case 'q':
			quiet = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	skel = facts_bpf__open();
	if (!skel) {
		fprintf(stderr, "nw-factdump: open: %s\n", strerror(errno));
		return 1;
	}
	skel->rodata->targ_tgid = pid;
	err = facts_bpf__load(skel);
	if (err) {
		fprintf(stderr, "nw-factdump: load: %s\n", strerror(-err));
		goto out;
	}
	err = facts_bpf__attach(skel);
	if (err) {
		fprintf(stderr, "nw-factdump: attach: %s\n", strerror(-err));
		goto out;
	}
	rb = ring_buffer__new(bpf_map__fd(skel->maps.facts), on_fact, NULL,
			      NULL);
	if (!rb) {
		err = -errno;
		fprintf(stderr, "nw-factdump: ring buffer: %s\n",
			strerror(errno));
		goto out;
	}
	if (joined) {
		joiner = joiner_new(&cfg);
		if (!joiner) {
			err = -ENOMEM;
			goto out;
		}
	}
	signal(SIGINT, on_sigint);
	signal(SIGTERM, on_sigint);
	fprintf(stderr, "nw-factdump: attached\n");
	if (duration > 0)
		deadline = now_ns() + (__u64)(duration * 1e9);
	while (!stop && (!deadline || now_ns() < deadline)) {
		err = ring_buffer__poll(rb, 50);
		if (err < 0 && err != -EINTR) {
			fprintf(stderr, "nw-factdump: poll: %s\n",
				strerror(-err));
			break;
		}
		if (joiner)
			joiner_tick(joiner, now_ns());
	}
	ring_buffer__consume(rb);
	err = 0;
	if (joiner) {
		joiner_finish(joiner);
		joiner_counters(joiner, &jc);
		printf("JOINER facts=%llu malformed=%llu late=%llu no_memory=%llu dropped_knotifs=%llu dropped_signals=%llu unidentified=%llu records=%llu\n",
		       jc.facts, jc.malformed, jc.late, jc.no_memory,
		       jc.dropped_knotifs, jc.dropped_signals, jc.unidentified,
		       nrecords);
	}
	printf("COUNTERS facts=%llu lost_facts=%llu walk_exhausted=%llu\n",
	       nfacts, (unsigned long long)skel->bss->counters.lost_facts,
	       (unsigned long long)skel->bss->counters.walk_exhausted);
out:
	if (joiner)
		joiner_free(joiner);
	ring_buffer__free(rb);
	facts_bpf__destroy(skel);
	return err ? 1 : 0;
}
