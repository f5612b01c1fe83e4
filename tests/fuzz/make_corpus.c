// SPDX-License-Identifier: GPL-2.0
/*
 * Writes the fuzzers' seed corpus: small recordings of hand-written fact
 * sequences, through the real writer. make_corpus DIR
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "recording.h"

#define TARGET 100
#define SUPERVISOR 200
#define FILTER 0xffff888001234000ULL

static const struct recording_info info = {
	.nw_version = "corpus",
	.kernel_release = "6.1.0",
	.backend = "tracepoint",
	.backend_reason = "corpus",
	.arch = 0xc000003e,
	.mono_start_ns = 1000000,
};

static struct nw_fact_hdr hdr(unsigned int kind, size_t size, __u32 tid,
			      __u64 t)
{
	return (struct nw_fact_hdr){
		.kind = kind, .size = size, .tid = tid, .tgid = tid, .t_ns = t
	};
}

#define FACT(w, type, kind, tid, t, ...)                             \
	do {                                                         \
		struct type f = { .h = hdr(kind, sizeof(f), tid, t), \
				  __VA_ARGS__ };                     \
		recording_fact(w, &f, sizeof(f));                    \
	} while (0)

static void task(struct recording_writer *w, __u32 tid, __u64 t,
		 const char *comm)
{
	struct nw_fact_task f = { .h = hdr(NW_FACT_TASK, sizeof(f), tid, t),
				  .vtid = tid };

	strncpy(f.comm, comm, sizeof(f.comm) - 1);
	recording_fact(w, &f, sizeof(f));
}

static void replied(struct recording_writer *w, __u64 id, __u64 t)
{
	task(w, TARGET, t, "target");
	FACT(w, nw_fact_wait, NW_FACT_WAIT, TARGET, t + 10,
	     .h.flags = NW_WAIT_SLEEP, .filter = FILTER, .id = id, .nr = 39,
	     .arch = 0xc000003e);
	task(w, SUPERVISOR, t + 20, "supervisor");
	FACT(w, nw_fact_recv, NW_FACT_RECV, SUPERVISOR, t + 30,
	     .filter = FILTER, .id = id, .seen_pid = TARGET,
	     .target_tid = TARGET, .target_tgid = TARGET);
	FACT(w, nw_fact_reply, NW_FACT_REPLY, SUPERVISOR, t + 40,
	     .h.flags = NW_REPLY_OP_SEND, .filter = FILTER, .id = id,
	     .val = 42);
	FACT(w, nw_fact_reply_done, NW_FACT_REPLY_DONE, SUPERVISOR, t + 50,
	     .h.flags = NW_REPLY_OP_SEND, .filter = FILTER, .id = id);
	FACT(w, nw_fact_return, NW_FACT_RETURN, TARGET, t + 60,
	     .filter = FILTER, .id = id, .ret = 42, .nr = 39);
}

static void interrupted(struct recording_writer *w, __u64 id, __u64 t)
{
	FACT(w, nw_fact_wait, NW_FACT_WAIT, TARGET, t, .h.flags = NW_WAIT_SLEEP,
	     .filter = FILTER, .id = id, .nr = 0, .arch = 0xc000003e);
	FACT(w, nw_fact_signal, NW_FACT_SIGNAL, SUPERVISOR, t + 10,
	     .h.flags = NW_SIG_HAVE_KEY, .target_tid = TARGET,
	     .target_tgid = TARGET, .sig = 10, .filter = FILTER, .id = id);
	FACT(w, nw_fact_return, NW_FACT_RETURN, TARGET, t + 20,
	     .filter = FILTER, .id = id, .ret = -512, .pending = 1 << 9);
	FACT(w, nw_fact_deliver, NW_FACT_DELIVER, TARGET, t + 30, .sig = 10,
	     .sa_flags = 0x10000000);
}

static int write_one(const char *dir, const char *name, int what)
{
	static const __u64 counters[5] = { 0, 0, 0, 0, 0 };
	struct recording_writer *w;
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	unlink(path);
	w = recording_create(path, &info);
	if (!w)
		return 1;
	switch (what) {
	case 0:
		replied(w, 1, 2000000);
		recording_tick(w, 30000000);
		break;
	case 1:
		interrupted(w, 2, 2000000);
		recording_tick(w, 30000000);
		break;
	case 2: /* out of t_ns order across CPUs, ticks between */
		replied(w, 3, 5000000);
		recording_tick(w, 5000100);
		interrupted(w, 4, 4000000);
		recording_tick(w, 60000000);
		break;
	case 3: /* a wait still open at the end */
		FACT(w, nw_fact_wait, NW_FACT_WAIT, TARGET, 2000000,
		     .h.flags = NW_WAIT_ENTRY | NW_WAIT_KILLABLE,
		     .filter = FILTER, .id = 5, .t_start_ns = 1999000);
		break;
	case 4: /* a return whose wait was not seen */
		FACT(w, nw_fact_return, NW_FACT_RETURN, TARGET, 2000000,
		     .h.flags = NW_RET_NO_KEY, .filter = FILTER, .id = 6);
		break;
	}
	recording_counters(w, counters, 5);
	if (recording_close(w))
		return 1;
	if (what == 4) /* cut short: the END and half the counters gone */
		return truncate(path, NW_REC_HEADER_SIZE + 64 + 40) ? 1 : 0;
	return 0;
}

int main(int argc, char **argv)
{
	static const char *const names[] = { "replied", "interrupted",
					     "reordered", "pending",
					     "cut-short" };
	unsigned int i;
	int err = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: make_corpus DIR\n");
		return 2;
	}
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		err |= write_one(argv[1], names[i], i);
	return err;
}
